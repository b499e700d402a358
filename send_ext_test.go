package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// Tests of the send chain as a whole: the order of its layers, call and
// attempt interceptors, and the Sender contract held at every interceptor
// boundary (a non-nil response iff a nil error; a non-2xx status as an
// *HTTPError), for sync and async clients alike.

type chainItem struct {
	ID int `json:"id"`
}

var (
	chainGet      = kit.Get[kit.NoParams, chainItem]("/item", kit.WithTimeout(time.Minute))
	chainDownload = kit.Get[kit.NoParams, io.ReadCloser]("/stream")
)

// fastRetry retries at once: the tests count attempts, not waits.
var fastRetry = kit.WithRetry(kit.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Nanosecond, MaxDelay: time.Nanosecond})

// trace records, in order, what the layers of a chain did.
type trace struct {
	mu sync.Mutex
	ev []string
}

func (tr *trace) add(format string, args ...any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.ev = append(tr.ev, fmt.Sprintf(format, args...))
}

func (tr *trace) events() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return slices.Clone(tr.ev)
}

// outcome is what a Sender answered, as a trace shows it: the status of a
// response or of an *HTTPError, or the error's text.
func outcome(resp *kit.Response, err error) string {
	var he *kit.HTTPError
	switch {
	case resp != nil && err != nil:
		return fmt.Sprintf("BOTH %d and %v", resp.StatusCode, err)
	case resp != nil:
		return fmt.Sprintf("response %d", resp.StatusCode)
	case errors.As(err, &he):
		return fmt.Sprintf("HTTPError %d", he.StatusCode)
	case err != nil:
		return "error"
	}
	return "NEITHER"
}

// tracing is an interceptor that adds to tr what it sees on the way in
// (the Authorization header, whether the context has a deadline) and on
// the way out.
func tracing(tr *trace, name string) kit.Interceptor {
	return func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			_, deadline := ctx.Deadline()
			tr.add("%s > auth=%q deadline=%v", name, req.Header.Get("Authorization"), deadline)
			resp, err := next(ctx, req)
			tr.add("%s < %s", name, outcome(resp, err))
			return resp, err
		}
	}
}

// traceHandler is a slog.Handler that adds each record of the logging
// layer to a trace, with its status and attempt.
type traceHandler struct{ tr *trace }

func (h traceHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h traceHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h traceHandler) WithGroup(string) slog.Handler            { return h }
func (h traceHandler) Handle(_ context.Context, r slog.Record) error {
	var status, attempt int64
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "status":
			status = a.Value.Int64()
		case "attempt":
			attempt = a.Value.Int64()
		}
		return true
	})
	h.tr.add("log %s %d attempt=%d", r.Level, status, attempt)
	return nil
}

// refreshingAuth sends "Bearer old" until refreshed, then "Bearer fresh".
type refreshingAuth struct {
	tr    *trace
	fresh atomic.Bool
}

func (a *refreshingAuth) Authenticate(req *http.Request) error {
	tok := "old"
	if a.fresh.Load() {
		tok = "fresh"
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	return nil
}

func (a *refreshingAuth) Refresh(context.Context) error {
	a.tr.add("refresh")
	a.fresh.Store(true)
	return nil
}

// TestChainLayerOrder follows one call through every layer: a 401 that
// the auth layer refreshes and resends, a 503 that the retry layer
// retries, then a 200. Call interceptors run once, outside the timeout
// (no deadline yet) and before credentials; attempt interceptors run for
// every attempt and resend, inside the timeout, after auth and inside the
// logging layer, which logs what they answer.
func TestChainLayerOrder(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			tr := &trace{}
			var fresh atomic.Int32
			srv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tr.add("server %s", r.Header.Get("Authorization"))
				switch {
				case r.Header.Get("Authorization") != "Bearer fresh":
					w.WriteHeader(http.StatusUnauthorized)
				case fresh.Add(1) == 1:
					w.WriteHeader(http.StatusServiceUnavailable)
				default:
					replyJSON(http.StatusOK, `{"id":7}`)(w, r)
				}
			})
			_, b := tw.setup(t, srv,
				kit.WithAuth(&refreshingAuth{tr: tr}),
				kit.WithLogger(slog.New(traceHandler{tr})),
				kit.WithRateLimit(1e6, 10),
				fastRetry,
				kit.WithInterceptors(tracing(tr, "call")),
				kit.WithAttemptInterceptors(tracing(tr, "attempt")),
			)
			got, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{})
			if err != nil || got.ID != 7 {
				t.Fatalf("got %+v, %v; want id 7", got, err)
			}
			want := []string{
				`call > auth="" deadline=false`,
				`attempt > auth="Bearer old" deadline=true`,
				`server Bearer old`,
				`attempt < HTTPError 401`,
				`log WARN 401 attempt=1`,
				`refresh`,
				`attempt > auth="Bearer fresh" deadline=true`,
				`server Bearer fresh`,
				`attempt < HTTPError 503`,
				`log WARN 503 attempt=1`,
				`attempt > auth="Bearer fresh" deadline=true`,
				`server Bearer fresh`,
				`attempt < response 200`,
				`log INFO 200 attempt=2`,
				`call < response 200`,
			}
			if got := tr.events(); !slices.Equal(got, want) {
				t.Errorf("trace:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
			}
		})
	}
}

// TestChainCallAndAttemptInterceptors checks what each kind changes: a
// call interceptor's change reaches every attempt, an attempt
// interceptor's change is made on the attempt's own copy of the request
// and does not leak into the next attempt. Several interceptors of one
// option run first outermost, and options accumulate in order.
func TestChainCallAndAttemptInterceptors(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int32
			rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) < 3 {
					w.WriteHeader(http.StatusBadGateway)
					return
				}
				replyJSON(http.StatusOK, `{"id":1}`)(w, r)
			})
			var order trace
			adding := func(name, header string) kit.Interceptor {
				return func(next kit.Sender) kit.Sender {
					return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
						order.add("%s", name)
						req.Header.Add(header, name)
						return next(ctx, req)
					}
				}
			}
			_, b := tw.setup(t, rec, fastRetry,
				kit.WithInterceptors(adding("c1", "X-Call"), nil, adding("c2", "X-Call")),
				kit.WithAttemptInterceptors(adding("a1", "X-Attempt")),
				kit.WithAttemptInterceptors(adding("a2", "X-Attempt")),
			)
			if _, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			reqs := rec.requests()
			if len(reqs) != 3 {
				t.Fatalf("server saw %d requests, want 3", len(reqs))
			}
			for i, r := range reqs {
				if got := r.Header.Values("X-Call"); !slices.Equal(got, []string{"c1", "c2"}) {
					t.Errorf("attempt %d: X-Call %q, want [c1 c2] on every attempt", i+1, got)
				}
				if got := r.Header.Values("X-Attempt"); !slices.Equal(got, []string{"a1", "a2"}) {
					t.Errorf("attempt %d: X-Attempt %q, want [a1 a2]: an attempt's change must not leak into the next", i+1, got)
				}
			}
			want := []string{"c1", "c2", "a1", "a2", "a1", "a2", "a1", "a2"}
			if got := order.events(); !slices.Equal(got, want) {
				t.Errorf("interceptors ran %q, want %q", got, want)
			}
		})
	}
}

// answering is an interceptor that answers the first `times` requests
// itself with a response made by NewResponse, and hands the others on.
func answering(status int, body string, times int32) (kit.Interceptor, *atomic.Int32) {
	var calls atomic.Int32
	return func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			if calls.Add(1) <= times {
				return kit.NewResponse(status, http.Header{"Retry-After": {"0"}}, []byte(body)), nil
			}
			return next(ctx, req)
		}
	}, &calls
}

// TestChainInterceptorNon2xx checks that a non-2xx answer an interceptor
// makes with NewResponse is an *HTTPError for every layer above it: the
// retry layer retries an attempt interceptor's 503 like the server's, an
// outer interceptor sees an *HTTPError, and the caller gets one with the
// status, headers and body.
func TestChainInterceptorNon2xx(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name+"/attempt 503 retried", func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(replyJSON(http.StatusOK, `{"id":3}`))
			tr := &trace{}
			busy, calls := answering(http.StatusServiceUnavailable, "busy", 1)
			_, b := tw.setup(t, rec, fastRetry, kit.WithAttemptInterceptors(tracing(tr, "outer"), busy))
			got, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{})
			if err != nil || got.ID != 3 {
				t.Fatalf("got %+v, %v; want id 3 after one retry", got, err)
			}
			if n := calls.Load(); n != 2 {
				t.Errorf("the attempt interceptor ran %d times, want 2 (the 503, then the retry)", n)
			}
			rec.only(t)
			want := []string{`outer > auth="" deadline=true`, `outer < HTTPError 503`, `outer > auth="" deadline=true`, `outer < response 200`}
			if got := tr.events(); !slices.Equal(got, want) {
				t.Errorf("the outer interceptor saw %q, want %q", got, want)
			}
		})
		t.Run(tw.name+"/call 503 not retried", func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(nil)
			tr := &trace{}
			busy, calls := answering(http.StatusServiceUnavailable, "busy", 1)
			_, b := tw.setup(t, rec, fastRetry, kit.WithInterceptors(tracing(tr, "outer"), busy))
			_, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{})
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 503 || string(he.Body) != "busy" || he.Header.Get("Retry-After") != "0" {
				t.Fatalf("err = %v, want an *HTTPError 503 with body busy and its header", err)
			}
			if he.Method != http.MethodGet || !strings.HasSuffix(he.URL, "/item") {
				t.Errorf("HTTPError of %s %s, want GET …/item", he.Method, he.URL)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("the call interceptor ran %d times; call interceptors are outside the retry layer", n)
			}
			if n := len(rec.requests()); n != 0 {
				t.Errorf("server saw %d requests, want none", n)
			}
			if got := tr.events(); len(got) != 2 || got[1] != "outer < HTTPError 503" {
				t.Errorf("the outer interceptor saw %q, want an *HTTPError 503", got)
			}
		})
		t.Run(tw.name+"/body cut at MaxErrorBodySize", func(t *testing.T) {
			t.Parallel()
			big, _ := answering(http.StatusInternalServerError, strings.Repeat("x", kit.MaxErrorBodySize+10), 1)
			_, b := tw.setup(t, newRecorder(nil), kit.WithInterceptors(big))
			_, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{})
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 500 {
				t.Fatalf("err = %v, want an *HTTPError 500", err)
			}
			if len(he.Body) != kit.MaxErrorBodySize {
				t.Errorf("HTTPError.Body has %d bytes, want the first MaxErrorBodySize (%d)", len(he.Body), kit.MaxErrorBodySize)
			}
		})
		t.Run(tw.name+"/304 is ErrNotModified", func(t *testing.T) {
			t.Parallel()
			cached, _ := answering(http.StatusNotModified, "", 1)
			_, b := tw.setup(t, newRecorder(nil), kit.WithAttemptInterceptors(cached))
			_, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{})
			if !errors.Is(err, kit.ErrNotModified) {
				t.Errorf("err = %v, want one matching kit.ErrNotModified", err)
			}
		})
		t.Run(tw.name+"/2xx answer gets a Request", func(t *testing.T) {
			t.Parallel()
			ok, _ := answering(http.StatusOK, `{"id":9}`, 1)
			var seen *kit.Response
			peek := func(next kit.Sender) kit.Sender {
				return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
					resp, err := next(ctx, req)
					seen = resp
					return resp, err
				}
			}
			_, b := tw.setup(t, newRecorder(nil), kit.WithInterceptors(peek, ok))
			got, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{})
			if err != nil || got.ID != 9 {
				t.Fatalf("got %+v, %v; want id 9 from the interceptor", got, err)
			}
			if seen == nil || seen.Request == nil || seen.Request.Method != http.MethodGet || seen.Request.URL.Path != "/item" {
				t.Errorf("the outer interceptor saw %+v, want a response with its GET /item request filled in", seen)
			}
		})
	}
}

// TestChainNilSender checks that an interceptor returning a nil Sender
// makes the constructor fail with an error naming it, instead of a panic
// at the first call.
func TestChainNilSender(t *testing.T) {
	t.Parallel()
	pass := func(next kit.Sender) kit.Sender { return next }
	broken := func(kit.Sender) kit.Sender { return nil }
	for _, tc := range []struct {
		opt  kit.Option
		want string
	}{
		{kit.WithInterceptors(broken), "kit: NewClient: WithInterceptors: interceptor 0 returned a nil Sender"},
		{kit.WithAttemptInterceptors(pass, broken), "kit: NewClient: WithAttemptInterceptors: interceptor 1 returned a nil Sender"},
	} {
		if c, err := kit.NewClient("http://127.0.0.1:1", tc.opt); err == nil || err.Error() != tc.want {
			t.Errorf("NewClient(%v): %v, %v; want error %q", tc.opt, c, err, tc.want)
		}
		if ac, err := kit.NewAsyncClient("http://127.0.0.1:1", tc.opt); err == nil || !strings.HasSuffix(err.Error(), strings.TrimPrefix(tc.want, "kit: NewClient")) {
			t.Errorf("NewAsyncClient(%v): %v, %v; want error %q", tc.opt, ac, err, tc.want)
		}
	}
}

// TestChainNilAnswer checks that an interceptor that returns neither a
// response nor an error is an error naming it, for the layers above it
// too, and is not retried.
func TestChainNilAnswer(t *testing.T) {
	t.Parallel()
	nothing := func(kit.Sender) kit.Sender {
		return func(context.Context, *kit.Request) (*kit.Response, error) { return nil, nil }
	}
	for _, tw := range twins {
		for _, tc := range []struct {
			name string
			opt  func(outer kit.Interceptor) kit.Option
			want string
		}{
			{"call", func(outer kit.Interceptor) kit.Option { return kit.WithInterceptors(outer, nothing) },
				"WithInterceptors: interceptor 1 returned neither a response nor an error"},
			{"attempt", func(outer kit.Interceptor) kit.Option { return kit.WithAttemptInterceptors(outer, nothing) },
				"WithAttemptInterceptors: interceptor 1 returned neither a response nor an error"},
		} {
			t.Run(tw.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				tr := &trace{}
				rec := newRecorder(nil)
				_, b := tw.setup(t, rec, fastRetry, tc.opt(tracing(tr, "outer")))
				_, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{})
				if err == nil || !strings.HasPrefix(err.Error(), "kit: GET http") || !strings.HasSuffix(err.Error(), "/item: "+tc.want) {
					t.Fatalf("err = %v, want kit: GET …/item: %s", err, tc.want)
				}
				if got := tr.events(); len(got) != 2 || got[1] != "outer < error" {
					t.Errorf("the outer interceptor saw %q, want one error and no retry", got)
				}
				if n := len(rec.requests()); n != 0 {
					t.Errorf("server saw %d requests, want none", n)
				}
			})
		}
	}
}

// TestChainResponseWithError checks that an interceptor that returns a
// response together with an error is taken at its error: the layers above
// see no response, and a streamed response given up that way is closed,
// which releases its connection (and, on an AsyncClient, its in-flight
// slot).
func TestChainResponseWithError(t *testing.T) {
	t.Parallel()
	errBoth := errors.New("both a response and an error")
	both := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			resp, err := next(ctx, req)
			if err != nil {
				return nil, err
			}
			return resp, errBoth
		}
	}
	for _, tw := range twins {
		t.Run(tw.name+"/read body", func(t *testing.T) {
			t.Parallel()
			tr := &trace{}
			_, b := tw.setup(t, newRecorder(replyJSON(http.StatusOK, `{"id":1}`)), kit.WithAttemptInterceptors(tracing(tr, "outer"), both))
			got, err := twinCall(t.Context(), tw, chainGet, b, kit.NoParams{})
			if !errors.Is(err, errBoth) || got.ID != 0 {
				t.Fatalf("got %+v, %v; want the interceptor's error", got, err)
			}
			if got := tr.events(); len(got) != 2 || got[1] != "outer < error" {
				t.Errorf("the outer interceptor saw %q, want the error alone", got)
			}
		})
		t.Run(tw.name+"/streamed body", func(t *testing.T) {
			t.Parallel()
			// The handler streams until the client goes away: only closing
			// the body ends the request.
			gone := make(chan struct{}, 4)
			srv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				io.WriteString(w, "data")
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				gone <- struct{}{}
			})
			_, b := tw.setup(t, srv, kit.WithMaxInFlight(1), kit.WithAttemptInterceptors(both))
			// Bounds a failure to a hang of the test, not a measure of speed.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			for i := range 2 { // with one slot, the second call needs the first's back
				body, err := twinCall(ctx, tw, chainDownload, b, kit.NoParams{})
				if !errors.Is(err, errBoth) || body != nil {
					t.Fatalf("call %d: %v, %v; want the interceptor's error and no body", i+1, body, err)
				}
				select {
				case <-gone:
				case <-ctx.Done():
					t.Fatalf("call %d: the streamed body was never closed", i+1)
				}
			}
		})
		t.Run(tw.name+"/streamed body, status changed", func(t *testing.T) {
			t.Parallel()
			gone := make(chan struct{}, 1)
			srv := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusOK)
				w.(http.Flusher).Flush()
				<-r.Context().Done()
				gone <- struct{}{}
			})
			teapot := func(next kit.Sender) kit.Sender {
				return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
					resp, err := next(ctx, req)
					if resp != nil {
						resp.StatusCode = http.StatusTeapot
					}
					return resp, err
				}
			}
			_, b := tw.setup(t, srv, kit.WithAttemptInterceptors(teapot))
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			_, err := twinCall(ctx, tw, chainDownload, b, kit.NoParams{})
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != http.StatusTeapot {
				t.Fatalf("err = %v, want an *HTTPError 418", err)
			}
			select {
			case <-gone:
			case <-ctx.Done():
				t.Fatal("the streamed body was never closed")
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 11: a nil context panics on the sync paths (Endpoint.Go returns an
// error).

func TestHostileNilContext(t *testing.T) { // defect 11
	srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/recs" {
			io.WriteString(w, `[{"id":1}]`)
			return
		}
		io.WriteString(w, `{"id":1}`)
	})
	c := hxClient(t, srv.URL)
	ac := hxAsyncClient(t, srv.URL)
	r := kit.NewResource[hxRec](c, "/recs")
	ar := kit.NewAsyncResource[hxRec](ac, "/recs")
	arp := kit.NewAsyncResource[hxRec](ac, "/recs", kit.WithPrefetch(2))
	auth := kit.TokenAuth(func(context.Context) (kit.Token, error) { return kit.Token{Value: "t"}, nil })
	walkErr := func(seq func(func(hxRec, error) bool)) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	var nilCtx context.Context
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Endpoint.Call", func() error { _, err := hxGetRec.Call(nilCtx, c, kit.NoParams{}); return err }},
		{"Endpoint.Go_control", func() error { _, err := hxGetRec.Go(nilCtx, ac, kit.NoParams{}).Await(hxCtx(t)); return err }},
		{"Resource.List", func() error { _, err := r.List(nilCtx, nil); return err }},
		{"Resource.Get", func() error { _, err := r.Get(nilCtx, 1); return err }},
		{"Resource.Create", func() error { _, err := r.Create(nilCtx, hxRec{ID: 1}); return err }},
		{"Resource.Delete", func() error { _, err := r.Delete(nilCtx, 1); return err }},
		{"Resource.All", func() error { return walkErr(r.All(nilCtx)) }},
		{"AsyncResource.All", func() error { return walkErr(ar.All(nilCtx)) }},
		{"AsyncResource.All_prefetch", func() error { return walkErr(arp.All(nilCtx)) }},
		{"TokenSourceAuth.Token", func() error { _, err := auth.Token(nilCtx); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if p := hxCatch(func() { err = tc.call() }); p != nil {
				t.Fatalf("panicked with a nil context: %v", p)
			}
			if err == nil {
				t.Fatal("no error with a nil context")
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 10: an interceptor that sets req.URL = nil panics the auth layer
// instead of getting an error. Checked with and without auth, from a call
// interceptor and an attempt interceptor, sync and async, and for the
// other fields an interceptor may empty (a nil Header is an empty one).

func TestHostileSecInterceptorNilURL(t *testing.T) { // defect 10
	mutations := map[string]func(*kit.Request){
		"URL_nil":     func(r *kit.Request) { r.URL = nil },
		"URL_no_host": func(r *kit.Request) { r.URL = &url.URL{Path: "/rec"} },
		"Header_nil":  func(r *kit.Request) { r.Header = nil },
	}
	srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":1}`)
	})
	for mname, mutate := range mutations {
		for _, attempt := range []bool{false, true} {
			for _, auth := range []bool{false, true} {
				for _, async := range []bool{false, true} {
					name := fmt.Sprintf("%s/attempt_%v/auth_%v/async_%v", mname, attempt, auth, async)
					t.Run(name, func(t *testing.T) {
						ic := func(next kit.Sender) kit.Sender {
							return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
								mutate(req)
								return next(ctx, req)
							}
						}
						var opts []kit.Option
						if attempt {
							opts = append(opts, kit.WithAttemptInterceptors(ic))
						} else {
							opts = append(opts, kit.WithInterceptors(ic))
						}
						if auth {
							// Every layer of the chain between the
							// interceptors and the transport.
							opts = append(opts, kit.WithAuth(kit.Bearer("hs-nil")), kit.WithRateLimit(1000, 10),
								kit.WithCache(kit.NewMemoryCache(1<<20)), kit.WithServerRateLimit(time.Second),
								kit.WithRetry(kit.RetryPolicy{MaxAttempts: 2, BaseDelay: 1}))
						}
						var err error
						p := hxCatch(func() {
							if async {
								_, err = hxGetRec.Go(hxCtx(t), hxAsyncClient(t, srv.URL, opts...), kit.NoParams{}).Await(hxCtx(t))
							} else {
								_, err = hxGetRec.Call(hxCtx(t), hxClient(t, srv.URL, opts...), kit.NoParams{})
							}
						})
						if p != nil {
							t.Fatalf("panicked: %v", p)
						}
						var pe *kit.PanicError
						if errors.As(err, &pe) {
							t.Fatalf("a kit layer panicked: %v", err)
						}
						if mname == "Header_nil" {
							if err != nil {
								t.Fatalf("a nil Header is an empty one: %v", err)
							}
							return
						}
						if err == nil {
							t.Fatal("no error")
						}
						if !strings.HasPrefix(err.Error(), "kit: ") {
							t.Errorf("error %q does not start with kit: ", err)
						}
					})
				}
			}
		}
	}
}

// TestHostileSecInterceptorNilURLAnswered is defect 10's other road: an
// interceptor that empties the URL and answers the call itself (a cache),
// for a call and for the pages of a walk, whose next links resolve
// against the URL of the page before.
func TestHostileSecInterceptorNilURLAnswered(t *testing.T) {
	srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the server got %s", r.URL)
	})
	answer := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			page := req.URL.Query().Get("p")
			req.URL = nil
			h := http.Header{"Content-Type": {"application/json"}}
			if page == "" {
				h.Set("Link", `</recs?p=2>; rel="next"`)
				return kit.NewResponse(200, h, []byte(`[{"id":1}]`)), nil
			}
			return kit.NewResponse(200, h, []byte(`[{"id":2}]`)), nil
		}
	}
	for _, hw := range hsWalkers {
		t.Run(hw.name, func(t *testing.T) {
			var ids []int
			var err error
			if p := hxCatch(func() {
				ids, err = hw.walk(t, srv.URL, "/recs", []kit.Option{kit.WithInterceptors(answer)}, kit.WithPaginator(kit.LinkHeader{}))
			}); p != nil {
				t.Fatalf("panicked: %v", p)
			}
			if err != nil || !slices.Equal(ids, []int{1, 2}) {
				t.Errorf("walk answered by an interceptor: %v, %v; want [1 2]", ids, err)
			}
		})
	}
	t.Run("call", func(t *testing.T) {
		var err error
		var got hxRec
		if p := hxCatch(func() {
			got, err = hxGetRec.Call(hxCtx(t), hxClient(t, srv.URL, kit.WithInterceptors(answer)), kit.NoParams{})
		}); p != nil {
			t.Fatalf("panicked: %v", p)
		}
		// [{"id":1}] is not an hxRec: a decode error, not a panic.
		var de *kit.DecodeError
		if !errors.As(err, &de) || got.ID != 0 {
			t.Errorf("call answered by an interceptor with an array: %+v, %v; want a *kit.DecodeError", got, err)
		}
	})
}
