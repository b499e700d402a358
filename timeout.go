package kit

import (
	"context"
	"fmt"
	"time"
)

// WithTimeout bounds every call of the endpoint to d, on top of the
// caller's context (the earlier deadline wins). It covers the whole call:
// rate-limit waits, every attempt of a retried call, the waits between
// them, and reading the response body (for a streamed result, an
// io.ReadCloser or a [Stream], until it is closed; for a Stream, its
// reconnections too). A call cut short by it fails with an
// error matching context.DeadlineExceeded, and is not retried. d must be
// positive (the declaration fails otherwise). Default: no timeout of the
// endpoint's own.
//
// As a CallOption it bounds that one call the same way, in place of the
// endpoint's WithTimeout: a walk's pages each get d, as each page is a call
// of its own, and a Stream's reading and reconnections are covered.
func WithTimeout(d time.Duration) EndpointCallOption {
	return timeoutOption{d}
}

// Private implementation past this point.

// timeoutOption is WithTimeout.
type timeoutOption struct{ d time.Duration }

func (o timeoutOption) applyEndpoint(c *endpointConfig) {
	if o.d <= 0 {
		c.problem = fmt.Sprintf("WithTimeout(%v): must be positive", o.d)
		return
	}
	c.timeout = o.d
}
func (o timeoutOption) String() string { return fmt.Sprintf("kit.WithTimeout(%v)", o.d) }

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
