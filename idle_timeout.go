package kit

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrIdleTimeout is matched (errors.Is) by the error of a streamed body
// that [WithIdleTimeout] ended: no byte arrived for the idle timeout.
// [Retryable] says yes to it.
var ErrIdleTimeout = errors.New("kit: no bytes for the idle timeout")

// WithIdleTimeout ends a streamed response whose body sends no byte for d,
// a [RequestOption] (client, declaration, call; the nearest wins). It
// applies to the streamed results: a [Stream] and an io.ReadCloser (a
// download). The clock runs while a read waits for the server, from each
// read's start: time the caller spends between reads (handling a record)
// does not count. Once it passes, the connection is closed and the read
// fails with an error matching [ErrIdleTimeout]:
//
//   - a Stream of server-sent events whose events carried ids resumes with
//     Last-Event-ID, as after any drop, when the endpoint may be retried
//     (see Stream: a [WithRetry] policy applies and the method is
//     idempotent or declared [Idempotent]); the drops in a row without a
//     new event count against the policy's MaxAttempts;
//   - a download resumes, under the same conditions, when its first
//     response (a 200, not content-decoded) said the server can send the
//     rest: Accept-Ranges: bytes, and a strong ETag (or, without one, a
//     Last-Modified a second or more before its Date).
//     The same reader goes on with the answer to a copy of the request
//     sent with Range: bytes=N- (N, the bytes read) and If-Range, through
//     the client's whole chain: a 206 whose Content-Range starts at N (and
//     has the first response's length) is read on; anything else (a 200:
//     the resource changed) ends the read with an error matching
//     [ErrDownloadChanged], and none of its bytes are read. A dropped
//     connection or a body shorter than the complete length resumes the
//     same way; the resumes in a row without a new byte count against
//     MaxAttempts, and the call's WithTimeout and context bound them all;
//   - any other Stream (NDJSON, JSON sequences and arrays, events without
//     ids), and a download that cannot resume, yield the error.
//
// The wait for the response's status and headers is not idle time: bound
// it with [WithAttemptTimeout]. Buffered results are read whole by the
// attempt, which WithAttemptTimeout bounds too. d must be positive.
// Default: none.
func WithIdleTimeout(d time.Duration) RequestOption {
	return requestOption[idleTimeoutOption]{idleTimeoutOption{d}}
}

// Private implementation past this point.

type idleTimeoutOption struct{ d time.Duration }

func (o idleTimeoutOption) applyRequest(c *requestConfig, _ level) error {
	if o.d <= 0 {
		return fmt.Errorf("WithIdleTimeout(%v): must be positive", o.d)
	}
	c.idleTimeout = o.d
	return nil
}

func (o idleTimeoutOption) String() string { return fmt.Sprintf("kit.WithIdleTimeout(%v)", o.d) }

// idleWatch closes a streamed body whose read waited d without a byte. A
// streamBody has one when an idle timeout applies to its request; nil
// otherwise. Its reads are the caller's, one at a time.
type idleWatch struct {
	timerWatch
	d     time.Duration
	body  io.Closer
	fired bool // the body was closed; by the reader only
}

// newIdleWatch returns the watch of body, or nil when d is not positive.
func newIdleWatch(d time.Duration, body io.Closer) *idleWatch {
	if d <= 0 {
		return nil
	}
	w := &idleWatch{d: d, body: body}
	w.start(w.fire)
	return w
}

func (w *idleWatch) fire()      { w.expire(w.closeBody) }
func (w *idleWatch) closeBody() { w.body.Close() }

// read reads r with the clock running.
func (w *idleWatch) read(r io.Reader, p []byte) (int, error) {
	if w.fired {
		return 0, w.err()
	}
	w.arm(w.d)
	n, err := r.Read(p)
	w.fired = w.disarm()
	if err != nil && err != io.EOF && w.fired {
		err = w.err()
	}
	return n, err
}

// stop stops the clock for good, when the body is closed.
func (w *idleWatch) stop() { w.disarm() }

func (w *idleWatch) err() error {
	return fmt.Errorf("%w: no byte for %v", ErrIdleTimeout, w.d)
}
