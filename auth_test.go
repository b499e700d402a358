package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit/internal/leakcheck"
	"github.com/kithttp/kit/internal/tokensrv"
)

// White-box tests of TokenSourceAuth: they use a fake clock and wait for a
// given number of calls to be waiting on a fetch (tokenFetch.waiters), so
// that the concurrency they claim is what actually happens.

// waitersFor blocks until n calls have started or joined the running fetch.
func (a *TokenSourceAuth) waitersFor(t *testing.T, n int) {
	t.Helper()
	for {
		a.mu.Lock()
		got := -1
		if a.flight != nil {
			got = a.flight.waiters
		}
		a.mu.Unlock()
		if got >= n {
			return
		}
		runtime.Gosched()
		time.Sleep(100 * time.Microsecond)
	}
}

// fakeClock is a settable clock for TokenSourceAuth.now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

var testWhoami = Get[NoParams, *Response]("/whoami")

func newTestClient(t *testing.T, srv *httptest.Server, a Auth) *Client {
	t.Helper()
	c, err := NewClient(srv.URL, WithAuth(a))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// callAll makes n concurrent calls and returns their errors.
func callAll(t *testing.T, c *Client, n int, started *atomic.Int64) []error {
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			if started != nil {
				started.Add(1)
			}
			_, errs[i] = testWhoami.Call(t.Context(), c, NoParams{})
		})
	}
	wg.Wait()
	return errs
}

func TestTokenAuthExpiryAtOnceOneFetch(t *testing.T) {
	leakcheck.Check(t)
	const n = 200
	ts := tokensrv.New(t, nil, "new")
	var fetches atomic.Int64
	gate := make(chan struct{})
	a := TokenAuth(func(ctx context.Context) (Token, error) {
		fetches.Add(1)
		<-gate
		return Token{Value: "new", Expiry: time.Now().Add(time.Hour)}, nil
	}, WithInitialToken(Token{Value: "old", Expiry: time.Now().Add(-time.Second)}))
	c := newTestClient(t, ts.Server, a)
	done := make(chan []error)
	go func() { done <- callAll(t, c, n, nil) }()
	a.waitersFor(t, n) // all 200 wait on the one fetch
	close(gate)
	for i, err := range <-done {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if got := fetches.Load(); got != 1 {
		t.Errorf("fetches = %d, want 1", got)
	}
	if got := ts.Requests.Load(); got != n {
		t.Errorf("requests = %d, want %d (no 401s)", got, n)
	}
}

func TestTokenAuthConcurrent401OneRefresh(t *testing.T) {
	leakcheck.Check(t)
	const n = 200
	ts := tokensrv.New(t, nil, "new")
	// Hold every request made with the old token until all n have arrived,
	// so that all n get their 401 for the same token.
	var arrived atomic.Int64
	release := make(chan struct{})
	ts.Hold = func(tok string) {
		if tok == "old" {
			if arrived.Add(1) == n {
				close(release)
			}
			<-release
		}
	}
	var fetches atomic.Int64
	a := TokenAuth(func(ctx context.Context) (Token, error) {
		fetches.Add(1)
		return Token{Value: "new"}, nil
	}, WithInitialToken(Token{Value: "old"}))
	c := newTestClient(t, ts.Server, a)
	for i, err := range callAll(t, c, n, nil) {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if got := fetches.Load(); got != 1 {
		t.Errorf("fetches = %d, want 1", got)
	}
	if got := ts.Requests.Load(); got != 2*n {
		t.Errorf("requests = %d, want %d (each call: one 401, one retry)", got, 2*n)
	}
}

func TestTokenAuthFailedRefreshFailsEveryWaiterOnce(t *testing.T) {
	leakcheck.Check(t)
	const n = 50
	ts := tokensrv.New(t, nil)
	var arrived atomic.Int64
	release := make(chan struct{})
	ts.Hold = func(string) {
		if arrived.Add(1) == n {
			close(release)
		}
		<-release
	}
	errDenied := errors.New("token endpoint says no")
	var fetches atomic.Int64
	gate := make(chan struct{})
	a := TokenAuth(func(ctx context.Context) (Token, error) {
		fetches.Add(1)
		<-gate
		return Token{}, errDenied
	}, WithInitialToken(Token{Value: "old"}))
	c := newTestClient(t, ts.Server, a)
	done := make(chan []error)
	go func() { done <- callAll(t, c, n, nil) }()
	a.waitersFor(t, n) // every call got its 401 and waits on the one refresh
	close(gate)
	for i, err := range <-done {
		if !errors.Is(err, errDenied) || !strings.Contains(err.Error(), "got 401, refreshing credentials") {
			t.Errorf("call %d: err = %v, want the wrapped fetch error", i, err)
		}
		if err != nil && strings.Count(err.Error(), errDenied.Error()) != 1 {
			t.Errorf("call %d: the fetch error appears more than once: %v", i, err)
		}
	}
	if got := fetches.Load(); got != 1 {
		t.Errorf("fetches = %d, want 1", got)
	}
	if got := ts.Requests.Load(); got != n {
		t.Errorf("requests = %d, want %d (no retry after a failed refresh)", got, n)
	}
}

func TestTokenAuthFailedFirstFetchFailsEveryWaiter(t *testing.T) {
	leakcheck.Check(t)
	const n = 20
	ts := tokensrv.New(t, nil)
	errDenied := errors.New("no login")
	var fetches atomic.Int64
	gate := make(chan struct{})
	a := TokenAuth(func(ctx context.Context) (Token, error) {
		fetches.Add(1)
		<-gate
		return Token{}, errDenied
	})
	c := newTestClient(t, ts.Server, a)
	done := make(chan []error)
	go func() { done <- callAll(t, c, n, nil) }()
	a.waitersFor(t, n)
	close(gate)
	for i, err := range <-done {
		if !errors.Is(err, errDenied) || !strings.Contains(err.Error(), "adding credentials") {
			t.Errorf("call %d: err = %v", i, err)
		}
	}
	if f, r := fetches.Load(), ts.Requests.Load(); f != 1 || r != 0 {
		t.Errorf("fetches, requests = %d, %d; want 1, 0", f, r)
	}
}

func TestTokenAuthWaiterCancellation(t *testing.T) {
	leakcheck.Check(t)
	ts := tokensrv.New(t, nil, "tok")
	var fetches atomic.Int64
	gate := make(chan struct{})
	fetchCtxErr := make(chan error, 1)
	a := TokenAuth(func(ctx context.Context) (Token, error) {
		fetches.Add(1)
		<-gate
		fetchCtxErr <- ctx.Err()
		return Token{Value: "tok"}, nil
	})
	c := newTestClient(t, ts.Server, a)

	ctx, cancel := context.WithCancel(t.Context())
	cancelled := make(chan error)
	go func() {
		_, err := testWhoami.Call(ctx, c, NoParams{})
		cancelled <- err
	}()
	patient := make(chan error)
	a.waitersFor(t, 1)
	go func() {
		_, err := testWhoami.Call(t.Context(), c, NoParams{})
		patient <- err
	}()
	a.waitersFor(t, 2)
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: err = %v, want context.Canceled", err)
	}
	close(gate) // the fetch goes on for the others
	if err := <-fetchCtxErr; err != nil {
		t.Errorf("the fetch's context ended with its starter's: %v", err)
	}
	if err := <-patient; err != nil {
		t.Errorf("patient caller: %v", err)
	}
	if _, err := testWhoami.Call(t.Context(), c, NoParams{}); err != nil {
		t.Error(err)
	}
	if got := fetches.Load(); got != 1 {
		t.Errorf("fetches = %d, want 1", got)
	}
}

func TestTokenAuthExpiryMargin(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{t: t0}
	var fetches atomic.Int64
	lifetime := 10 * time.Minute
	a := TokenAuth(func(ctx context.Context) (Token, error) {
		n := fetches.Add(1)
		return Token{Value: fmt.Sprint("tok", n), Expiry: clock.now().Add(lifetime)}, nil
	})
	a.now = clock.now
	tokenAt := func(at time.Duration) string {
		t.Helper()
		clock.set(t0.Add(at))
		tok, err := a.Token(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return tok.Value
	}
	steps := []struct {
		at   time.Duration
		want string
	}{
		{0, "tok1"},                              // first use; expires at 10m
		{9*time.Minute + 29*time.Second, "tok1"}, // more than 30 s left
		{9*time.Minute + 31*time.Second, "tok2"}, // within the margin: renewed early; expires at 19m31s
		{19 * time.Minute, "tok2"},
		{19*time.Minute + 1*time.Second, "tok3"}, // exactly 30 s before; expires at 29m01s
		{28*time.Minute + 30*time.Second, "tok3"},
		{28*time.Minute + 31*time.Second, "tok4"},
		{28*time.Minute + 32*time.Second, "tok4"}, // no fetch per call
		{2 * time.Hour, "tok5"},                   // long expired
		{2*time.Hour + 9*time.Minute + 29*time.Second, "tok5"},
	}
	for _, s := range steps {
		if got := tokenAt(s.at); got != s.want {
			t.Errorf("at %v: token %s, want %s", s.at, got, s.want)
		}
	}

	// A short-lived token is renewed at half its lifetime, not on every call.
	lifetime = 20 * time.Second
	fetches.Store(0)
	a = RenewingTokenAuth(a.fetch, WithTokenExpiryMargin(time.Minute))
	a.now = clock.now
	clock.set(t0)
	if got := tokenAt(0); got != "tok1" {
		t.Fatalf("got %s", got)
	}
	if got := tokenAt(9 * time.Second); got != "tok1" {
		t.Errorf("at 9s: %s, want tok1", got)
	}
	if got := tokenAt(11 * time.Second); got != "tok2" {
		t.Errorf("at 11s: %s, want tok2", got)
	}

	// A token without expiry is kept.
	a = TokenAuth(func(context.Context) (Token, error) { return Token{Value: "forever"}, nil })
	a.now = clock.now
	tokenAt(0)
	if got := tokenAt(1000 * time.Hour); got != "forever" {
		t.Errorf("got %s", got)
	}
}

func TestTokenAuthRefreshIfStale(t *testing.T) {
	var fetches atomic.Int64
	a := TokenAuth(func(ctx context.Context) (Token, error) {
		return Token{Value: fmt.Sprint("tok", fetches.Add(1))}, nil
	}, WithInitialToken(Token{Value: "tok0"}))
	ctx := t.Context()
	// Two requests used generation 1 and got a 401: one refresh.
	for range 2 {
		if _, err := a.refreshIfStale(ctx, 1); err != nil {
			t.Fatal(err)
		}
	}
	if got := fetches.Load(); got != 1 {
		t.Fatalf("fetches = %d, want 1", got)
	}
	// A request that used the new token and got a 401 refreshes again.
	if _, err := a.refreshIfStale(ctx, 2); err != nil {
		t.Fatal(err)
	}
	// Refresh always fetches.
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	tok, _ := a.Token(ctx)
	if got := fetches.Load(); got != 3 || tok.Value != "tok3" {
		t.Errorf("fetches = %d, token %s; want 3, tok3", got, tok.Value)
	}
}

func TestTokenAuthFetchPanicIsAnError(t *testing.T) {
	leakcheck.Check(t)
	var fetches atomic.Int64
	a := TokenAuth(func(ctx context.Context) (Token, error) {
		if fetches.Add(1) == 1 {
			panic("boom")
		}
		return Token{Value: "tok"}, nil
	})
	_, err := a.Token(t.Context())
	if err == nil || !strings.Contains(err.Error(), "the fetch function: panic: boom") {
		t.Fatalf("err = %v, want the panic as an error", err)
	}
	if tok, err := a.Token(t.Context()); err != nil || tok.Value != "tok" {
		t.Errorf("after a panic: %v, %v; want the next fetch to work", tok, err)
	}
}

// BenchmarkAuthenticate measures what the auth layer adds to each
// attempt: a copy of the request, the Authenticate call and the record of
// what it added.
func BenchmarkAuthenticate(b *testing.B) {
	for name, a := range map[string]Auth{
		"Bearer":    Bearer("tok"),
		"TokenAuth": TokenAuth(func(context.Context) (Token, error) { return Token{Value: "tok"}, nil }),
	} {
		b.Run(name, func(b *testing.B) {
			st, err := newTestAuthLayer("https://api.example.com/v1", a)
			if err != nil {
				b.Fatal(err)
			}
			u, _ := url.Parse("https://api.example.com/v1/users/1")
			req := &Request{Method: "GET", URL: u, Header: http.Header{"Accept": {"application/json"}}, Endpoint: "GET /users/{id}", policy: defaultPolicy}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, _, _, err := st.authenticate(b.Context(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// headerAuth is a custom Auth doing what a static one does, so that it goes
// through the general path (Authenticate on an http.Request, and the diff
// of what it changed).
type headerAuth struct{ key, value string }

func (a headerAuth) Authenticate(req *http.Request) error {
	req.Header[a.key] = []string{a.value}
	return nil
}

// The static path records what the general path records, for every state
// the header may be in beforehand, and leaves the request it was given as
// it was unless that request is an attempt's own copy.
func TestStaticCredentialRecordsWhatAuthenticateDoes(t *testing.T) {
	for _, auth := range []Auth{Bearer("tok"), Basic("al", "pw"), APIKey("x-api-key", "k")} {
		key, value := auth.(staticHeaderAuth).staticHeader()
		static, err := newTestAuthLayer("https://api.example.com/v1", auth)
		if err != nil {
			t.Fatal(err)
		}
		general, err := newTestAuthLayer("https://api.example.com/v1", headerAuth{key, value})
		if err != nil {
			t.Fatal(err)
		}
		sc := &staticCredential{key: key, value: value, rec: &authRecord{origin: static.home.base, header: []headerWas{{key, nil}}}}
		for name, before := range map[string][]string{"absent": nil, "other": {"user's"}, "same": {value}, "empty": {}} {
			for _, own := range []bool{false, true} {
				u, _ := url.Parse("https://api.example.com/v1/users/1")
				h := http.Header{"Accept": {"application/json"}}
				if before != nil {
					h[key] = before
				}
				req := &Request{Method: "GET", URL: u, Header: h, policy: defaultPolicy}
				want, wctx, _, _, err := general.authenticate(t.Context(), req)
				if err != nil {
					t.Fatal(err)
				}
				in := req
				if own {
					in = req.attemptCopy(nil)
				}
				got, gctx := static.addStaticCredential(t.Context(), sc, in)
				if own != (got == in) {
					t.Errorf("%s, %s, own %v: the attempt's copy was not used in place, or another request was changed", auth, name, own)
				}
				if !reflect.DeepEqual(got.Header, want.Header) {
					t.Errorf("%s, %s: header %v, want %v", auth, name, got.Header, want.Header)
				}
				if !reflect.DeepEqual(req.Header, h) || (before == nil && req.Header[key] != nil) {
					t.Errorf("%s, %s: the caller's request changed: %v", auth, name, req.Header)
				}
				gr, wr := authRecordFrom(gctx), authRecordFrom(wctx)
				if gr.origin != static.home.base || !reflect.DeepEqual(gr.header, wr.header) || len(gr.query) != 0 {
					t.Errorf("%s, %s: record %+v, want %+v", auth, name, *gr, *wr)
				}
				// The attempt interceptors may write into the value.
				got.Header[key][0] = "changed"
				if sc.value != value || (len(before) > 0 && h[key][0] != before[0]) {
					t.Errorf("%s, %s: writing into the attempt's header changed shared values", auth, name)
				}
			}
		}
	}
}

// authContext is what context.WithValue would be: the record for its key,
// the parent's values, deadline and cancellation otherwise.
func TestAuthContext(t *testing.T) {
	type key struct{}
	parent, cancel := context.WithCancel(context.WithValue(t.Context(), key{}, "v"))
	rec := &authRecord{}
	ctx := &authContext{parent, rec}
	if authRecordFrom(ctx) != rec || ctx.Value(key{}) != "v" {
		t.Error("values")
	}
	// A context derived from it follows its parent's cancellation.
	child, stop := context.WithCancel(ctx)
	defer stop()
	cancel()
	<-child.Done()
	if authRecordFrom(withoutAuthRecord(ctx)) != nil {
		t.Error("withoutAuthRecord kept the record")
	}
}

// What auth, retry and the rate limit add to a call, beyond the call itself:
// the attempt's copy of the request (one allocation, with its URL, values
// and the auth header's value and context) and its header map. Measured
// against an engine that answers from memory, so that nothing else counts.
func TestAuthRetryRateLimitAllocations(t *testing.T) {
	engine := memoryEngine{}
	d := Get[NoParams, map[string]int]("/x")
	allocs := func(opts ...Option) float64 {
		c, err := NewClient("https://api.example.com/v1", append([]Option{WithEngine(engine)}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(200, func() {
			if _, err := d.Call(t.Context(), c, NoParams{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	plain := allocs()
	all := allocs(WithAuth(Bearer("tok")), WithRetry(RetryPolicy{}), WithRateLimit(1e9, 1e6))
	t.Logf("allocations per call: %v plain, %v with auth, retry and a rate limit", plain, all)
	if all-plain > 4 {
		t.Errorf("auth, retry and a rate limit add %v allocations per call, want at most 4", all-plain)
	}
}

// memoryEngine answers every request with a small JSON object, checking
// the bearer token when there is one.
type memoryEngine struct{}

func (memoryEngine) Do(req *http.Request) (*http.Response, error) {
	status := http.StatusOK
	if v := req.Header.Get("Authorization"); v != "" && v != "Bearer tok" {
		status = http.StatusUnauthorized
	}
	return &http.Response{
		StatusCode:    status,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          http.NoBody,
		ContentLength: 0,
		Request:       req,
	}, nil
}

// An attempt interceptor that writes into the auth header's value in place
// changes that attempt only: the retry and the next calls start again from
// the credential, however many calls run at once.
func TestStaticCredentialPerAttempt(t *testing.T) {
	var (
		mu    sync.Mutex
		seen  = map[string]int{}
		tried = map[string]bool{} // the calls that got their 503
	)
	engine := engineFunc(func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		seen[req.Header.Get("Authorization")]++
		status := http.StatusOK
		if id := req.URL.Query().Get("id"); !tried[id] {
			tried[id] = true
			status = http.StatusServiceUnavailable
		}
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	})
	sign := func(next Sender) Sender {
		return func(ctx context.Context, req *Request) (*Response, error) {
			req.Header["Authorization"][0] += " signed"
			return next(ctx, req)
		}
	}
	c, err := NewClient("https://api.example.com", WithEngine(engine), WithAuth(Bearer("tok")),
		WithRetry(RetryPolicy{BaseDelay: time.Nanosecond, MaxDelay: time.Nanosecond}), WithAttemptInterceptors(sign))
	if err != nil {
		t.Fatal(err)
	}
	d := Get[struct{ ID int }, *Response]("/x")
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if _, err := d.Call(t.Context(), c, struct{ ID int }{i}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(seen) != 1 || seen["Bearer tok signed"] != 32 {
		t.Errorf("the engine saw %v, want only %q", seen, "Bearer tok signed")
	}
}

type engineFunc func(*http.Request) (*http.Response, error)

func (f engineFunc) Do(req *http.Request) (*http.Response, error) { return f(req) }
