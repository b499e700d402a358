package kit_test

import (
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/kithttp/kit"
)

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
