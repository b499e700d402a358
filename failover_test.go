package kit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

// leaves sends an attempt on to the next base URL only when nothing of a
// response came: for any request when nothing was sent, for a request
// safe to resend when the connection was lost before a response.
func TestFailoverLeaves(t *testing.T) {
	get := &Request{Method: "GET", policy: defaultPolicy}
	post := &Request{Method: "POST", policy: defaultPolicy}
	keyed := &Request{Method: "POST", policy: defaultPolicy, keyed: true}
	wrap := func(err error) error { return errorf("GET /x", "%w", noResponse{err}) }
	dial := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	cases := []struct {
		name          string
		err           error
		get, post, ky bool
	}{
		{"dns", wrap(&net.DNSError{Err: "no such host", Name: "api.example", IsNotFound: true}), true, true, true},
		{"dial refused", wrap(dial), true, true, true},
		{"dial timeout", wrap(&net.OpError{Op: "dial", Net: "tcp", Err: context.DeadlineExceeded}), true, true, true},
		{"tls record", wrap(tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), true, true, true},
		{"tls unknown authority", wrap(&tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}), true, true, true},
		{"tls alert", wrap(tls.AlertError(40)), true, true, true},
		{"reset", wrap(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), true, false, true},
		{"eof", wrap(io.EOF), true, false, true},
		{"broken pipe", wrap(&net.OpError{Op: "write", Net: "tcp", Err: syscall.EPIPE}), true, false, true},
		{"circuit open", finalError{errorf("GET /x", "%w", &CircuitOpenError{Origin: "http://a:80"})}, true, true, true},
		{"status", &HTTPError{StatusCode: 503}, false, false, false},
		{"body cut", errorf("GET /x", "reading the 200 response body: %w", io.ErrUnexpectedEOF), false, false, false},
		{"timeout waiting", wrap(context.DeadlineExceeded), false, false, false},
		{"not the engine's", errors.New("an interceptor's"), false, false, false},
		{"dial, unmarked", fmt.Errorf("%w", dial), false, false, false},
	}
	f := &failoverSet{}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := f.leaves(ctx, get, tc.err); got != tc.get {
				t.Errorf("GET: %v", got)
			}
			if got := f.leaves(ctx, post, tc.err); got != tc.post {
				t.Errorf("POST: %v", got)
			}
			if got := f.leaves(ctx, keyed, tc.err); got != tc.ky {
				t.Errorf("keyed POST: %v", got)
			}
		})
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if f.leaves(done, get, wrap(dial)) {
		t.Error("a cancelled call failed over")
	}
}

// underPath matches whole segments.
func TestFailoverUnderPath(t *testing.T) {
	for _, tc := range []struct {
		p, base string
		want    bool
	}{
		{"/v1/users", "/v1", true},
		{"/v1", "/v1", true},
		{"/v10/users", "/v1", false},
		{"/users", "", true},
		{"/v2/users", "/v1", false},
	} {
		if got := underPath(tc.p, tc.base); got != tc.want {
			t.Errorf("underPath(%q, %q) = %v", tc.p, tc.base, got)
		}
	}
}
