package kit

import (
	"fmt"
	"net/http"
	"time"

	"github.com/kithttp/kit/internal/httpsyntax"
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

// ClientEndpointCallOption is an option that configures a client (as an
// [Option]), one endpoint declaration (as an [EndpointOption]) or one call
// (as a [CallOption]), the call's setting winning over the endpoint's, and
// the endpoint's over the client's: [WithHeader] and [WithRetry] return
// one. Any value of it is also a [ClientEndpointOption].
type ClientEndpointCallOption interface {
	Option
	EndpointOption
	CallOption
}

// EndpointCallOption is an option that configures one endpoint declaration
// (as an [EndpointOption]) or one call (as a [CallOption]), the call's
// setting winning: [WithTimeout] and [NoRetry] return one.
type EndpointCallOption interface {
	EndpointOption
	CallOption
}

// IdempotencyKey sends key as this call's idempotency key: in the header of
// the WithIdempotencyKey in force for the call (the call's endpoint's, else
// the client's), or in "Idempotency-Key" when none is. It replaces the key
// kit would make, and, like it, is the same on every attempt and on the
// resend after a 401, and lets a POST or PATCH be retried under WithRetry
// (see WithIdempotencyKey). An empty key, or one with a control character,
// fails the call before anything is sent, as does IdempotencyKey given to
// a walk (Iterate, Pages, All), whose pages are requests of their own.
func IdempotencyKey(key string) CallOption { return idempotencyKeyOption{key} }

// Private implementation past this point.

// callConfig collects what the options of one call set.
type callConfig struct {
	header   []headerOption // WithHeader, keys canonical, in order
	timeout  time.Duration  // WithTimeout; 0: not set
	retry    *retrier       // WithRetry
	noRetry  bool           // NoRetry
	setRetry bool           // WithRetry or NoRetry was given
	key      string         // IdempotencyKey; "": not set
}

// callSettings is what a call's options make of the requests of one
// operation, resolved once per call against the operation's declaration
// and shared by every request the operation sends. One allocation holds it
// all, the policy and the first headers included.
type callSettings struct {
	callConfig
	inline    [2]headerOption // the first headers' storage
	policy    callPolicy      // the declaration's policy with the call's overrides
	ownPolicy bool            // policy is set; else the declaration's applies
}

// settings resolves the options of one call of d; nil when opts set
// nothing (the call is sent as the declaration says).
func (d *endpointDecl) settings(opts []CallOption) (*callSettings, error) {
	if len(opts) == 0 {
		return nil, nil
	}
	var cs *callSettings
	for _, o := range opts {
		if o == nil {
			continue
		}
		if cs == nil {
			cs = &callSettings{}
			cs.header = cs.inline[:0]
		}
		if err := o.applyCall(&cs.callConfig); err != nil {
			return nil, errorf(d.name, "%w", err)
		}
	}
	if cs == nil {
		return nil, nil
	}
	if cs.timeout > 0 || cs.setRetry {
		cs.policy, cs.ownPolicy = d.callPolicy, true
		if cs.timeout > 0 {
			cs.policy.timeout = cs.timeout
		}
		if cs.setRetry {
			cs.policy.retry, cs.policy.noRetry = cs.retry, cs.noRetry
		}
	}
	return cs, nil
}

// walkSettings is settings for the options of a walk: an idempotency key
// names one request, so a walk, which sends one request a page, refuses it.
func (d *endpointDecl) walkSettings(opts []CallOption) (*callSettings, error) {
	cs, err := d.settings(opts)
	if err == nil && cs != nil && cs.key != "" {
		return nil, errorf(d.name, "IdempotencyKey names one request, and a walk sends one request a page (WithIdempotencyKey gives each page's write a key of its own)")
	}
	return cs, err
}

// policyOf returns the policy of a request of d under the call's settings.
func (cs *callSettings) policyOf(d *endpointDecl) *callPolicy {
	if cs != nil && cs.ownPolicy {
		return &cs.policy
	}
	return &d.callPolicy
}

// headerCount is the number of headers the call sets (with repeats).
func (cs *callSettings) headerCount() int {
	if cs == nil {
		return 0
	}
	return len(cs.header)
}

// setHeaders puts the call's headers in h, replacing the values that the
// client, the endpoint and the call's parameters set for those keys.
func (cs *callSettings) setHeaders(h http.Header) {
	for i, o := range cs.header {
		first := true
		for _, prev := range cs.header[:i] {
			if prev.key == o.key {
				first = false
				break
			}
		}
		if first {
			h[o.key] = []string{o.value}
		} else {
			h[o.key] = append(h[o.key], o.value)
		}
	}
}

type idempotencyKeyOption struct{ key string }

func (o idempotencyKeyOption) applyCall(c *callConfig) error {
	if o.key == "" {
		return fmt.Errorf("IdempotencyKey(...): empty key")
	}
	if httpsyntax.HasControl(o.key) {
		return fmt.Errorf("IdempotencyKey(...): a control character in the key")
	}
	c.key = o.key
	return nil
}

// String leaves the key out, as it may be derived from the caller's data.
func (o idempotencyKeyOption) String() string { return "kit.IdempotencyKey(...)" }

func (o headerOption) applyCall(c *callConfig) error {
	if o.key == "" {
		return fmt.Errorf("%s: empty key", o.call())
	}
	if !httpsyntax.IsToken(o.key) || httpsyntax.HasControl(o.value) {
		return fmt.Errorf("%s: not a header name, or a control character in the value", o.call())
	}
	c.header = append(c.header, headerOption{http.CanonicalHeaderKey(o.key), o.value})
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
		return fmt.Errorf("%s: %w", o.call(), err)
	}
	c.retry, c.noRetry, c.setRetry = o.plan, false, true
	return nil
}

func (noRetryOption) applyCall(c *callConfig) error {
	c.retry, c.noRetry, c.setRetry = nil, true, true
	return nil
}
