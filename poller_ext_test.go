package kit_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

type lroStart struct {
	Body struct {
		Polls      int  `json:"polls"`
		Fail       bool `json:"fail,omitempty"`
		Never      bool `json:"never,omitempty"`
		RetryAfter *int `json:"retry_after,omitempty"`
	}
}

var startJob = kit.Post[lroStart, *kit.Response]("/lro/jobs")

func startLRO(t *testing.T, tw twin, b kit.Binding, polls int, fail, never bool) *kit.Response {
	t.Helper()
	var p lroStart
	p.Body.Polls, p.Body.Fail, p.Body.Never = polls, fail, never
	zero := 0
	p.Body.RetryAfter = &zero
	resp, err := twinCall(t.Context(), tw, startJob, b, p)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 202 {
		t.Fatalf("status %d, want 202", resp.StatusCode)
	}
	return resp
}

func pollerWait[R any](ctx context.Context, tw twin, p *kit.Poller[R]) (R, error) {
	if tw.async {
		return p.Go(ctx).Await(ctx)
	}
	return p.Wait(ctx)
}

func TestPollerSucceeds(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, kittest.NewAPI())
			var mu sync.Mutex
			var polls []kit.PollInfo
			c := tw.client(t, srv.URL, kit.WithObserver(kit.Observer{Poll: func(_ context.Context, p kit.PollInfo) {
				mu.Lock()
				polls = append(polls, p)
				mu.Unlock()
			}}))
			resp := startLRO(t, tw, c, 3, false, false)
			p, err := kit.NewPoller[kittest.LROResult](c, resp, kit.PollOptions{ResultAt: "result"})
			if err != nil {
				t.Fatal(err)
			}
			if want := srv.URL + "/lro/jobs/"; !strings.HasPrefix(p.Token(), want) {
				t.Errorf("Token = %q, want %s...", p.Token(), want)
			}
			r, err := pollerWait(t.Context(), tw, p)
			if err != nil {
				t.Fatal(err)
			}
			if r.ID == 0 || !strings.HasSuffix(r.Output, "output") || !p.Done() {
				t.Errorf("result %+v, done %v", r, p.Done())
			}
			mu.Lock()
			defer mu.Unlock()
			if len(polls) != 4 || !polls[3].Done || polls[0].Done || polls[0].Poll != 1 || polls[3].Poll != 4 {
				t.Errorf("polls %+v, want 3 running and a last one done", polls)
			}
		})
	}
}

func TestPollerFails(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, kittest.NewAPI())
			c := tw.client(t, srv.URL)
			p, err := kit.NewPoller[kittest.LROResult](c, startLRO(t, tw, c, 1, true, false), kit.PollOptions{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = pollerWait(t.Context(), tw, p)
			var oe *kit.OperationError
			if !errors.As(err, &oe) || oe.Status != "failed" {
				t.Fatalf("err = %v, want an *OperationError with state failed", err)
			}
		})
	}
}

// An operation that never ends polls until the context does.
func TestPollerNeverFinishes(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, kittest.NewAPI())
			c := tw.client(t, srv.URL)
			p, err := kit.NewPoller[kittest.LROResult](c, startLRO(t, tw, c, 0, false, true), kit.PollOptions{Wait: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			_, err = pollerWait(ctx, tw, p)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want DeadlineExceeded", err)
			}
			if p.Done() {
				t.Error("Done after a deadline")
			}
		})
	}
}

// A token saved by one poller goes on in another, and one Poll at a time
// reports the state.
func TestPollerResume(t *testing.T) {
	t.Parallel()
	srv := serve(t, kittest.NewAPI())
	c := newClient(t, srv.URL)
	p, err := kit.NewPoller[kittest.LROJob](c, startLRO(t, syncTwin, c, 2, false, false), kit.PollOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if done, err := p.Poll(t.Context()); done || err != nil {
		t.Fatalf("first poll: done %v, err %v", done, err)
	}
	c2 := newClient(t, srv.URL)
	q, err := kit.ResumePoller[kittest.LROJob](c2, p.Token(), kit.PollOptions{})
	if err != nil {
		t.Fatal(err)
	}
	job, err := q.Wait(t.Context())
	if err != nil || job.Status != "succeeded" || job.Polls != 3 {
		t.Fatalf("job %+v, %v; want succeeded after 3 polls in all", job, err)
	}
	for _, bad := range []string{"", "jobs/1", "ftp://h/x", "http://"} {
		if _, err := kit.ResumePoller[kittest.LROJob](c2, bad, kit.PollOptions{}); err == nil {
			t.Errorf("ResumePoller(%q) = nil error", bad)
		}
	}
}

func TestPollerNoURL(t *testing.T) {
	t.Parallel()
	srv := serve(t, kittest.NewAPI())
	c := newClient(t, srv.URL)
	resp, err := kit.Get[kit.NoParams, *kit.Response]("/health").Call(t.Context(), c, kit.NoParams{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kit.NewPoller[kittest.LROJob](c, resp, kit.PollOptions{}); !errors.Is(err, kit.ErrNoOperationURL) {
		t.Errorf("err = %v, want ErrNoOperationURL", err)
	}
}

// An operation that ends in its first response (a 201 with the result and
// no operation URL) gives a done poller: no Token, Wait sends nothing and
// decodes the result; a failed state there is the OperationError, and a
// first response still running without a URL stays ErrNoOperationURL.
func TestPollerDoneAtOnce(t *testing.T) {
	t.Parallel()
	var polls atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/created":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id":7,"status":"Succeeded","polls":0}`)
		case "/failed":
			io.WriteString(w, `{"id":8,"status":"Failed"}`)
		case "/running":
			io.WriteString(w, `{"id":9,"status":"Running"}`)
		default:
			polls.Add(1)
			http.NotFound(w, r)
		}
	}))
	c := newClient(t, srv.URL)
	first := func(path string) *kit.Response {
		resp, err := kit.Post[kit.NoParams, *kit.Response](path).Call(t.Context(), c, kit.NoParams{})
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	p, err := kit.NewPoller[kittest.LROJob](c, first("/created"), kit.PollOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Done() || p.Token() != "" {
		t.Errorf("Done() = %v, Token() = %q; want a done poller without a token", p.Done(), p.Token())
	}
	job, err := p.Wait(t.Context())
	if err != nil || job.ID != 7 {
		t.Errorf("Wait = %+v, %v; want job 7", job, err)
	}
	p, err = kit.NewPoller[kittest.LROJob](c, first("/failed"), kit.PollOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var oe *kit.OperationError
	if _, err := p.Wait(t.Context()); !errors.As(err, &oe) || oe.Status != "Failed" {
		t.Errorf("Wait = %v, want an *OperationError with status Failed", err)
	}
	if _, err := kit.NewPoller[kittest.LROJob](c, first("/running"), kit.PollOptions{}); !errors.Is(err, kit.ErrNoOperationURL) {
		t.Errorf("a running first response without a URL: %v, want ErrNoOperationURL", err)
	}
	if n := polls.Load(); n != 0 {
		t.Errorf("%d polls sent, want none", n)
	}
}
