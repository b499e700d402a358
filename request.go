package kit

import (
	"net/http"
	"net/url"
	"slices"
	"time"
)

// Private implementation past this point.
//
// request.go builds the *Request of every call: endpoint calls, resource
// operations and the pages of a walk all come through build, so they get
// the same URL joining, headers, body validation and encoding.

// callPolicy is what an endpoint declaration says about how its calls are
// sent. It is worked out once, at declaration; every Request points at its
// endpoint's policy and the layers of the chain read it from there.
type callPolicy struct {
	noAuth     bool          // NoAuth
	maxBody    int64         // WithMaxBodySize; 0: the client's
	retry      *retrier      // WithRetry; nil: the client's
	noRetry    bool          // NoRetry
	idempotent bool          // Idempotent
	timeout    time.Duration // WithTimeout; 0: none
	errorModel *errorModels  // WithErrorModel(At, For); nil: the client's
	bodyCheck  *bodyCheck    // WithBodyCheck; nil: the client's
	stream     bool          // R is io.ReadCloser or a Stream: the 2xx body is handed over unread

	attemptTimeout time.Duration // WithAttemptTimeout; 0: the client's
	idleTimeout    time.Duration // WithIdleTimeout; 0: the client's
	dump           *dumper       // WithDump, WithDumpLogger; nil: the client's

	compress compressor   // WithRequestCompression; zero: the client's
	hedge    hedgeSetting // WithHedging; zero: the client's
}

// defaultPolicy is the policy of resource operations and page requests.
var defaultPolicy = &callPolicy{}

// build turns a routed call of declaration d into a Request. rawURL, when
// set, is the whole URL to request (a next-page link), used instead of d's
// path and r's query. The body, if any, is validated and encoded here:
// nothing is sent when build fails.
func (st *clientState) build(d *endpointDecl, r *routed, rawURL string) (*Request, error) {
	return st.buildIn(d, r, rawURL, nil)
}

// buildIn is build making the request in box (nil: it allocates one). A
// request is built in three steps, each of its own: the URL (request_url.go),
// the body (body.go), the headers (below).
func (st *clientState) buildIn(d *endpointDecl, r *routed, rawURL string, box *requestBox) (*Request, error) {
	if box == nil {
		// One allocation for the request, its URL (when parseBuilt can
		// fill it) and kit's default header values.
		box = &requestBox{}
	}
	u, built, secretPath, err := st.buildURL(d, r, rawURL, &box.url)
	if err != nil {
		return nil, err
	}
	req := &box.req
	req.Method, req.URL, req.Endpoint = d.method, u, d.name
	req.policy, req.built, req.secretPath = r.call.policyOf(d), built, secretPath
	req.client = st
	if st.timeout > 0 && req.policy.timeout <= 0 && r.call == nil {
		req.policy = st.withTimeout(d) // a call's settings have it already
	}
	if r.target != nil {
		// A URL given at run time is often one a server sent (a Location
		// to follow): the headers of the call were declared for the
		// endpoint's origin, and a URL value elsewhere does not take them
		// along (see confineCredentials).
		req.built = d.origin
		if req.built == nil {
			req.built = st.base
		}
	}
	box.defaults = [3]string{"application/json", userAgent, "application/json"}
	ctype, err := st.buildBody(d, r, req, box.defaults[2:3:3])
	if err != nil {
		return nil, err
	}
	h := st.buildHeaders(d, r, req, ctype, box.defaults[:2])
	// Undocumented query parameters and body members (WithQuery,
	// WithJSONField) go on top of what the parameters built.
	if err := st.addExtras(req, d, r, h); err != nil {
		return nil, err
	}
	req.Header = h
	return req, nil
}

// buildHeaders returns the headers of req, a call of d with the body's
// content type ctype (nil: no body): kit's defaults (Accept, User-Agent,
// from defaults), the client's, the endpoint's, the call's header
// parameters and options, and an idempotency key, in that order of
// precedence, lowest first.
func (st *clientState) buildHeaders(d *endpointDecl, r *routed, req *Request, ctype bodyType, defaults []string) http.Header {
	h := make(http.Header, 4+len(st.header)+len(d.header)+len(r.header)+r.call.headerCount())
	// kit's own header values share one backing array (capped slices, so
	// an append to one copies it): one allocation instead of three.
	h["Accept"] = defaults[0:1:1]
	switch {
	case d.records != nil:
		h["Accept"] = streamAccept
	case d.stream:
		h["Accept"] = anyMediaType
	}
	if ctype.value != nil && !ctype.forced {
		h["Content-Type"] = ctype.value
	}
	// The client's headers replace kit's defaults (Accept, User-Agent), the
	// endpoint's replace the client's, and a call's header parameters
	// replace both for the same key. The client's credential headers stay
	// on the base URL's origin.
	other := (d.tmpl.Origin != "" || r.target != nil) && !st.sameOrigin(req.URL)
	for k, vs := range st.header {
		if other && st.isCredentialHeader(k) {
			continue
		}
		h[k] = append([]string(nil), vs...)
	}
	for k, vs := range d.header {
		h[k] = vs[:len(vs):len(vs)]
	}
	for k, vs := range r.header {
		h[k] = vs
	}
	if r.call != nil {
		r.call.setHeaders(h)
	}
	if st.idem.applies(d, r.call) {
		req.keyed = st.idem.setKey(d, r.call, h)
	}
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = defaults[1:2:2]
	}
	if ctype.forced {
		h["Content-Type"] = ctype.value
	}
	return h
}

// requestBox is what build allocates for a request, in one piece.
type requestBox struct {
	req      Request
	url      url.URL
	defaults [3]string
}

var (
	anyMediaType = []string{"*/*"}
)

// isCredentialHeader reports whether the header k (canonical) carries
// credentials: it does not leave the base URL's origin.
func (st *clientState) isCredentialHeader(k string) bool {
	return slices.Contains(credentialHeaders, k) || k == st.secrets.apiKeyHeader
}
