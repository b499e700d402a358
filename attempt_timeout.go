package kit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrAttemptTimeout is matched (errors.Is) by the error of an attempt that
// [WithAttemptTimeout] cut short. Unlike a call's own timeout, it does not
// match context.DeadlineExceeded: the call goes on, and [Retryable] says
// yes to it, so the retry policy sends another attempt.
var ErrAttemptTimeout = errors.New("kit: attempt timed out")

// WithAttemptTimeout bounds each attempt of a call to d, a [RequestOption]:
// on a client every attempt of the client's calls, on a declaration those
// of that endpoint's (or that resource's operations') calls, on a call
// those of that one call; the nearest wins.
//
// An attempt is one send of the request: from the moment it leaves the
// retry and rate-limit layers (so waits before it do not count) until its
// response's status, headers and body have arrived, or, for a streamed
// result (an io.ReadCloser or a [Stream]), its status and headers only: a
// stream's silences are [WithIdleTimeout]'s to bound. An attempt cut short
// fails with an error matching [ErrAttemptTimeout], which [Retryable]
// retries under the call's [RetryPolicy] (for a write, only when it may be
// retried at all: see RetryPolicy's method rule). It lives inside the
// call's own [WithTimeout] and the caller's context: whichever ends first
// wins, and once the call's bound has passed nothing is retried. The
// refresh-and-resend after a 401 is an attempt of its own. d must be
// positive. Default: none.
func WithAttemptTimeout(d time.Duration) RequestOption {
	return requestOption[attemptTimeoutOption]{attemptTimeoutOption{d}}
}

// Private implementation past this point.

type attemptTimeoutOption struct{ d time.Duration }

func (o attemptTimeoutOption) applyRequest(c *requestConfig, _ level) error {
	if o.d <= 0 {
		return fmt.Errorf("WithAttemptTimeout(%v): must be positive", o.d)
	}
	c.attemptTimeout = o.d
	return nil
}

func (o attemptTimeoutOption) String() string {
	return fmt.Sprintf("kit.WithAttemptTimeout(%v)", o.d)
}

// errAttemptCause is the cause of an attempt's context that the attempt
// timeout ended.
var errAttemptCause = errors.New("attempt timeout")

// attemptTimeouts is the chain's attempt-timeout layer, under the retry,
// rate-limit and auth layers and over logging: it bounds each attempt by
// the request's WithAttemptTimeout, the client's when the request's
// settings have none. A request without one passes through untouched.
type attemptTimeouts struct {
	d       time.Duration // the client's WithAttemptTimeout; 0: none
	secrets *secrets
	next    Sender
}

func (l attemptTimeouts) wrap(next Sender) Sender {
	l.next = next
	return l.send
}

func (l *attemptTimeouts) send(ctx context.Context, req *Request) (*Response, error) {
	d := cmp.Or(req.policy.attemptTimeout, l.d)
	if d <= 0 {
		return l.next(ctx, req)
	}
	actx, cancel := context.WithCancelCause(ctx)
	w := &attemptWatch{cancel: cancel}
	w.start(w.fire)
	w.arm(d)
	resp, err := l.next(actx, req)
	w.disarm() // a timer firing now no longer cuts the attempt
	if err != nil {
		cancel(nil)
		if ctx.Err() == nil && errors.Is(context.Cause(actx), errAttemptCause) {
			return nil, errorf(l.secrets.opOf(req), "%w after %v (%v)", ErrAttemptTimeout, d, err)
		}
		return nil, err
	}
	if resp.stream != nil {
		// The attempt is over once the headers are in; the body's reads
		// keep the attempt's context until it is closed.
		resp.stream.onClose(func() { cancel(nil) })
		return resp, nil
	}
	cancel(nil)
	return resp, nil
}

// attemptWatch ends an attempt's context when its timer fires before the
// attempt is answered.
type attemptWatch struct {
	timerWatch
	cancel context.CancelCauseFunc
}

func (w *attemptWatch) fire() { w.expire(w.cut) }
func (w *attemptWatch) cut()  { w.cancel(errAttemptCause) }

// longCallSet reports whether c sets one of the per-attempt settings of
// this file's kind (WithAttemptTimeout, WithIdleTimeout, WithDump), which
// a call's own policy then carries.
func (c *callPolicy) longCallSet() bool {
	return c.attemptTimeout > 0 || c.idleTimeout > 0 || c.dump != nil
}

// setLongCall copies into c the per-attempt settings that set gives.
func (c *callPolicy) setLongCall(set *callPolicy) {
	if set.attemptTimeout > 0 {
		c.attemptTimeout = set.attemptTimeout
	}
	if set.idleTimeout > 0 {
		c.idleTimeout = set.idleTimeout
	}
	if set.dump != nil {
		c.dump = set.dump
	}
}
