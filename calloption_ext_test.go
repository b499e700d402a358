package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// The rules of "Options for one call": every operation takes trailing call
// options, they reach everything the operation sends, and a call option
// wins over the endpoint's, which wins over the client's.

var (
	coGet      = kit.Get[kit.NoParams, rtItem]("/item", kit.WithHeader("X-Level", "endpoint"), kit.WithHeader("X-Endpoint", "e"))
	coGetParam = kit.Get[struct {
		Level string `kit:"X-Level,header"`
	}, rtItem]("/item")
	coPaged = kit.Paged[kit.NoParams, rtItem]("/items", kit.WithPaginator(kit.PageNumber{ItemsKey: "data", PageSize: 2}))
)

// scripted answers each request with the status script returns for the
// 0-based request number (0: a 200 with an rtItem).
func scripted(script func(i int, r *http.Request) int) (*recorder, *atomic.Int32) {
	var n atomic.Int32
	return newRecorder(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		if st := script(i, r); st != 0 {
			replyJSON(st, fmt.Sprintf(`{"error":"scripted %d"}`, st))(w, r)
			return
		}
		replyJSON(http.StatusOK, `{"id":1,"name":"ok"}`)(w, r)
	}), &n
}

func TestCallOptionHeaderPrecedence(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			rec := newRecorder(replyJSON(200, `{"id":1}`))
			_, c := tw.setup(t, rec, kit.WithHeader("X-Level", "client"), kit.WithHeader("X-Client", "c"))
			ctx := t.Context()
			if _, err := twinCall(ctx, tw, coGet, c, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			if _, err := twinCall(ctx, tw, coGet, c, kit.NoParams{}, kit.WithHeader("X-Level", "call"), kit.WithHeader("X-Level", "call2"), nil); err != nil {
				t.Fatal(err)
			}
			p := struct {
				Level string `kit:"X-Level,header"`
			}{"param"}
			if _, err := twinCall(ctx, tw, coGetParam, c, p); err != nil {
				t.Fatal(err)
			}
			if _, err := twinCall(ctx, tw, coGetParam, c, p, kit.WithHeader("x-level", "call")); err != nil {
				t.Fatal(err)
			}
			reqs := rec.requests()
			want := [][]string{{"endpoint"}, {"call", "call2"}, {"param"}, {"call"}}
			for i, r := range reqs {
				if got := r.Header.Values("X-Level"); fmt.Sprint(got) != fmt.Sprint(want[i]) {
					t.Errorf("request %d: X-Level %v, want %v", i, got, want[i])
				}
				if r.Header.Get("X-Client") != "c" {
					t.Errorf("request %d lost the client's other header", i)
				}
			}
			if reqs[1].Header.Get("X-Endpoint") != "e" {
				t.Error("a call option dropped the endpoint's other header")
			}
		})
	}
}

func TestCallOptionTimeoutAndRetryPrecedence(t *testing.T) {
	t.Parallel()
	// The client retries 4 times, the endpoint twice, the call three times
	// or never.
	rec, n := scripted(func(int, *http.Request) int { return 503 })
	srv := serve(t, rec)
	c := newClient(t, srv.URL, kit.WithRetry(rtFastRetry(4)))
	ep := kit.Get[kit.NoParams, rtItem]("/item", kit.WithRetry(rtFastRetry(2)))
	for _, tc := range []struct {
		name string
		opts []kit.CallOption
		want int32
	}{
		{"endpoint", nil, 2},
		{"call", []kit.CallOption{kit.WithRetry(rtFastRetry(3))}, 3},
		{"call NoRetry", []kit.CallOption{kit.NoRetry()}, 1},
		{"last wins", []kit.CallOption{kit.NoRetry(), kit.WithRetry(rtFastRetry(3))}, 3},
	} {
		n.Store(0)
		_, err := ep.Call(t.Context(), c, kit.NoParams{}, tc.opts...)
		var he *kit.HTTPError
		if !errors.As(err, &he) || he.StatusCode != 503 || n.Load() != tc.want {
			t.Errorf("%s: %d attempts, err %v; want %d attempts and a 503", tc.name, n.Load(), err, tc.want)
		}
	}
	// Over the client's policy too, for a resource.
	n.Store(0)
	if _, err := kit.NewResource[rtItem](c, "/item").Get(t.Context(), 1, kit.WithRetry(rtFastRetry(2))); err == nil || n.Load() != 2 {
		t.Errorf("Resource.Get with a call's policy: %d attempts, %v", n.Load(), err)
	}

	// A call's WithTimeout replaces the endpoint's: a long one lets a slow
	// answer in, a short one cuts it.
	gate := make(chan struct{})
	slow := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		replyJSON(200, `{"id":2}`)(w, r)
	}))
	sc := newClient(t, slow.URL)
	short := kit.Get[kit.NoParams, rtItem]("/x", kit.WithTimeout(time.Nanosecond))
	go func() { time.Sleep(5 * time.Millisecond); close(gate) }()
	if got, err := short.Call(t.Context(), sc, kit.NoParams{}, kit.WithTimeout(time.Minute)); err != nil || got.ID != 2 {
		t.Fatalf("the call's longer timeout: %+v, %v", got, err)
	}
	unbounded := kit.Get[kit.NoParams, rtItem]("/x")
	block := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	bc := newClient(t, block.URL)
	if _, err := unbounded.Call(t.Context(), bc, kit.NoParams{}, kit.WithTimeout(time.Millisecond)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the call's timeout: err = %v, want DeadlineExceeded", err)
	}
}

// Call options reach every request an operation sends: each method of
// Resource and AsyncResource, each page of a walk, each attempt.
func TestCallOptionsReachEveryRequest(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.Method == "DELETE":
					w.WriteHeader(http.StatusNoContent)
				case r.URL.Path == "/items" || r.URL.Path == "/users":
					switch r.URL.Query().Get("page") {
					case "1":
						replyJSON(200, `{"data":[{"id":1},{"id":2}]}`)(w, r)
					case "2":
						replyJSON(200, `{"data":[{"id":3},{"id":4}]}`)(w, r)
					default:
						replyJSON(200, `{"data":[]}`)(w, r)
					}
				default:
					replyJSON(200, `{"id":1}`)(w, r)
				}
			})
			_, b := tw.setup(t, rec)
			ctx := t.Context()
			tag := kit.WithHeader("X-Call", "yes")
			ops := map[string]func() error{}
			drain := func(seq func(yield func(rtItem, error) bool)) error {
				for _, err := range seq {
					if err != nil {
						return err
					}
				}
				return nil
			}
			if tw.async {
				r := kit.NewAsyncResource[rtItem](b, "/users", kit.WithPaginator(kit.PageNumber{ItemsKey: "data", PageSize: 2}))
				ops["List"] = func() error { _, err := r.List(ctx, nil, tag).Await(ctx); return err }
				ops["Get"] = func() error { _, err := r.Get(ctx, 1, tag).Await(ctx); return err }
				ops["Create"] = func() error { _, err := r.Create(ctx, rtItem{}, tag).Await(ctx); return err }
				ops["Update"] = func() error { _, err := r.Update(ctx, 1, rtItem{}, tag).Await(ctx); return err }
				ops["Patch"] = func() error { _, err := r.Patch(ctx, 1, rtItem{}, tag).Await(ctx); return err }
				ops["Delete"] = func() error { _, err := r.Delete(ctx, 1, tag).Await(ctx); return err }
				ops["All"] = func() error { return drain(r.All(ctx, tag)) }
				ops["Iterate"] = func() error { return drain(r.Iterate(ctx, nil, tag)) }
				ops["Pages"] = func() error {
					for _, err := range r.Pages(ctx, nil, tag) {
						if err != nil {
							return err
						}
					}
					return nil
				}
				ops["GoIterate"] = func() error { return drain(coPaged.GoIterate(ctx, b, kit.NoParams{}, tag)) }
				ops["GoPages"] = func() error {
					for _, err := range coPaged.GoPages(ctx, b, kit.NoParams{}, tag) {
						if err != nil {
							return err
						}
					}
					return nil
				}
			} else {
				r := kit.NewResource[rtItem](b, "/users", kit.WithPaginator(kit.PageNumber{ItemsKey: "data", PageSize: 2}))
				ops["List"] = func() error { _, err := r.List(ctx, nil, tag); return err }
				ops["Get"] = func() error { _, err := r.Get(ctx, 1, tag); return err }
				ops["Create"] = func() error { _, err := r.Create(ctx, rtItem{}, tag); return err }
				ops["Update"] = func() error { _, err := r.Update(ctx, 1, rtItem{}, tag); return err }
				ops["Patch"] = func() error { _, err := r.Patch(ctx, 1, rtItem{}, tag); return err }
				ops["Delete"] = func() error { _, err := r.Delete(ctx, 1, tag); return err }
				ops["All"] = func() error { return drain(r.All(ctx, tag)) }
				ops["Iterate"] = func() error { return drain(r.Iterate(ctx, nil, tag)) }
				ops["Pages"] = func() error {
					for _, err := range r.Pages(ctx, nil, tag) {
						if err != nil {
							return err
						}
					}
					return nil
				}
				ops["Paged.Iterate"] = func() error { return drain(coPaged.Iterate(ctx, b, kit.NoParams{}, tag)) }
				ops["Paged.Pages"] = func() error {
					for _, err := range coPaged.Pages(ctx, b, kit.NoParams{}, tag) {
						if err != nil {
							return err
						}
					}
					return nil
				}
			}
			for name, op := range ops {
				before := len(rec.requests())
				if err := op(); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				reqs := rec.requests()[before:]
				if len(reqs) == 0 {
					t.Fatalf("%s sent nothing", name)
				}
				for _, r := range reqs {
					if r.Header.Get("X-Call") != "yes" {
						t.Errorf("%s: %s went without the call's header", name, r.line())
					}
				}
				if strings.HasSuffix(name, "Pages") || strings.HasSuffix(name, "Iterate") || name == "All" {
					if len(reqs) != 3 {
						t.Errorf("%s: %d requests, want 3 pages", name, len(reqs))
					}
				}
			}
		})
	}
}

func TestCallOptionEveryAttemptAndResend(t *testing.T) {
	t.Parallel()
	rec, _ := scripted(func(i int, r *http.Request) int {
		if r.Header.Get("Authorization") == "Bearer old" {
			return 401
		}
		if i < 3 {
			return 503
		}
		return 0
	})
	srv := serve(t, rec)
	var fetches atomic.Int32
	auth := kit.TokenAuth(func(context.Context) (kit.Token, error) {
		if fetches.Add(1) == 1 {
			return kit.Token{Value: "old"}, nil
		}
		return kit.Token{Value: "new"}, nil
	})
	c := newClient(t, srv.URL, kit.WithAuth(auth), kit.WithRetry(rtFastRetry(5)))
	if _, err := rtGet.Call(t.Context(), c, kit.NoParams{}, kit.WithHeader("X-Call", "1")); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4 (a 401, its resend, two 503s... then success)", len(reqs))
	}
	for i, r := range reqs {
		if r.Header.Get("X-Call") != "1" {
			t.Errorf("request %d (%s) lost the call's header", i, r.Header.Get("Authorization"))
		}
	}
}

func TestCallOptionBadOptionSendsNothing(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		rec := newRecorder(nil)
		_, b := tw.setup(t, rec)
		for _, o := range []kit.CallOption{
			kit.WithHeader("", "v"),
			kit.WithHeader("X-Bad", "a\nb"),
			kit.WithTimeout(0),
			kit.WithRetry(kit.RetryPolicy{MaxAttempts: -1}),
			kit.IdempotencyKey(""),
			kit.IdempotencyKey("a\rb"),
		} {
			_, err := twinCall(t.Context(), tw, rtGet, b, kit.NoParams{}, o)
			if err == nil || !strings.HasPrefix(err.Error(), "kit: GET /item: ") {
				t.Errorf("%s %v: err = %v, want a kit error naming the endpoint", tw.name, o, err)
			}
			for _, err := range kit.NewResource[rtItem](b, "/items").All(t.Context(), o) {
				if err == nil {
					t.Errorf("%s: a walk with %v yielded no error", tw.name, o)
				}
			}
		}
		if n := len(rec.requests()); n != 0 {
			t.Errorf("%s: %d requests sent with bad call options", tw.name, n)
		}
	}
}

// A Stream's reconnections carry the call's header.
func TestCallOptionStreamReconnection(t *testing.T) {
	t.Parallel()
	var with, without atomic.Int32
	api := kittest.NewAPI()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Call") == "s" {
			with.Add(1)
		} else {
			without.Add(1)
		}
		api.ServeHTTP(w, r)
	}))
	c := newClient(t, srv.URL, kit.WithRetry(rtFastRetry(3)))
	ep := kit.Get[struct {
		Count     int `kit:"count"`
		DropEvery int `kit:"drop_every"`
	}, *kit.Stream[kittest.Event]]("/events")
	s, err := ep.Call(t.Context(), c, struct {
		Count     int `kit:"count"`
		DropEvery int `kit:"drop_every"`
	}{4, 2}, kit.WithHeader("X-Call", "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var seqs []int
	for ev, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, ev.Seq)
	}
	if fmt.Sprint(seqs) != "[1 2 3 4]" || with.Load() < 2 || without.Load() != 0 {
		t.Fatalf("events %v; %d requests with the header, %d without; want [1 2 3 4], at least 2, 0", seqs, with.Load(), without.Load())
	}
}
