package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// rtFastRetry retries with waits of at most a millisecond.
func rtFastRetry(maxAttempts int) kit.RetryPolicy {
	return kit.RetryPolicy{MaxAttempts: maxAttempts, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}
}

type rtItem struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// rtServer answers with the statuses of script in turn (then 200 with an
// rtItem), counting requests and recording request bodies.
type rtServer struct {
	*httptest.Server
	mu     sync.Mutex
	n      int
	bodies []string
	script []int
	header http.Header // added to scripted error responses
}

func newRTServer(t *testing.T, script ...int) *rtServer {
	t.Helper()
	s := &rtServer{script: script, header: http.Header{}}
	s.Server = serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		i := s.n
		s.n++
		s.bodies = append(s.bodies, string(body))
		var status int
		if i < len(s.script) {
			status = s.script[i]
		}
		for k, vs := range s.header {
			w.Header()[k] = vs
		}
		s.mu.Unlock()
		if status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			fmt.Fprintf(w, `{"error":"scripted %d","pad":%q}`, status, strings.Repeat("x", 1000))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%d,"name":"ok"}`, i+1)
	}))
	return s
}

func (s *rtServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *rtServer) seenBodies() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

var (
	rtGet       = kit.Get[kit.NoParams, rtItem]("/item")
	rtPost      = kit.Post[struct{ Item rtItem }, rtItem]("/item")
	rtPostIdem  = kit.Post[struct{ Item rtItem }, rtItem]("/item", kit.Idempotent())
	rtGetNo     = kit.Get[kit.NoParams, rtItem]("/item", kit.NoRetry())
	rtGetOwn    = kit.Get[kit.NoParams, rtItem]("/item", kit.WithRetry(rtFastRetry(2)))
	rtDeleteRaw = kit.Delete[kit.NoParams, *kit.Response]("/item")
)

func TestRetryOffByDefault(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503)
	c := newClient(t, s.URL)
	_, err := rtGet.Call(t.Context(), c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("err = %v, want a 503 HTTPError", err)
	}
	if strings.Contains(err.Error(), "attempts") {
		t.Errorf("a single attempt mentions attempts: %v", err)
	}
	if n := s.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestRetry503ThenSuccess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		script      []int
		maxAttempts int // 0: the default, 4
		want        int // the response that succeeds, and the requests made
	}{
		{"default attempts", []int{503, 502, 504}, 0, 4},
		{"3 attempts", []int{503, 504}, 3, 3},
	}
	for _, tw := range twins {
		for _, tt := range tests {
			t.Run(tw.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				s := newRTServer(t, tt.script...)
				c := tw.client(t, s.URL, kit.WithRetry(rtFastRetry(tt.maxAttempts)))
				got, err := twinCall(t.Context(), tw, rtGet, c, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				if got.ID != tt.want {
					t.Errorf("got %+v, want response %d", got, tt.want)
				}
				if n := s.count(); n != tt.want {
					t.Errorf("server saw %d requests, want %d", n, tt.want)
				}
			})
		}
	}
}

func TestRetry429RetryAfter(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"seconds":   "0",
		"http-date": time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newRTServer(t, 429, 429)
			s.header.Set("Retry-After", value)
			// A long backoff: only Retry-After (0 or in the past) keeps the
			// test quick, so it is what was used.
			p := kit.RetryPolicy{BaseDelay: time.Hour, MaxDelay: time.Hour, MaxElapsed: 2 * time.Hour}
			c := newClient(t, s.URL, kit.WithRetry(p))
			if _, err := rtGet.Call(t.Context(), c, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			if n := s.count(); n != 3 {
				t.Errorf("server saw %d requests, want 3", n)
			}
		})
	}
}

func TestRetryAfterBeyondMaxReturnsAtOnce(t *testing.T) {
	t.Parallel()
	for name, value := range map[string]string{
		"seconds":   "120",
		"http-date": time.Now().Add(time.Hour).UTC().Format(http.TimeFormat),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newRTServer(t, 429)
			s.header.Set("Retry-After", value)
			p := rtFastRetry(4)
			p.MaxRetryAfter = time.Minute
			c := newClient(t, s.URL, kit.WithRetry(p))
			_, err := rtGet.Call(t.Context(), c, kit.NoParams{})
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 429 {
				t.Fatalf("err = %v, want the 429", err)
			}
			if he.Header.Get("Retry-After") != value {
				t.Errorf("Retry-After = %q, want %q", he.Header.Get("Retry-After"), value)
			}
			if n := s.count(); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

func TestRetryAfterBeyondMaxAfterRetries(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 503)
	var calls atomic.Int32
	s.Config.Handler = rtWrapHandler(s.Config.Handler, func(w http.ResponseWriter) {
		if calls.Add(1) == 2 {
			w.Header().Set("Retry-After", "3600")
		}
	})
	c := newClient(t, s.URL, kit.WithRetry(rtFastRetry(4)))
	_, err := rtGet.Call(t.Context(), c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("err = %v, want the 503", err)
	}
	if !strings.Contains(err.Error(), "giving up after 2 attempts") || !strings.Contains(err.Error(), "Retry-After") {
		t.Errorf("err = %v, want it to give up after 2 attempts because of Retry-After", err)
	}
}

func rtWrapHandler(h http.Handler, before func(w http.ResponseWriter)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		before(w)
		h.ServeHTTP(w, r)
	})
}

func TestRetryPostOnlyWhenIdempotent(t *testing.T) {
	t.Parallel()
	item := struct{ Item rtItem }{rtItem{Name: "a"}}

	s := newRTServer(t, 503, 503)
	c := newClient(t, s.URL, kit.WithRetry(rtFastRetry(4)))
	_, err := rtPost.Call(t.Context(), c, item)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("POST err = %v, want the 503", err)
	}
	if n := s.count(); n != 1 {
		t.Errorf("plain POST: server saw %d requests, want 1", n)
	}

	s2 := newRTServer(t, 503, 503)
	c2 := newClient(t, s2.URL, kit.WithRetry(rtFastRetry(4)))
	if _, err := rtPostIdem.Call(t.Context(), c2, item); err != nil {
		t.Fatal(err)
	}
	if n := s2.count(); n != 3 {
		t.Errorf("Idempotent POST: server saw %d requests, want 3", n)
	}
}

func TestIdempotentAloneDoesNotRetry(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503)
	c := newClient(t, s.URL)
	if _, err := rtPostIdem.Call(t.Context(), c, struct{ Item rtItem }{}); err == nil {
		t.Fatal("want the 503")
	}
	if n := s.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestNoRetryEndpoint(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 503)
	c := newClient(t, s.URL, kit.WithRetry(rtFastRetry(4)))
	if _, err := rtGetNo.Call(t.Context(), c, kit.NoParams{}); err == nil {
		t.Fatal("want the 503")
	}
	if n := s.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestEndpointPolicyWinsOverClient(t *testing.T) {
	t.Parallel()
	// The client would retry 4 times; the endpoint's own policy allows 2
	// attempts. Without a client policy the endpoint still retries.
	for _, opts := range [][]kit.Option{{kit.WithRetry(rtFastRetry(4))}, nil} {
		s := newRTServer(t, 503, 503, 503)
		c := newClient(t, s.URL, opts...)
		_, err := rtGetOwn.Call(t.Context(), c, kit.NoParams{})
		if err == nil || !strings.Contains(err.Error(), "giving up after 2 attempts") {
			t.Errorf("err = %v, want giving up after 2 attempts", err)
		}
		if n := s.count(); n != 2 {
			t.Errorf("server saw %d requests, want 2", n)
		}
	}
}

func TestRetryMaxAttemptsError(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 503, 503, 503, 503)
	c := newClient(t, s.URL, kit.WithRetry(rtFastRetry(3)))
	_, err := rtGet.Call(t.Context(), c, kit.NoParams{})
	if err == nil {
		t.Fatal("want an error")
	}
	want := fmt.Sprintf("kit: GET %s/item: giving up after 3 attempts: ", s.URL)
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want prefix %q", err, want)
	}
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 || !strings.Contains(string(he.Body), "scripted 503") {
		t.Errorf("errors.As HTTPError: %+v", he)
	}
	if n := s.count(); n != 3 {
		t.Errorf("server saw %d requests, want 3", n)
	}
}

func TestRetryStopsOnOtherStatus(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 404)
	c := newClient(t, s.URL, kit.WithRetry(rtFastRetry(4)))
	_, err := rtGet.Call(t.Context(), c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 404 {
		t.Fatalf("err = %v, want the 404", err)
	}
	if !strings.Contains(err.Error(), "after 2 attempts") {
		t.Errorf("err = %v, want it to say 2 attempts", err)
	}
	if n := s.count(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestRetryCustomStatuses(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 500, 503)
	p := rtFastRetry(4)
	p.Statuses = []int{500}
	c := newClient(t, s.URL, kit.WithRetry(p))
	_, err := rtGet.Call(t.Context(), c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("err = %v, want the 503 (not in Statuses)", err)
	}
	if n := s.count(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

// rtCountingTransport counts round trips.
type rtCountingTransport struct {
	n    atomic.Int32
	next http.RoundTripper
}

func (t *rtCountingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.n.Add(1)
	return t.next.RoundTrip(r)
}

func TestRetryConnectionRefused(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused

	tr := &rtCountingTransport{next: &http.Transport{}}
	c := newClient(t, "http://"+addr, kit.WithHTTPClient(&http.Client{Transport: tr}), kit.WithRetry(rtFastRetry(3)))
	_, err = rtGet.Call(t.Context(), c, kit.NoParams{})
	if err == nil {
		t.Fatal("want an error")
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("err = %v, want ECONNREFUSED", err)
	}
	if !strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Errorf("err = %v, want giving up after 3 attempts", err)
	}
	if n := tr.n.Load(); n != 3 {
		t.Errorf("%d round trips, want 3", n)
	}
}

func TestRetryUnsupportedSchemeNotRetried(t *testing.T) {
	t.Parallel()
	// An error about the request itself (net/http wraps it in a
	// *url.Error, which is a net.Error): not a connection error.
	tr := &rtCountingTransport{next: rtRoundTripFunc(func(r *http.Request) (*http.Response, error) {
		return nil, errors.New(`unsupported protocol scheme "ftp"`)
	})}
	c := newClient(t, "http://127.0.0.1:1", kit.WithHTTPClient(&http.Client{Transport: tr}), kit.WithRetry(rtFastRetry(3)))
	if _, err := rtGet.Call(t.Context(), c, kit.NoParams{}); err == nil {
		t.Fatal("want an error")
	}
	if n := tr.n.Load(); n != 1 {
		t.Errorf("%d round trips, want 1", n)
	}
}

type rtRoundTripFunc func(*http.Request) (*http.Response, error)

func (f rtRoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRetryResetMidBody(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			// Announce 100 bytes, send 10, drop the connection.
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":1,\"n")
			buf.Flush()
			conn.Close()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":2,"name":"whole"}`)
	}), kit.WithRetry(rtFastRetry(3)))
	got, err := rtGet.Call(t.Context(), c, kit.NoParams{})
	if err != nil || got.ID != 2 {
		t.Fatalf("got %+v, %v; want the second response", got, err)
	}
	if n.Load() != 2 {
		t.Errorf("server saw %d requests, want 2", n.Load())
	}
}

func TestRetryBodyTooLargeNotRetried(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":1,"name":%q}`, strings.Repeat("x", 500))
	}), kit.WithRetry(rtFastRetry(3)), kit.WithMaxBodySize(100))
	_, err := rtGet.Call(t.Context(), c, kit.NoParams{})
	if !errors.Is(err, kit.ErrBodyTooLarge) {
		t.Fatalf("err = %v, want ErrBodyTooLarge", err)
	}
	if n.Load() != 1 {
		t.Errorf("server saw %d requests, want 1", n.Load())
	}
}

func TestRetryContextCancelledDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600") // a wait only cancellation ends
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var n atomic.Int32
	base := &http.Transport{}
	t.Cleanup(base.CloseIdleConnections)
	// Cancel once the first response is in: kit is then deciding to wait.
	tr := rtRoundTripFunc(func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		resp, err := base.RoundTrip(r)
		cancel()
		return resp, err
	})
	p := kit.RetryPolicy{MaxRetryAfter: 2 * time.Hour, MaxElapsed: 2 * time.Hour}
	c := newClient(t, srv.URL, kit.WithHTTPClient(&http.Client{Transport: tr}), kit.WithRetry(p))
	_, err := rtGet.Call(ctx, c, kit.NoParams{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !strings.Contains(err.Error(), "waiting to retry") || !strings.Contains(err.Error(), "503") {
		t.Errorf("err = %v, want it to say it was waiting to retry after a 503", err)
	}
	if n.Load() != 1 {
		t.Errorf("%d round trips, want 1", n.Load())
	}
}

func TestRetryWaitPastDeadlineNotTaken(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 503)
	s.header.Set("Retry-After", "3600")
	p := kit.RetryPolicy{MaxRetryAfter: 2 * time.Hour, MaxElapsed: 2 * time.Hour}
	c := newClient(t, s.URL, kit.WithRetry(p))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := rtGet.Call(ctx, c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("err = %v, want the 503 at once", err)
	}
	if s.count() != 1 {
		t.Errorf("server saw %d requests, want 1", s.count())
	}
}

func TestRetryMaxElapsed(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 503)
	s.header.Set("Retry-After", "3600")
	p := kit.RetryPolicy{MaxRetryAfter: 2 * time.Hour, MaxElapsed: time.Minute}
	c := newClient(t, s.URL, kit.WithRetry(p))
	_, err := rtGet.Call(t.Context(), c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("err = %v, want the 503 at once", err)
	}
	if s.count() != 1 {
		t.Errorf("server saw %d requests, want 1", s.count())
	}
}

func TestRetryReplaysBody(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 429, 502)
	c := newClient(t, s.URL, kit.WithRetry(rtFastRetry(4)))
	item := struct{ Item rtItem }{rtItem{ID: 7, Name: strings.Repeat("é", 300)}}
	if _, err := rtPostIdem.Call(t.Context(), c, item); err != nil {
		t.Fatal(err)
	}
	bodies := s.seenBodies()
	if len(bodies) != 4 {
		t.Fatalf("server saw %d requests, want 4", len(bodies))
	}
	if !strings.Contains(bodies[0], `"id":7`) {
		t.Fatalf("first body = %q", bodies[0])
	}
	for i, b := range bodies {
		if b != bodies[0] {
			t.Errorf("body %d = %q, want %q", i, b, bodies[0])
		}
	}
}

func TestRetryDeleteAndDrainedBodies(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 503)
	c := newClient(t, s.URL, kit.WithRetry(rtFastRetry(4)))
	resp, err := rtDeleteRaw.Call(t.Context(), c, kit.NoParams{})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("got %v, %v", resp, err)
	}
	if s.count() != 3 {
		t.Errorf("server saw %d requests, want 3", s.count())
	}
}

func TestRetryRefreshNotCounted(t *testing.T) {
	t.Parallel()
	var fetches atomic.Int32
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		return kit.Token{Value: "t" + strconv.Itoa(int(fetches.Add(1)))}, nil
	})
	// 401 (refresh), 503 (retry), then success: 3 requests under
	// MaxAttempts 2, since the refresh is not a retry attempt.
	s := newRTServer(t, 401, 503)
	c := newClient(t, s.URL, kit.WithAuth(auth), kit.WithRetry(rtFastRetry(2)))
	if _, err := rtGet.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if s.count() != 3 || fetches.Load() != 2 {
		t.Errorf("requests %d, fetches %d; want 3 and 2", s.count(), fetches.Load())
	}

	// Only one refresh per call: a second 401 is returned.
	s2 := newRTServer(t, 401, 503, 401)
	c2 := newClient(t, s2.URL, kit.WithAuth(auth), kit.WithRetry(rtFastRetry(4)))
	_, err := rtGet.Call(t.Context(), c2, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 {
		t.Fatalf("err = %v, want the second 401", err)
	}
	if s2.count() != 3 {
		t.Errorf("requests %d, want 3", s2.count())
	}
}

func TestRetryResourceCRUD(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503)
	c := newClient(t, s.URL, kit.WithRetry(rtFastRetry(3)))
	res := kit.NewResource[rtItem](c, "/items")
	if _, err := res.Get(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if s.count() != 2 {
		t.Errorf("Get: server saw %d requests, want 2", s.count())
	}

	for name, op := range map[string]func(r *kit.Resource[rtItem]) error{
		"Create": func(r *kit.Resource[rtItem]) error { _, err := r.Create(t.Context(), rtItem{Name: "n"}); return err },
		"Patch":  func(r *kit.Resource[rtItem]) error { _, err := r.Patch(t.Context(), 1, rtItem{Name: "n"}); return err },
	} {
		s := newRTServer(t, 503)
		r := kit.NewResource[rtItem](newClient(t, s.URL, kit.WithRetry(rtFastRetry(3))), "/items")
		if err := op(r); err == nil {
			t.Errorf("%s: want the 503", name)
		}
		if s.count() != 1 {
			t.Errorf("%s: server saw %d requests, want 1 (not retried)", name, s.count())
		}
	}
	for name, op := range map[string]func(r *kit.Resource[rtItem]) error{
		"Update": func(r *kit.Resource[rtItem]) error { _, err := r.Update(t.Context(), 1, rtItem{Name: "n"}); return err },
		"Delete": func(r *kit.Resource[rtItem]) error { _, err := r.Delete(t.Context(), 1); return err },
	} {
		s := newRTServer(t, 503)
		r := kit.NewResource[rtItem](newClient(t, s.URL, kit.WithRetry(rtFastRetry(3))), "/items")
		if err := op(r); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if s.count() != 2 {
			t.Errorf("%s: server saw %d requests, want 2", name, s.count())
		}
	}
}

// rtPagedServer serves records 1..total, pageSize per page, with the page
// number query; the first request for each page in failPages gets a 503.
func rtPagedServer(t *testing.T, total, pageSize int, failPages ...int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var mu sync.Mutex
	failed := map[int]bool{}
	var n atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page == 0 {
			page = 1
		}
		mu.Lock()
		fail := false
		for _, p := range failPages {
			if p == page && !failed[page] {
				failed[page], fail = true, true
			}
		}
		mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		var b strings.Builder
		b.WriteString("[")
		for i := (page-1)*pageSize + 1; i <= min(page*pageSize, total); i++ {
			if i > (page-1)*pageSize+1 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":%d,"name":"r%d"}`, i, i)
		}
		b.WriteString("]")
		fmt.Fprint(w, b.String())
	}))
	return srv, &n
}

func TestRetryIterationPageMidWalk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		total, pageSize int
		failPages       []int // the first request for each gets a 503
		wantRequests    int
	}{
		{"10 in pages of 3", 10, 3, []int{2, 4}, 6}, // 4 pages, 2 of them retried once
		{"5 in pages of 2", 5, 2, []int{2}, 4},      // 3 pages, 1 retried once
	}
	for _, tw := range twins {
		for _, tt := range tests {
			t.Run(tw.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				srv, n := rtPagedServer(t, tt.total, tt.pageSize, tt.failPages...)
				c := tw.client(t, srv.URL, kit.WithRetry(rtFastRetry(3)))
				var ids []int
				for r, err := range twinAll[rtItem](t.Context(), tw, c, "/items", kit.WithPaginator(kit.PageNumber{PageSize: tt.pageSize})) {
					if err != nil {
						t.Fatal(err)
					}
					ids = append(ids, r.ID)
				}
				if len(ids) != tt.total {
					t.Fatalf("ids = %v, want 1..%d", ids, tt.total)
				}
				for i, id := range ids {
					if id != i+1 {
						t.Fatalf("ids = %v, want 1..%d with no duplicate or gap", ids, tt.total)
					}
				}
				if got := n.Load(); got != int32(tt.wantRequests) {
					t.Errorf("server saw %d requests, want %d", got, tt.wantRequests)
				}
			})
		}
	}
}

func TestRetryPolicyErrors(t *testing.T) {
	t.Parallel()
	bad := []kit.RetryPolicy{
		{MaxAttempts: -1},
		{MaxElapsed: -1},
		{BaseDelay: -1},
		{MaxDelay: -1},
		{MaxRetryAfter: -1},
		{Statuses: []int{200}},
		{Statuses: []int{600}},
	}
	for _, p := range bad {
		if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithRetry(p)); err == nil || !strings.Contains(err.Error(), "WithRetry") {
			t.Errorf("NewClient(WithRetry(%+v)) err = %v", p, err)
		}
		_, err := kit.NewEndpoint[kit.NoParams, rtItem]("GET", "/x", kit.WithRetry(p))
		var de *kit.DeclarationError
		if !errors.As(err, &de) {
			t.Errorf("NewEndpoint(WithRetry(%+v)) err = %v, want a DeclarationError", p, err)
		}
	}
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithRetry(kit.RetryPolicy{Statuses: []int{}})); err != nil {
		t.Errorf("empty Statuses: %v", err)
	}
}

func TestRetryPolicyCopied(t *testing.T) {
	t.Parallel()
	p := rtFastRetry(3)
	p.Statuses = []int{503}
	opt := kit.WithRetry(p)
	p.Statuses[0] = 404 // must not change opt
	s := newRTServer(t, 503)
	c := newClient(t, s.URL, opt)
	if _, err := rtGet.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if s.count() != 2 {
		t.Errorf("server saw %d requests, want 2", s.count())
	}
}

func TestRetryHeadersReplayed(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	var n atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Idempotency-Key")+"|"+r.Header.Get("Authorization"))
		mu.Unlock()
		if n.Add(1) < 3 {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, `{"id":1}`)
	}))
	ep := kit.Post[struct {
		Key  string `kit:"Idempotency-Key,header"`
		Item rtItem
	}, rtItem]("/charges", kit.Idempotent())
	c := newClient(t, srv.URL, kit.WithAuth(kit.Bearer("tok")), kit.WithRetry(rtFastRetry(3)))
	if _, err := ep.Call(t.Context(), c, struct {
		Key  string `kit:"Idempotency-Key,header"`
		Item rtItem
	}{Key: "k-1"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(seen) != "[k-1|Bearer tok k-1|Bearer tok k-1|Bearer tok]" {
		t.Errorf("headers seen = %v", seen)
	}
}

// The rules of "Retry decisions that read the response".

func TestRetryIfReadsTheResponse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		header string // Stripe-Should-Retry
		body   string
		want   int32 // attempts
	}{
		{"503 but the server says no", 503, "false", `{}`, 1},
		{"409 and the server says yes", 409, "true", `{}`, 3},
		{"503 and no hint", 503, "", `{}`, 3},
		{"400 with a retryable code in the body", 400, "", `{"error":{"code":"lock_timeout"}}`, 3},
		{"400 with another code", 400, "", `{"error":{"code":"bad"}}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, tw := range twins {
				var n atomic.Int32
				srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if n.Add(1) <= 2 {
						if tc.header != "" {
							w.Header().Set("Stripe-Should-Retry", tc.header)
						}
						replyJSON(tc.status, tc.body)(w, r)
						return
					}
					replyJSON(200, `{"id":7}`)(w, r)
				}))
				type body struct {
					Error struct {
						Code string `json:"code"`
					} `json:"error"`
				}
				p := rtFastRetry(5)
				var seen []error
				p.RetryIf = func(err error) bool {
					seen = append(seen, err)
					var he *kit.HTTPError
					if errors.As(err, &he) {
						switch he.Header.Get("Stripe-Should-Retry") {
						case "true":
							return true
						case "false":
							return false
						}
						if m, ok := he.Model.(*body); ok && m.Error.Code == "lock_timeout" {
							return true
						}
					}
					return kit.Retryable(err)
				}
				b := tw.client(t, srv.URL, kit.WithRetry(p), kit.WithErrorModel[body]())
				got, err := twinCall(t.Context(), tw, rtGet, b, kit.NoParams{})
				if n.Load() != tc.want {
					t.Errorf("%s: %d attempts, want %d (err %v)", tw.name, n.Load(), tc.want, err)
				}
				if tc.want == 3 && (err != nil || got.ID != 7) {
					t.Errorf("%s: %+v, %v", tw.name, got, err)
				}
				wantSeen := 1
				if tc.want == 3 {
					wantSeen = 2
				}
				if len(seen) != wantSeen {
					t.Errorf("%s: RetryIf saw %d errors, want %d", tw.name, len(seen), wantSeen)
				}
			}
		})
	}
}

func TestRetryableDefaultRule(t *testing.T) {
	t.Parallel()
	// Statuses of the policy in force travel with the error.
	rec, _ := scripted(func(int, *http.Request) int { return 500 })
	srv := serve(t, rec)
	for _, tc := range []struct {
		name string
		opts []kit.Option
		call []kit.CallOption
		want bool
	}{
		{"no policy: the default statuses", nil, nil, false},
		{"the client's statuses", []kit.Option{kit.WithRetry(kit.RetryPolicy{MaxAttempts: 1, Statuses: []int{500}})}, nil, true},
		{"the call's statuses win", []kit.Option{kit.WithRetry(kit.RetryPolicy{MaxAttempts: 1, Statuses: []int{500}})},
			[]kit.CallOption{kit.WithRetry(kit.RetryPolicy{MaxAttempts: 1, Statuses: []int{503}})}, false},
	} {
		c := newClient(t, srv.URL, tc.opts...)
		_, err := rtGet.Call(t.Context(), c, kit.NoParams{}, tc.call...)
		if got := kit.Retryable(err); got != tc.want {
			t.Errorf("%s: Retryable(%v) = %v, want %v", tc.name, err, got, tc.want)
		}
	}
	rec429, _ := scripted(func(int, *http.Request) int { return 429 })
	if _, err := rtGet.Call(t.Context(), newClient(t, serve(t, rec429).URL), kit.NoParams{}); !kit.Retryable(err) {
		t.Errorf("a 429 with no policy: Retryable = false")
	}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{syscall.ECONNRESET, true},
		{io.ErrUnexpectedEOF, true},
		{&kit.DecodeError{Err: errors.New("x")}, false},
		{&kit.ValidationError{Model: "T"}, false},
		{errors.New("something else"), false},
	} {
		if got := kit.Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// A 429 on a POST is retried (RFC 6585), after its Retry-After, when
// RetryIf agrees.
func TestRetryTooManyRequestsOnAWrite(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "0")
			replyJSON(429, `{}`)(w, r)
			return
		}
		replyJSON(201, `{"id":3}`)(w, r)
	}))
	c := newClient(t, srv.URL, kit.WithRetry(kit.RetryPolicy{}))
	got, err := ikPost.Call(t.Context(), c, struct{ Item rtItem }{})
	if err != nil || got.ID != 3 || n.Load() != 2 {
		t.Fatalf("%+v, %v after %d attempts", got, err, n.Load())
	}
	// A Retry-After over MaxRetryAfter still ends retrying.
	n.Store(0)
	long := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "3600")
		replyJSON(429, `{}`)(w, r)
	}))
	lc := newClient(t, long.URL, kit.WithRetry(kit.RetryPolicy{}))
	if _, err := ikPost.Call(t.Context(), lc, struct{ Item rtItem }{}); err == nil || n.Load() != 1 {
		t.Fatalf("a long Retry-After: %d attempts, %v", n.Load(), err)
	}
	// RetryIf can refuse it.
	n.Store(0)
	p := kit.RetryPolicy{RetryIf: func(error) bool { return false }}
	var he *kit.HTTPError
	if _, err := ikPost.Call(t.Context(), c, struct{ Item rtItem }{}, kit.WithRetry(p)); !errors.As(err, &he) || he.StatusCode != 429 || n.Load() != 1 {
		t.Fatalf("RetryIf said no: %d attempts, %v; want the 429 after 1", n.Load(), err)
	}
}

func TestFaultRetryRecoversIteration(t *testing.T) {
	for _, k := range []struct {
		path string
		p    kit.Paginator
	}{
		{"/paged/users", kit.PageNumber{PageSize: 40}},
		{"/offset/users", kit.Offset{Limit: 40}},
		{"/cursor/users", kit.Cursor{NextKey: "meta.next_cursor", ItemsKey: "results"}},
		{"/linked/users", kit.LinkHeader{}},
	} {
		t.Run(k.path, func(t *testing.T) {
			fs := kittest.NewFaultServer(t, kittest.NewAPI(kittest.WithUsers(100)))
			fs.SetRetryAfter("0")
			c, err := kit.NewClient(fs.URL(), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r := kit.NewResource[faultUser](c, k.path, kit.WithPaginator(k.p))
			fs.Script(kittest.FaultNone, 503, kittest.FaultReset, 502, kittest.FaultTruncated)
			want := 1
			for u, err := range r.All(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				if u.ID != want {
					t.Fatalf("record %d: got id %d", want, u.ID)
				}
				want++
			}
			if want != 101 {
				t.Fatalf("got %d records, want 100", want-1)
			}
		})
	}
}

// TestFaultRetryRecoversAsync: the async paths recover by retry too, an
// endpoint future and a prefetching walk (every record once, in order).
func TestFaultRetryRecoversAsync(t *testing.T) {
	client := func(t *testing.T) (*kittest.FaultServer, *kit.AsyncClient) {
		fs := kittest.NewFaultServer(t, kittest.NewAPI(kittest.WithUsers(100)))
		fs.SetRetryAfter("0")
		ac, err := kit.NewAsyncClient(fs.URL(), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ac.Close(context.Background()) })
		return fs, ac
	}
	t.Run("Go", func(t *testing.T) {
		fs, ac := client(t)
		fs.Script(503, kittest.FaultReset, 502)
		u, err := faultGetUser.Go(t.Context(), ac, struct{ ID int }{7}).Await(t.Context())
		if err != nil || u.ID != 7 {
			t.Fatalf("Go after 3 faults: %+v, %v", u, err)
		}
	})
	// Walks: the faults hit whichever requests of a window arrive first,
	// at most 4 on one page, so 5 attempts always suffice.
	for _, w := range []struct {
		name string
		walk func(ctx context.Context, ac *kit.AsyncClient) iter.Seq2[faultUser, error]
		step int // between ids
	}{
		{"prefetch 2", func(ctx context.Context, ac *kit.AsyncClient) iter.Seq2[faultUser, error] {
			return kit.NewAsyncResource[faultUser](ac, "/paged/users", kit.WithPaginator(kit.PageNumber{PageSize: 30}), kit.WithPrefetch(2)).All(ctx)
		}, 1},
		{"pipelined 8", func(ctx context.Context, ac *kit.AsyncClient) iter.Seq2[faultUser, error] {
			return kit.NewAsyncResource[faultUser](ac, "/offset/users", kit.WithPaginator(kit.Offset{Limit: 10}), kit.WithPrefetch(8)).All(ctx)
		}, 1},
		{"paged endpoint", func(ctx context.Context, ac *kit.AsyncClient) iter.Seq2[faultUser, error] {
			return faultMembers.GoIterate(ctx, ac, struct{ ID int }{1}) // team 1: ids 1, 6, 11, ...
		}, 5},
	} {
		t.Run(w.name, func(t *testing.T) {
			fs, ac := client(t)
			fs.Script(kittest.FaultNone, 503, kittest.FaultTruncated, 502, kittest.FaultReset)
			want := 1
			for u, err := range w.walk(t.Context(), ac) {
				if err != nil {
					t.Fatal(err)
				}
				if u.ID != want {
					t.Fatalf("got id %d, want %d", u.ID, want)
				}
				want += w.step
			}
			if want != 101 {
				t.Fatalf("walk ended before id %d", want)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 10: a valid Retry-After too large for int64 is ignored (the call
// retries); it must end retrying like any Retry-After over the maximum.

func TestHostileRetryAfterOverflow(t *testing.T) { // defect 10
	for _, v := range []string{"99999999999999999999", "9223372036854775808"} {
		t.Run(v, func(t *testing.T) {
			var hits atomic.Int32
			srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.Header().Set("Retry-After", v)
				http.Error(w, "busy", http.StatusServiceUnavailable)
			})
			c := hxClient(t, srv.URL, kit.WithRetry(kit.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond}))
			_, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != http.StatusServiceUnavailable {
				t.Fatalf("Call: %v; want an *HTTPError 503", err)
			}
			if n := hits.Load(); n != 1 {
				t.Fatalf("Retry-After: %s (over MaxRetryAfter): server got %d requests; want 1 (no retry)", v, n)
			}
		})
	}
}
