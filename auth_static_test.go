package kit

import (
	"context"
	"net/http"
	"net/url"
	"reflect"
	"sync"
	"testing"
	"time"
)

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
