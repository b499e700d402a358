package kit

import (
	"context"
	"fmt"
	"time"
)

// WithTimeout bounds every call to d, on top of the caller's context (the
// earlier deadline wins), a [RequestOption]: on a client it bounds each call
// of the client, on a declaration each call of that endpoint or of that
// resource's operations (over the client's), and on a call that one call
// (over both). It covers the whole call: rate-limit waits, every attempt of
// a retried call, the waits between them, and reading the response body
// (for a streamed result, an io.ReadCloser or a [Stream], until it is
// closed; for a Stream, its reconnections too). A walk's pages each get d,
// as each page is a call of its own. A call cut short by it fails with an
// error matching context.DeadlineExceeded, and is not retried. d must be
// positive (NewClient, the declaration or the call fails otherwise).
// Default: no timeout.
func WithTimeout(d time.Duration) RequestOption {
	return requestOption[timeoutOption]{timeoutOption{d}}
}

// Private implementation past this point.

// timeoutOption is WithTimeout's setting.
type timeoutOption struct{ d time.Duration }

func (o timeoutOption) applyRequest(c *requestConfig, _ level) error {
	if o.d <= 0 {
		return fmt.Errorf("WithTimeout(%v): must be positive", o.d)
	}
	c.timeout = o.d
	return nil
}
func (o timeoutOption) String() string { return fmt.Sprintf("kit.WithTimeout(%v)", o.d) }

// withTimeout returns the policy of a request of d with the client's
// WithTimeout, for a declaration that sets none and a call without
// options (a call's settings take it in settingsOf). The declaration's
// policy is copied once per client (see clientTimeout).
func (rb *requestBuilder) withTimeout(d *endpointDecl) *callPolicy {
	if ct := d.clientTimeout.Load(); ct != nil && ct.rb == rb {
		return &ct.policy
	}
	ct := &clientTimeout{rb: rb, policy: d.callPolicy}
	ct.policy.timeout = rb.timeout
	d.clientTimeout.Store(ct)
	return &ct.policy
}

// clientTimeout is a declaration's policy with the WithTimeout of the
// client whose builder rb is: a declaration keeps the last one it was
// called with, so that the calls of one client build it once.
type clientTimeout struct {
	rb     *requestBuilder
	policy callPolicy
}

// timeoutLayer is the chain's timeout layer: it bounds the rest of the
// call, every attempt and wait included, by the endpoint's WithTimeout.
func timeoutLayer(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		d := req.policy.timeout
		if d <= 0 {
			return next(ctx, req)
		}
		ctx, cancel := context.WithTimeout(ctx, d)
		held := false
		defer func() {
			if !held {
				cancel()
			}
		}()
		resp, err := next(ctx, req)
		if resp != nil && resp.stream != nil {
			// The caller reads the body with this context: the timeout
			// covers the reading, and ends when the body is closed.
			held = true
			resp.stream.onClose(cancel)
		}
		return resp, err
	}
}
