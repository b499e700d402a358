package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// WithHedging sends hedged requests, for tail latency: when an attempt has
// had no response after delay, another identical attempt goes out while
// the first is still waiting, up to hedges more, one per delay. The first
// response wins (any 2xx, or an error status other than 5xx and 429); the
// other attempts are cancelled and their bodies closed before the call
// returns. When an attempt fails without a response (or with a 5xx or
// 429), the others go on; the call fails with the last failure when none
// is left, and the retry policy (WithRetry) then decides as for one
// attempt.
//
// Only requests that are safe to send twice are hedged: GET, HEAD, PUT,
// DELETE (and OPTIONS, TRACE), an endpoint declared [Idempotent], and a
// write carrying an idempotency key ([WithIdempotencyHeader],
// [IdempotencyKey]). Any other write is sent once, as without the option.
// Each hedge is an attempt of its own below the retry layer: it takes a
// token of the rate limit, goes through the circuit breaker (a cancelled
// loser counts as neither success nor failure), gets its own credentials
// and reads its own copy of the body (a body that cannot be re-read is
// never sent twice: kit's bodies all can). [Observer].Hedge sees each
// hedge sent.
//
// It is a [RequestOption]: on a client, a declaration or a call, the
// nearest winning; WithHedging(d, 0) turns hedging off where a farther
// level turned it on. delay must be positive and hedges from 0 to 10.
// Cost when a hedge is sent: a goroutine, a context and a request copy per
// attempt; when none is sent (the answer came within delay), a goroutine,
// a context and a timer.
func WithHedging(delay time.Duration, hedges int) RequestOption {
	return requestOption[hedgeSetting]{hedgeSetting{delay: delay, hedges: hedges, given: true}}
}

// HedgeInfo describes a hedge, for [Observer].Hedge.
type HedgeInfo struct {
	Request *Request      // the first attempt's request
	Hedge   int           // 1 for the first hedge, 2 for the second, ...
	After   time.Duration // how long the call had waited
}

// Private implementation past this point.

// maxHedges bounds WithHedging's hedges: more only multiply the load.
const maxHedges = 10

// hedgeSetting is WithHedging's setting.
type hedgeSetting struct {
	delay  time.Duration
	hedges int
	given  bool
}

func (h hedgeSetting) set() bool { return h.given }

func (h hedgeSetting) applyRequest(c *requestConfig, _ level) error {
	if h.delay <= 0 || h.hedges < 0 || h.hedges > maxHedges {
		return fmt.Errorf("%s: the delay must be positive and hedges from 0 to %d", h.call(), maxHedges)
	}
	c.hedge = h
	return nil
}

func (h hedgeSetting) call() string { return fmt.Sprintf("WithHedging(%v, %d)", h.delay, h.hedges) }

func (h hedgeSetting) String() string { return "kit." + h.call() }

// hedgeable reports whether req may be sent twice at once.
func hedgeable(req *Request) bool {
	return idempotentMethod(req.Method) || req.policy.idempotent || req.keyed
}

// hedgeLayer is the chain's hedging layer, under the retry layer: one
// retry attempt is one hedged exchange.
type hedgeLayer struct {
	set     hedgeSetting                     // the client's WithHedging; zero: none
	onHedge func(context.Context, HedgeInfo) // Observer.Hedge; nil: none
}

func (l *hedgeLayer) wrap(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		h := req.policy.hedge
		if !h.given {
			h = l.set
		}
		if h.hedges <= 0 || !hedgeable(req) {
			return next(ctx, req)
		}
		return l.hedged(ctx, req, h, next)
	}
}

// hedgeResult is what one attempt of a hedged exchange got.
type hedgeResult struct {
	i    int
	resp *Response
	err  error
}

// decisive reports whether the attempt's answer ends the exchange.
func (r hedgeResult) decisive() bool {
	if r.err == nil {
		return true
	}
	var he *HTTPError
	return errors.As(r.err, &he) && he.StatusCode < 500 && he.StatusCode != http.StatusTooManyRequests
}

// hedged sends req, and a hedge after each delay without an answer, and
// returns the first decisive answer, once the other attempts have ended
// and their bodies are closed.
func (l *hedgeLayer) hedged(ctx context.Context, req *Request, h hedgeSetting, next Sender) (*Response, error) {
	results := make(chan hedgeResult, h.hedges+1)
	cancels := make([]context.CancelFunc, 0, h.hedges+1)
	start := time.Now()
	launch := func() {
		i := len(cancels)
		actx, cancel := context.WithCancel(ctx)
		cancels = append(cancels, cancel)
		a := req
		if i > 0 {
			// Its own copy: the layers below change an attempt's copy
			// in place (the auth layer's header, its refresh state).
			a = req.attemptCopy(nil)
			a.attempt = req.attempt
			if l.onHedge != nil {
				l.onHedge(ctx, HedgeInfo{Request: req, Hedge: i, After: time.Since(start)})
			}
		}
		go func() {
			resp, err := next(actx, a)
			results <- hedgeResult{i, resp, err}
		}()
	}
	launch()
	timer := time.NewTimer(h.delay)
	defer timer.Stop()
	pending := 1
	var win *hedgeResult
	var last hedgeResult
	for win == nil && pending > 0 {
		select {
		case r := <-results:
			pending--
			if r.decisive() {
				win = &r
				break
			}
			last = r
		case <-timer.C:
			if len(cancels) <= h.hedges {
				launch()
				pending++
				timer.Reset(h.delay)
			}
		}
	}
	if win == nil {
		win = &last
	}
	// The others are cancelled; their answers are awaited, so that
	// nothing of theirs outlives the call, and a streamed one closed.
	for i, cancel := range cancels {
		if i != win.i {
			cancel()
		}
	}
	for ; pending > 0; pending-- {
		if r := <-results; r.resp != nil && r.resp.stream != nil {
			r.resp.stream.Close()
		}
	}
	if win.resp != nil && win.resp.stream != nil {
		// The winner's body is read with its context: it ends when the
		// body is closed.
		win.resp.stream.onClose(cancels[win.i])
	} else {
		cancels[win.i]()
	}
	return win.resp, win.err
}
