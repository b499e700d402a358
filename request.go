package kit

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
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

// requestBuilder builds the requests of one client: it is made once, with
// the client, and holds what building a request needs and nothing of the
// send chain's layers. It does not change after newClientState, so calls
// share it freely.
type requestBuilder struct {
	header    http.Header   // the client's WithHeader (Accept-Encoding when it decodes)
	extra     *extraFields  // the client's WithQuery, WithJSONField; nil: none
	timeout   time.Duration // the client's WithTimeout; 0: none
	validator Validator
	idem      idempotency // the client's WithIdempotencyHeader

	base *url.URL
	home *homeOrigin // base's origin, the only one credentials go to
	// prefix is scheme://host + escaped base path, no trailing slash.
	prefix string
	// authority is prefix's scheme://host parsed (scheme and host only),
	// nil when it does not parse alone; authorityLen is its length in
	// prefix. build parses only what follows it (see parseBuilt).
	authority    *url.URL
	authorityLen int
	baseQuery    url.Values

	secrets *secrets // the client's, for error text and Curl's redaction
}

// newRequestBuilder returns the builder of a client with the base URL base
// and the client-level request options rc. rc's header map is shared: the
// client may still add to it before its first call (setAcceptEncoding).
func newRequestBuilder(base *url.URL, rc *requestConfig, validator Validator, home *homeOrigin, sec *secrets) *requestBuilder {
	rb := &requestBuilder{
		header:    rc.header,
		extra:     rc.extra,
		timeout:   rc.timeout,
		validator: validator,
		idem:      idempotency{header: rc.idemHeader},
		base:      base,
		home:      home,
		secrets:   sec,
	}
	rb.prefix = strings.TrimRight(base.Scheme+"://"+base.Host+base.EscapedPath(), "/")
	rb.authorityLen = len(base.Scheme) + len("://") + len(base.Host)
	if a, err := url.Parse(rb.prefix[:rb.authorityLen]); err == nil && a.Scheme != "" && a.Host != "" &&
		*a == (url.URL{Scheme: a.Scheme, Host: a.Host}) {
		rb.authority = a
	}
	if base.RawQuery != "" {
		rb.baseQuery = base.Query()
	}
	return rb
}

// build turns a routed call of declaration d into a Request. rawURL, when
// set, is the whole URL to request (a next-page link), used instead of d's
// path and r's query. The body, if any, is validated and encoded here:
// nothing is sent when build fails.
func (rb *requestBuilder) build(d *endpointDecl, r *routed, rawURL string) (*Request, error) {
	return rb.buildIn(d, r, rawURL, nil)
}

// buildIn is build making the request in box (nil: it allocates one). A
// request is built in three steps, each of its own: the URL (request_url.go),
// the body (body.go), the headers (below).
func (rb *requestBuilder) buildIn(d *endpointDecl, r *routed, rawURL string, box *requestBox) (*Request, error) {
	if box == nil {
		// One allocation for the request, its URL (when parseBuilt can
		// fill it) and kit's default header values.
		box = &requestBox{}
	}
	u, built, secretPath, err := rb.buildURL(d, r, rawURL, &box.url)
	if err != nil {
		return nil, err
	}
	req := &box.req
	req.Method, req.URL, req.Endpoint = d.method, u, d.name
	req.policy, req.built, req.secretPath = r.call.policyOf(d), built, secretPath
	req.secrets = rb.secrets
	if rb.timeout > 0 && req.policy.timeout <= 0 && r.call == nil {
		req.policy = rb.withTimeout(d) // a call's settings have it already
	}
	if r.target != nil {
		// A URL given at run time is often one a server sent (a Location
		// to follow): the headers of the call were declared for the
		// endpoint's origin, and a URL value elsewhere does not take them
		// along (see confineCredentials).
		req.built = d.origin
		if req.built == nil {
			req.built = rb.base
		}
	}
	box.defaults = [3]string{"application/json", userAgent, "application/json"}
	ctype, err := rb.buildBody(d, r, req, box.defaults[2:3:3])
	if err != nil {
		return nil, err
	}
	h := rb.buildHeaders(d, r, req, ctype, box.defaults[:2])
	// Undocumented query parameters and body members (WithQuery,
	// WithJSONField) go on top of what the parameters built.
	if err := rb.addExtras(req, d, r, h); err != nil {
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
func (rb *requestBuilder) buildHeaders(d *endpointDecl, r *routed, req *Request, ctype bodyType, defaults []string) http.Header {
	h := make(http.Header, 4+len(rb.header)+len(d.header)+len(r.header)+r.call.headerCount())
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
	other := (d.tmpl.Origin != "" || r.target != nil) && !rb.home.contains(req.URL)
	for k, vs := range rb.header {
		if other && rb.isCredentialHeader(k) {
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
	if rb.idem.applies(d, r.call) {
		req.keyed = rb.idem.setKey(d, r.call, h)
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
func (rb *requestBuilder) isCredentialHeader(k string) bool {
	return slices.Contains(credentialHeaders, k) || k == rb.secrets.apiKeyHeader
}
