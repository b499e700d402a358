package kit

import (
	"container/list"
	"context"
	"fmt"
	"sync"
)

// DefaultMaxInFlight is how many requests an [AsyncClient] has in flight at
// once when [Limits].MaxInFlight is not given.
const DefaultMaxInFlight = 64

// WithMaxInFlight bounds how many requests of an [AsyncClient] are in flight
// at once: endpoint calls started with Go, resource operations, and the
// pages of walks (prefetched ones included). A request is in flight from
// when it is handed to the engine until its response body has been read
// (for a streamed body, an io.ReadCloser or a [Stream], until it is closed, so n
// bounds the open connections);
// the others wait, first come first served, until their context ends.
// Retries and the resend after a 401 take a slot again for each attempt,
// and give it back while they wait. n must be positive ([NewAsyncClient]
// fails otherwise); a very large n costs nothing until that many requests
// wait. The default engine opens at most 1,024 connections per host:
// beyond that many HTTP/1.1 requests to one host, the others wait for a
// connection too. Default: [DefaultMaxInFlight]. A [Client] ignores it.
//
// Deprecated: use [WithLimits] with [Limits].MaxInFlight, which has the
// same meaning.
func WithMaxInFlight(n int) Option { return maxFlightOption{n} }

// Private implementation past this point.

// maxFlightOption is WithMaxInFlight.
type maxFlightOption struct{ n int }

func (o maxFlightOption) applyClient(c *clientConfig) error {
	if o.n <= 0 {
		return fmt.Errorf("kit: WithMaxInFlight(%d): must be positive", o.n)
	}
	c.maxFlight = o.n
	return nil
}
func (o maxFlightOption) String() string { return fmt.Sprintf("kit.WithMaxInFlight(%d)", o.n) }

// inflightLayer is the async chain's in-flight limit: each attempt holds a
// slot while the transport sends it and reads its body; a streamed body
// holds it until the body is closed.
func (l *limitLayers) inflightLayer(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		if err := l.slots.acquire(ctx); err != nil {
			return nil, errorf(l.secrets.opOf(req), "waiting for one of %d request slots: %w", l.slots.max, err)
		}
		held := false
		defer func() {
			if !held {
				l.slots.release()
			}
		}()
		resp, err := next(ctx, req)
		if resp != nil && resp.stream != nil {
			held = true
			resp.stream.onClose(l.slots.release)
		}
		return resp, err
	}
}

// semaphore bounds how many holders there are at once; waiters are served
// in order. Its memory follows the number of waiters, never max.
type semaphore struct {
	max     int
	mu      sync.Mutex
	held    int
	waiters list.List // of chan struct{}, closed when the slot is granted
}

func newSemaphore(max int) *semaphore {
	if max <= 0 {
		max = DefaultMaxInFlight
	}
	return &semaphore{max: max}
}

// acquire takes a slot, waiting until one is free or ctx ends. A ctx that
// has already ended never takes one.
func (s *semaphore) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.held < s.max && s.waiters.Len() == 0 {
		s.held++
		s.mu.Unlock()
		return nil
	}
	ready := make(chan struct{})
	elem := s.waiters.PushBack(ready)
	s.mu.Unlock()
	select {
	case <-ready:
		if err := ctx.Err(); err != nil {
			// Granted as ctx ended: give the slot on, and do not send.
			s.release()
			return err
		}
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		select {
		case <-ready:
			// Granted meanwhile: give it on.
			s.mu.Unlock()
			s.release()
		default:
			s.waiters.Remove(elem)
			s.mu.Unlock()
		}
		return ctx.Err()
	}
}

// release gives a slot back, to the first waiter if there is one.
func (s *semaphore) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if front := s.waiters.Front(); front != nil {
		s.waiters.Remove(front)
		close(front.Value.(chan struct{}))
		return // the slot passes to the waiter: held stays the same
	}
	s.held--
}
