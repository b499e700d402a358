package kit

import (
	"net/http"

	"github.com/kithttp/kit/internal/jsonpath"
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
// of the same kind, which wins over the client's. Every [RequestOption]
// is a CallOption, and so is [IdempotencyKey]; a nil
// CallOption is skipped. A bad one (an empty header key, a non-positive
// timeout, an option that has no meaning for the call) fails the call
// before anything is sent.
//
// A call with no options costs what it cost before call options existed;
// each option adds a few small allocations to its call.
type CallOption interface {
	applyCall(*callConfig) error
}

// ClientEndpointCallOption is the name v0.3.0 gave the options that worked
// on a client, a declaration and a call.
//
// Deprecated: use [RequestOption], of which this is another name.
type ClientEndpointCallOption = RequestOption

// EndpointCallOption is the name v0.3.0 gave the options that worked on a
// declaration and a call; they now work on a client too.
//
// Deprecated: use [RequestOption], of which this is another name.
type EndpointCallOption = RequestOption

// Private implementation past this point.

// callConfig collects what the options of one call set.
type callConfig struct {
	requestConfig
	key string // IdempotencyKey; "": not set
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

// settings resolves the options of one call of d that is not a walk; nil
// when opts set nothing (the call is sent as the declaration says).
func (d *endpointDecl) settings(st *clientState, opts []CallOption) (*callSettings, error) {
	cs, err := d.settingsOf(st, opts)
	if err == nil && cs != nil && cs.pagingOption != "" {
		return nil, errorf(d.name, "%s applies to a walk (Iterate, Pages, All and their Go forms), not to one request", cs.pagingOption)
	}
	return cs, err
}

// settingsOf resolves the options of one call of d through the client st.
func (d *endpointDecl) settingsOf(st *clientState, opts []CallOption) (*callSettings, error) {
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
			cs.callHeader = cs.inline[:0]
		}
		if err := o.applyCall(&cs.callConfig); err != nil {
			return nil, errorf(d.name, "%w", err)
		}
	}
	if cs == nil {
		return nil, nil
	}
	if set := cs.callPolicy; set.timeout > 0 || cs.setRetry || set.maxBody > 0 || set.errorModel != nil || set.bodyCheck != nil || set.longCallSet() || set.compress.enc != "" || set.hedge.set() {
		cs.policy, cs.ownPolicy = d.callPolicy, true
		cs.policy.setLongCall(&set)
		if set.timeout > 0 {
			cs.policy.timeout = set.timeout
		}
		if cs.setRetry {
			cs.policy.retry, cs.policy.noRetry = set.retry, set.noRetry
		}
		if set.maxBody > 0 {
			cs.policy.maxBody = set.maxBody
		}
		if set.errorModel != nil {
			cs.policy.errorModel = set.errorModel.over(d.callPolicy.errorModel)
		}
		if set.bodyCheck != nil {
			cs.policy.bodyCheck = set.bodyCheck
		}
		if set.compress.enc != "" {
			cs.policy.compress = set.compress
		}
		if set.hedge.set() {
			cs.policy.hedge = set.hedge
		}
	}
	if st.timeout > 0 && cs.policyOf(d).timeout <= 0 {
		// The client's WithTimeout, in the call's policy.
		if !cs.ownPolicy {
			cs.policy, cs.ownPolicy = d.callPolicy, true
		}
		cs.policy.timeout = st.timeout
	}
	return cs, nil
}

// walkSettings is settings for the options of a walk: an idempotency key
// names one request, so a walk, which sends one request a page, refuses
// it, and the paginator says where a page's records are, so a walk refuses
// WithResultAt.
func (d *endpointDecl) walkSettings(st *clientState, opts []CallOption) (*callSettings, error) {
	cs, err := d.settingsOf(st, opts)
	if err != nil || cs == nil {
		return cs, err
	}
	if cs.key != "" {
		return nil, errorf(d.name, "IdempotencyKey names one request, and a walk sends one request a page (WithIdempotencyHeader gives each page's write a key of its own)")
	}
	if cs.resultAt != nil {
		return nil, errorf(d.name, "WithResultAt(%q) applies to a call whose result is decoded from JSON; a walk's paginator says where the records are (its ItemsKey)", cs.resultText)
	}
	return cs, nil
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
	return len(cs.callHeader)
}

// setHeaders puts the call's headers in h, replacing the values that the
// client, the endpoint and the call's parameters set for those keys.
func (cs *callSettings) setHeaders(h http.Header) {
	for i, o := range cs.callHeader {
		first := true
		for _, prev := range cs.callHeader[:i] {
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

// resultPath returns where the result of a call of d is in the response
// body: the call's WithResultAt, else the declaration's, else the
// client's. decoded says whether the call's result is decoded from JSON:
// a call's WithResultAt on one that is not is an error, and a client's, or
// a resource's, does not apply to it.
// The path is returned where its level keeps it, so that a Request holds
// a pointer, not a copy; nil when the whole body is the result.
func (d *endpointDecl) resultPath(st *clientState, cs *callSettings, decoded bool) (*jsonpath.Path, error) {
	if cs != nil && cs.resultAt != nil {
		if !decoded {
			return nil, errorf(d.name, "WithResultAt(%q): the call's result is not decoded from JSON", cs.resultText)
		}
		return &cs.resultAt, nil
	}
	switch {
	case !decoded:
		return nil, nil
	case d.resultAt != nil:
		return &d.resultAt, nil
	case st.resultAt != nil:
		return &st.resultAt, nil
	}
	return nil, nil
}

// resultPath returns where the result of req's call is in the body; nil:
// the whole body.
func (req *Request) resultPath() jsonpath.Path {
	if req.resultAt == nil {
		return nil
	}
	return *req.resultAt
}
