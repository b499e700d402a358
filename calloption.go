package kit

import (
	"fmt"
	"net/http"
	"time"
)

// CallOption configures one call: an Endpoint's Call or Go, a Resource's or
// an AsyncResource's method, a PagedEndpoint's walk. Call options are the
// trailing variadic of every operation, visible at the call site:
//
//	u, err := getUser.Call(ctx, c, p, kit.WithHeader("X-Trace", id), kit.WithTimeout(2*time.Second))
//
// They apply to everything the operation sends: every attempt of a retried
// call, the resend after a 401, every page of a walk and every
// reconnection of a Stream. A call option wins over the endpoint's option
// of the same kind, which wins over the client's. The CallOptions are
// WithHeader, WithTimeout, WithRetry, NoRetry and IdempotencyKey; a nil
// CallOption is skipped. A bad one (an empty header key, a non-positive
// timeout) fails the call before anything is sent.
//
// A call with no options costs what it cost before call options existed;
// each option adds a few small allocations to its call.
type CallOption interface {
	applyCall(*callConfig) error
}

// IdempotencyKey sends key as this call's idempotency key: in the header of
// the WithIdempotencyKey in force for the call (the call's endpoint's, else
// the client's), or in "Idempotency-Key" when none is. It replaces the key
// kit would make, and, like it, is the same on every attempt and on the
// resend after a 401, and lets a POST or PATCH be retried under WithRetry
// (see WithIdempotencyKey). An empty key, or one with a control character,
// fails the call before anything is sent.
func IdempotencyKey(key string) CallOption { return idempotencyKeyOption{key} }

// Private implementation past this point.

// callConfig collects what the options of one call set.
type callConfig struct {
	header   http.Header   // WithHeader
	timeout  time.Duration // WithTimeout; 0: not set
	retry    *RetryPolicy  // WithRetry
	noRetry  bool          // NoRetry
	setRetry bool          // WithRetry or NoRetry was given
	key      string        // IdempotencyKey; "": not set
}

// callSettings is what a call's options make of the requests of one
// operation, resolved once per call against the operation's declaration
// and shared by every request the operation sends.
type callSettings struct {
	policy *callPolicy // the declaration's policy with the call's overrides; nil: the declaration's
	header http.Header // replaces these keys on every request
	key    string      // the caller's idempotency key; "": none
}

// settings resolves the options of one call of d; nil when opts set
// nothing (the call is sent as the declaration says).
func (d *endpointDecl) settings(opts []CallOption) (*callSettings, error) {
	if len(opts) == 0 {
		return nil, nil
	}
	var cfg callConfig
	set := false
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.applyCall(&cfg); err != nil {
			return nil, errorf(d.name, "%w", err)
		}
		set = true
	}
	if !set {
		return nil, nil
	}
	cs := &callSettings{header: cfg.header, key: cfg.key}
	if cfg.timeout > 0 || cfg.setRetry {
		p := d.callPolicy
		if cfg.timeout > 0 {
			p.timeout = cfg.timeout
		}
		if cfg.setRetry {
			p.retry, p.noRetry = cfg.retry, cfg.noRetry
		}
		cs.policy = &p
	}
	return cs, nil
}

// policyOf returns the policy of a request of d under the call's settings.
func (cs *callSettings) policyOf(d *endpointDecl) *callPolicy {
	if cs != nil && cs.policy != nil {
		return cs.policy
	}
	return &d.callPolicy
}

type idempotencyKeyOption struct{ key string }

func (o idempotencyKeyOption) applyCall(c *callConfig) error {
	if o.key == "" {
		return fmt.Errorf("IdempotencyKey: the key is empty")
	}
	if hasControl(o.key) {
		return fmt.Errorf("IdempotencyKey: the key has a control character")
	}
	c.key = o.key
	return nil
}

// String leaves the key out, as it may be derived from the caller's data.
func (o idempotencyKeyOption) String() string { return "kit.IdempotencyKey(...)" }

func (o headerOption) applyCall(c *callConfig) error {
	if o.key == "" {
		return fmt.Errorf("WithHeader with an empty key")
	}
	if hasControl(o.key) || hasControl(o.value) {
		return fmt.Errorf("WithHeader(%q, ...): a control character in the header", o.key)
	}
	if c.header == nil {
		c.header = make(http.Header, 1)
	}
	c.header.Add(o.key, o.value)
	return nil
}

func (o timeoutOption) applyCall(c *callConfig) error {
	if o.d <= 0 {
		return fmt.Errorf("WithTimeout(%v): must be positive", o.d)
	}
	c.timeout = o.d
	return nil
}

func (o retryOption) applyCall(c *callConfig) error {
	if err := checkRetryPolicy(o.p); err != nil {
		return fmt.Errorf("WithRetry: %w", err)
	}
	c.retry, c.noRetry, c.setRetry = o.p, false, true
	return nil
}

func (noRetryOption) applyCall(c *callConfig) error {
	c.retry, c.noRetry, c.setRetry = nil, true, true
	return nil
}
