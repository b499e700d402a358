package kit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"
)

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{" 7 ", 7 * time.Second, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"99999999999999999999", time.Duration(math.MaxInt64), true}, // overflows int64: as long as can be
		{"+5", 0, false}, // delay-seconds is digits only
		{"9999999999999", time.Duration(1<<63 - 1), true},
	} {
		h := http.Header{}
		if tc.v != "" {
			h.Set("Retry-After", tc.v)
		}
		got, ok := retryAfter(h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBackoffBounds(t *testing.T) {
	r := &retrier{baseDelay: 100 * time.Millisecond, maxDelay: time.Second}
	for n := 1; n < 200; n++ {
		bound := min(time.Second, 100*time.Millisecond<<min(n-1, 20))
		for range 20 {
			if d := r.backoff(n); d < 0 || d > bound {
				t.Fatalf("backoff(%d) = %v, want in [0, %v]", n, d, bound)
			}
		}
	}
}

func TestRetrierDefaults(t *testing.T) {
	st := &clientState{requestConfig: requestConfig{callPolicy: callPolicy{retry: newRetrier(&RetryPolicy{})}}}
	r := st.retry.inForce(&Request{Method: http.MethodGet, policy: defaultPolicy})
	if r == nil || r.maxAttempts != 4 || r.maxElapsed != 30*time.Second || r.baseDelay != 100*time.Millisecond ||
		r.maxDelay != 5*time.Second || r.maxRetryAfter != time.Minute || r.retryIf == nil {
		t.Fatalf("defaults = %+v", r)
	}
	for _, m := range []string{"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"} {
		req := &Request{Method: m, policy: defaultPolicy}
		if st.retry.inForce(req) == nil || refusalsOnly(req) {
			t.Errorf("%s not retried", m)
		}
	}
	for _, m := range []string{"POST", "PATCH", "PROPFIND"} {
		if req := (&Request{Method: m, policy: defaultPolicy}); st.retry.inForce(req) == nil || !refusalsOnly(req) {
			t.Errorf("%s retried without Idempotent beyond a 429", m)
		}
		if req := (&Request{Method: m, policy: &callPolicy{idempotent: true}}); st.retry.inForce(req) == nil || refusalsOnly(req) {
			t.Errorf("%s not retried with Idempotent", m)
		}
		if req := (&Request{Method: m, policy: defaultPolicy, keyed: true}); st.retry.inForce(req) == nil || refusalsOnly(req) {
			t.Errorf("%s not retried with an idempotency key", m)
		}
	}
	if st.retry.inForce(&Request{Method: "GET", policy: &callPolicy{noRetry: true}}) != nil {
		t.Error("NoRetry retried")
	}
	one := &clientState{requestConfig: requestConfig{callPolicy: callPolicy{retry: newRetrier(&RetryPolicy{MaxAttempts: 1})}}}
	if one.retry.inForce(&Request{Method: "GET", policy: defaultPolicy}) != nil {
		t.Error("MaxAttempts 1 retried")
	}
}

func TestRetryableError(t *testing.T) {
	ctx := context.Background()
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	opErr := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		ctx  context.Context
		err  error
		want bool
	}{
		{ctx, &url.Error{Op: "Get", URL: "http://h", Err: opErr}, true},
		{ctx, fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), true},
		{ctx, syscall.ECONNRESET, true},
		{cancelled, opErr, false},
		{ctx, context.DeadlineExceeded, false},
		{ctx, fmt.Errorf("x: %w", ErrBodyTooLarge), false},
		{ctx, &url.Error{Op: "Get", URL: "ftp://h", Err: errors.New("unsupported protocol scheme")}, false},
		{ctx, &url.Error{Op: "Get", URL: "https://h", Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, false},
		{ctx, &net.DNSError{Err: "no such host", Name: "h", IsNotFound: true}, false},
		{ctx, &net.DNSError{Err: "timeout", Name: "h", IsTimeout: true}, true},
		{ctx, errors.New("something else"), false},
	} {
		if got := retryableError(tc.ctx, tc.err); got != tc.want {
			t.Errorf("retryableError(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
