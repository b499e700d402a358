package kitwebhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sync"
	"time"
)

// Handler receives a sender's webhooks: an http.Handler that verifies each
// delivery with its Scheme, drops the ones it has already taken (its
// SeenStore), decodes the payload into the type registered for the
// delivery's event with [Handle], and calls the function registered with
// it. Mount it on any router, for instance net/http's ServeMux:
//
//	mux.Handle("POST /webhooks/stripe", h)
//
// It answers as senders expect:
//
//   - 204 when the function returned nil, 200 for a duplicate and for an
//     event no function is registered for (acknowledged, so not resent);
//   - 405 for another method than POST, 413 for a body over the limit,
//     401 for a missing or wrong signature or a timestamp outside the
//     tolerance, 400 for a malformed signature header or a payload that is
//     not the registered type's JSON: a sender does not retry these;
//   - 500 when the function returned an error or panicked, and 503 when it
//     ran out of time (WithTimeout) or the seen store failed: the sender
//     retries, and the id is released so that the retry is handled.
//
// The body of an answer is one line of plain text saying which check
// failed; it never holds a secret or the expected signature.
//
// A Handler is safe for concurrent use, [Handle] included.
type Handler struct {
	scheme Scheme
	cfg    config
	name   string

	mu     sync.RWMutex
	routes map[string]func(context.Context, *envelope) error
}

// envelope is what a route's function gets: the verified delivery before
// its payload is decoded.
type envelope struct {
	id, event string
	time      time.Time
	header    http.Header
	body      []byte
}

// NewHandler returns a Handler for deliveries signed with s. Register the
// functions that handle them with [Handle]. It fails on a nil scheme or a
// bad option.
func NewHandler(s Scheme, opts ...Option) (*Handler, error) {
	if s == nil {
		return nil, errors.New("kitwebhook: NewHandler: nil Scheme")
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if !c.storeGiven {
		c.store = NewMemorySeenStore(0)
	}
	return &Handler{scheme: s, cfg: c, name: s.String(), routes: make(map[string]func(context.Context, *envelope) error)}, nil
}

// Handle registers fn for the deliveries of h whose event type is event,
// their payload decoded into T. The event "" registers fn for every event
// that has no function of its own (and for deliveries without an event
// type). Registering an event twice replaces its function. Handle panics
// on a nil h or fn, as http.Handle does on a nil handler.
func Handle[T any](h *Handler, event string, fn func(ctx context.Context, d *Delivery[T]) error) {
	if h == nil || fn == nil {
		panic("kitwebhook: Handle: nil Handler or function")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.routes[event] = func(ctx context.Context, e *envelope) error {
		d := &Delivery[T]{ID: e.id, Event: e.event, Time: e.time, Header: e.header, Body: e.body}
		if err := decodePayload(e.body, &d.Payload); err != nil {
			return err
		}
		return fn(ctx, d)
	}
}

func (h *Handler) route(event string) func(context.Context, *envelope) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if f, ok := h.routes[event]; ok {
		return f
	}
	return h.routes[""]
}

// ServeHTTP verifies, deduplicates, decodes and handles one delivery.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	ctx := r.Context()
	info := DeliveryInfo{Scheme: h.name, Request: r, Start: start}
	for _, o := range h.cfg.observers {
		if o.DeliveryStart != nil {
			if c := o.DeliveryStart(ctx, info); c != nil {
				ctx = c
			}
		}
	}
	res := h.serve(ctx, r)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if res.Status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	w.WriteHeader(res.Status)
	if res.Status != http.StatusNoContent {
		fmt.Fprintln(w, res.text)
	}
	if len(h.cfg.observers) > 0 {
		dr := DeliveryResult{DeliveryInfo: info, ID: res.id, Event: res.event, Status: res.Status, Outcome: res.outcome, Err: res.err, Duration: time.Since(start)}
		for _, o := range h.cfg.observers {
			if o.DeliveryEnd != nil {
				o.DeliveryEnd(ctx, dr)
			}
		}
	}
}

type answer struct {
	Status    int
	outcome   Outcome
	err       error
	text      string
	id, event string
}

func (h *Handler) serve(ctx context.Context, r *http.Request) (a answer) {
	if r.Method != http.MethodPost {
		return answer{Status: http.StatusMethodNotAllowed, outcome: Rejected, err: fmt.Errorf("kitwebhook: method %s: want POST", r.Method), text: "method not allowed: want POST"}
	}
	body, err := readBody(r, h.cfg.maxBody)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return answer{Status: http.StatusRequestEntityTooLarge, outcome: Rejected, err: err, text: "body too large"}
		}
		return answer{Status: http.StatusBadRequest, outcome: Rejected, err: err, text: "the body could not be read"}
	}
	m, err := h.scheme.Verify(r.Header, body, h.cfg.now(), h.cfg.tolerance)
	if err != nil {
		status := http.StatusUnauthorized
		if errors.Is(err, ErrMalformed) {
			status = http.StatusBadRequest
		}
		return answer{Status: status, outcome: Rejected, err: err, text: err.Error()}
	}
	e := &envelope{id: m.ID, time: m.Time, header: r.Header, body: body}
	if e.event, e.id, err = h.cfg.fields(r.Header, body, m.ID); err != nil {
		return answer{Status: http.StatusBadRequest, outcome: Rejected, err: err, text: "the payload is not JSON"}
	}
	a.id, a.event = e.id, e.event
	fn := h.route(e.event)
	if fn == nil {
		a.Status, a.outcome, a.text = http.StatusOK, Ignored, "no handler for this event; acknowledged"
		return a
	}
	store := h.cfg.store
	key := h.name + "\x00" + e.id
	if store != nil && e.id != "" {
		ok, err := store.Claim(ctx, key, h.cfg.seenTTL)
		if err != nil {
			a.Status, a.outcome, a.err, a.text = http.StatusServiceUnavailable, Failed, fmt.Errorf("kitwebhook: claiming delivery %q: %w", e.id, err), "try again later"
			return a
		}
		if !ok {
			a.Status, a.outcome, a.text = http.StatusOK, Duplicate, "duplicate delivery; acknowledged"
			return a
		}
	}
	err = h.call(ctx, fn, e)
	if err == nil {
		a.Status, a.outcome = http.StatusNoContent, Handled
		return a
	}
	if store != nil && e.id != "" {
		// Let the sender's retry be handled; a failure here only means
		// the retry is taken for a duplicate until the id expires.
		if rerr := store.Release(context.WithoutCancel(ctx), key); rerr != nil {
			err = errors.Join(err, fmt.Errorf("kitwebhook: releasing delivery %q: %w", e.id, rerr))
		}
	}
	a.err = err
	var pe *PayloadError
	switch {
	case errors.As(err, &pe):
		a.Status, a.outcome, a.text = http.StatusBadRequest, Rejected, "the payload does not decode into the registered type"
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
		a.Status, a.outcome, a.text = http.StatusServiceUnavailable, Failed, "the handler ran out of time; try again"
	default:
		a.Status, a.outcome, a.text = http.StatusInternalServerError, Failed, "the handler failed; try again"
	}
	return a
}

// call runs fn with the handler's time limit, turning a panic into an
// error (the delivery fails with 500 and the server goes on).
func (h *Handler) call(ctx context.Context, fn func(context.Context, *envelope) error, e *envelope) (err error) {
	if h.cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.cfg.timeout)
		defer cancel()
	}
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return fn(ctx, e)
}

// PanicError is a registered function's panic, recovered by the Handler
// (the delivery is answered 500).
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("kitwebhook: the handler panicked: %v", e.Value)
}
