package kitwebhook

import (
	"context"
	"net/http"
	"time"
)

// Observer receives a Handler's events, as kit.Observer receives a
// client's: metrics and tracing build on it (kitotel.Webhooks makes a
// server span per delivery). Both funcs are optional, called on the
// request's goroutine, and must be quick and safe for concurrent use.
type Observer struct {
	// DeliveryStart is called when a request reaches the Handler, before
	// anything is read. The context it returns (nil: ctx) is the
	// delivery's from then on: the registered function and DeliveryEnd get
	// it.
	DeliveryStart func(ctx context.Context, d DeliveryInfo) context.Context
	// DeliveryEnd is called once per DeliveryStart, when the answer is
	// written.
	DeliveryEnd func(ctx context.Context, r DeliveryResult)
}

// DeliveryInfo describes a request as it reaches a Handler.
type DeliveryInfo struct {
	// Scheme names the Handler's scheme ("Standard Webhooks", ...).
	Scheme string
	// Request is the incoming request; its body must not be read.
	Request *http.Request
	// Start is when it arrived.
	Start time.Time
}

// Outcome is what a Handler did with a delivery.
type Outcome string

// The outcomes of a delivery.
const (
	// Handled: the registered function returned nil (2xx).
	Handled Outcome = "handled"
	// Duplicate: the id was seen before; the function was not called (2xx).
	Duplicate Outcome = "duplicate"
	// Ignored: no function is registered for the event type (2xx).
	Ignored Outcome = "ignored"
	// Rejected: the delivery failed verification, was too large, not
	// POST, or its payload did not decode (4xx: senders do not retry).
	Rejected Outcome = "rejected"
	// Failed: the function failed, panicked or timed out, or the seen
	// store failed (5xx: senders retry).
	Failed Outcome = "failed"
)

// DeliveryResult describes a delivery when its answer is written.
type DeliveryResult struct {
	DeliveryInfo
	// ID and Event are the delivery's, as far as they were read.
	ID, Event string
	// Status is the HTTP status answered.
	Status int
	// Outcome is what the Handler did.
	Outcome Outcome
	// Err is why the delivery was rejected or failed; nil otherwise.
	Err error
	// Duration is the time from Start to the answer.
	Duration time.Duration
}
