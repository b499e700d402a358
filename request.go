package kit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// Private implementation past this point.
//
// request.go builds the *Request of every call: endpoint calls, resource
// operations and the pages of a walk all come through build, so they get
// the same URL joining, headers, body validation and encoding.

// userAgent is sent unless the client sets its own User-Agent header.

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
	errorModel *errorModel   // WithErrorModel; nil: the client's
	bodyCheck  *bodyCheck    // WithBodyCheck; nil: the client's
	stream     bool          // R is io.ReadCloser or a Stream: the 2xx body is handed over unread
	compress   string        // WithRequestCompression; "": the client's
	hedge      hedgeSetting  // WithHedging; zero: the client's
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

// buildIn is build making the request in box (nil: it allocates one).
func (st *clientState) buildIn(d *endpointDecl, r *routed, rawURL string, box *requestBox) (*Request, error) {
	if box == nil {
		// One allocation for the request, its URL (when parseBuilt can
		// fill it) and kit's default header values.
		box = &requestBox{}
	}
	var u, built *url.URL // built: u's scheme and host, when shared
	var secretPath []string
	switch {
	case rawURL == "" && r.target != nil:
		var err error
		if u, err = st.targetURL(r.target, r.queryOrNil()); err != nil {
			return nil, errorf(d.name, "%w", err)
		}
	case rawURL == "":
		var b strings.Builder
		b.Grow(len(st.prefix) + len(d.tmpl.Raw) + 64)
		var err error
		if secretPath, err = st.writePath(&b, d, r); err != nil {
			return nil, err
		}
		writeQuery(&b, st.baseQueryFor(d), d.tmpl.Static, r)
		if u, built, err = st.parseBuilt(b.String(), d.tmpl.Origin == "", &box.url); err != nil {
			return nil, errorf(d.name, "building the URL: %w", err)
		}
	}
	if u == nil {
		var err error
		if u, err = parseURL(rawURL); err != nil {
			return nil, errorf(d.name, "building the URL: %w", err)
		}
	}
	if built == nil {
		built = &url.URL{Scheme: u.Scheme, Host: u.Host}
	}
	req := &box.req
	req.Method, req.URL, req.Endpoint = d.method, u, d.name
	req.policy, req.built, req.secretPath = r.call.policyOf(d), built, secretPath
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
	h := make(http.Header, 4+len(st.header)+len(d.header)+len(r.header)+r.call.headerCount())
	// kit's own header values share one backing array (capped slices, so
	// an append to one copies it): one allocation instead of three.
	box.defaults = [3]string{"application/json", userAgent, "application/json"}
	defaults := box.defaults[:]
	h["Accept"] = defaults[0:1:1]
	switch {
	case d.records != nil:
		h["Accept"] = streamAccept
	case d.stream:
		h["Accept"] = anyMediaType
	}
	forcedType := ""
	if (r.body.IsValid() || r.file != nil) && (d.method == http.MethodGet || d.method == http.MethodHead) {
		return nil, errorf(d.name, "%s requests have no body: send a struct's fields as query parameters by embedding it in P or with `kit:\",query\"`", d.method)
	}
	switch {
	case r.file != nil:
		if httpsyntax.HasControl(r.file.ContentType) {
			return nil, errorf(d.name, "kit.File %q: the content type has a control character", r.file.Name)
		}
		h["Content-Type"] = []string{r.file.contentType()}
		req.GetBody = fileBody(*r.file)
		req.ContentLength = r.file.length()
	case r.body.IsValid():
		if err := validateValue(st.validator, r.body); err != nil {
			return nil, errorf(d.name, "request body: %w", err)
		}
		switch d.bodyEnc {
		case encForm:
			body, err := encodeNestedForm(r.body, d.formStyle)
			if err != nil {
				return nil, errorf(d.name, "encoding the form body: %w", err)
			}
			h["Content-Type"] = formMediaType
			req.GetBody = bytesBody(body)
			req.ContentLength = int64(len(body))
		case encMultipart:
			mb, err := encodeMultipart(r.body)
			if err != nil {
				return nil, errorf(d.name, "encoding the multipart body: %w", err)
			}
			forcedType = mb.contentType // the boundary must be the body's
			req.GetBody = mb.getBody
			req.ContentLength = mb.length
		default:
			body, err := marshalJSON(r.body.Interface())
			if err != nil {
				return nil, errorf(d.name, "encoding the request body: %w", err)
			}
			h["Content-Type"] = defaults[2:3:3]
			req.GetBody = bytesBody(body)
			req.ContentLength = int64(len(body))
		}
	}
	// The client's headers replace kit's defaults (Accept, User-Agent), the
	// endpoint's replace the client's, and a call's header parameters
	// replace both for the same key. The client's credential headers stay
	// on the base URL's origin.
	other := (d.tmpl.Origin != "" || r.target != nil) && !st.sameOrigin(u)
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
	if d.idemHeader != "" || st.idemHeader != "" || r.call != nil && (r.call.key != "" || r.call.idemHeader != "") {
		req.keyed = st.setIdempotencyKey(d, r.call, h)
	}
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = defaults[1:2:2]
	}
	if forcedType != "" {
		h["Content-Type"] = []string{forcedType}
	}
	req.Header = h
	return req, nil
}

// requestBox is what build allocates for a request, in one piece.
type requestBox struct {
	req      Request
	url      url.URL
	defaults [3]string
}

// parseBuilt parses the URL build wrote. When onBase is set, it starts with
// the client's prefix: only what follows scheme://host is parsed, which
// gives the same URL as parsing it all (the prefix's scheme and host parse
// once, in newClientState), without parsing the host on every call. origin
// is then st.authority, u's scheme and host (shared: not to be changed);
// else nil. A path of plain bytes is parsed into into, which is then u.
func (st *clientState) parseBuilt(raw string, onBase bool, into *url.URL) (u, origin *url.URL, err error) {
	if onBase && st.authority != nil && len(raw) > st.authorityLen {
		// A path that starts with "//" would parse as an authority.
		if rest := raw[st.authorityLen:]; rest[0] == '/' && !strings.HasPrefix(rest, "//") {
			if parsePlain(into, rest) {
				u = into
			} else if u, err = parseURL(rest); err != nil {
				return nil, nil, err
			}
			u.Scheme, u.Host = st.authority.Scheme, st.authority.Host
			return u, st.authority, nil
		}
	}
	u, err = parseURL(raw)
	return u, nil, err
}

// parsePlain sets *u to what url.Parse(rest) returns, when rest (a path
// starting with "/" but not "//", and a query) is plain: its path has only
// bytes that url.URL.EscapedPath leaves as they are (no "%": nothing to
// unescape, and Path is the path as written), and neither part has a "#"
// or a control byte (url.Parse's errors). It reports false, leaving u, for
// any other rest, which url.Parse then parses.
func parsePlain(u *url.URL, rest string) bool {
	path, query, hasQuery := strings.Cut(rest, "?")
	for i := 0; i < len(path); i++ {
		if !plainPathByte(path[i]) {
			return false
		}
	}
	for i := 0; i < len(query); i++ {
		if c := query[i]; c < ' ' || c == 0x7f || c == '#' {
			return false
		}
	}
	*u = url.URL{Path: path, RawQuery: query, ForceQuery: hasQuery && query == ""}
	return true
}

// plainPathByte reports whether c stands for itself in a URL path (RFC
// 3986's unreserved characters, sub-delimiters but "!'()*", ":", "@" and
// "/"), the bytes net/url does not escape in a path.
func plainPathByte(c byte) bool { return plainPath[c] }

var plainPath = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("-._~$&+,/:;=@", byte(c)) >= 0
	}
	return t
}()

// parseURL is url.Parse with an error that does not repeat the URL, which
// may hold a secret.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	return u, nil
}

// writeQuery writes "?" and the query of a call (the base URL's query, the
// path's static, the call's own r.query), when it has one.
func writeQuery(b *strings.Builder, base, static url.Values, r *routed) {
	if r.has1 && r.query == nil && len(base) == 0 && len(static) == 0 {
		// One parameter: what url.Values.Encode would write of it.
		b.WriteByte('?')
		b.WriteString(url.QueryEscape(r.query1[0]))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(r.query1[1]))
		return
	}
	if q := mergeQuery(base, static, r.queryOrNil()); len(q) > 0 {
		b.WriteByte('?')
		encodeQuery(b, q)
	}
}

// encodeQuery writes q to b as url.Values.Encode does (keys sorted, each
// key's values in order), without its allocations.
func encodeQuery(b *strings.Builder, q url.Values) {
	var stack [16]string
	keys := stack[:0]
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	start := b.Len()
	for _, k := range keys {
		ke := url.QueryEscape(k)
		for _, v := range q[k] {
			if b.Len() > start {
				b.WriteByte('&')
			}
			b.WriteString(ke)
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
		}
	}
}

var (
	anyMediaType  = []string{"*/*"}
	formMediaType = []string{"application/x-www-form-urlencoded"}
)

// isCredentialHeader reports whether the header k (canonical) carries
// credentials: it does not leave the base URL's origin.
func (st *clientState) isCredentialHeader(k string) bool {
	return slices.Contains(credentialHeaders, k) || k == st.apiKeyHeader
}

// targetURL is the URL of a call with a `kit:",url"` field: target resolved
// against the base URL (as a directory: "jobs/7" is below the base path),
// with the call's query parameters added, and the base URL's query when it
// is on the base URL's origin.
func (st *clientState) targetURL(target *url.URL, query url.Values) (*url.URL, error) {
	base := *st.base
	base.RawQuery, base.Fragment, base.RawFragment = "", "", ""
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
		if base.RawPath != "" {
			base.RawPath += "/"
		}
	}
	u := base.ResolveReference(target)
	u.Fragment, u.RawFragment = "", ""
	switch u.Scheme {
	case "http", "https":
	default:
		return nil, fmt.Errorf("URL %s: scheme %q is not http or https", st.redactorOf(nil).url(u), u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("URL %s has no host", st.redactorOf(nil).url(u))
	}
	var baseQuery url.Values
	if st.sameOrigin(u) {
		baseQuery = st.baseQuery
	}
	if q := mergeQuery(baseQuery, nil, query); len(q) > 0 {
		if u.RawQuery != "" {
			u.RawQuery += "&" + q.Encode()
		} else {
			u.RawQuery = q.Encode()
		}
	}
	return u, nil
}

// writePath writes the URL of a call of d without its query: the client's
// base URL (or the template's own origin, for an absolute URL) and the
// expanded path. It returns the runs of path segments that secret-looking
// placeholders filled, for the request's redactor.
func (st *clientState) writePath(b *strings.Builder, d *endpointDecl, r *routed) ([]string, error) {
	for i, ok := range r.filled {
		if !ok {
			return nil, errorf(d.name, "no value for path parameter {%s}", r.names[i])
		}
	}
	if d.tmpl.Origin != "" {
		b.WriteString(d.tmpl.Origin)
	} else {
		b.WriteString(st.prefix)
	}
	var runs []string
	var err error
	if d.secretPath {
		runs, err = d.tmpl.ExpandSecrets(b, r.names, r.vals, isSecretName)
	} else {
		err = d.tmpl.Expand(b, r.names, r.vals)
	}
	if err != nil {
		return nil, errorf(d.name, "%w", err)
	}
	return runs, nil
}

// baseQueryFor is the base URL's query for a call of d: none for an
// absolute URL on another origin.
func (st *clientState) baseQueryFor(d *endpointDecl) url.Values {
	if d.tmpl.Origin != "" {
		if o, err := url.Parse(d.tmpl.Origin); err != nil || !st.sameOrigin(o) {
			return nil
		}
	}
	return st.baseQuery
}

// bytesBody is a GetBody over b: each call gets a new reader of the same
// bytes, so every attempt sends them again.
func bytesBody(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}

// mergeQuery combines the base URL's query, the path's static query and the
// call's parameters (which come last for each key). It returns routed itself
// when there is nothing to merge.
func mergeQuery(base, static, routed url.Values) url.Values {
	if len(base) == 0 && len(static) == 0 {
		return routed
	}
	out := make(url.Values, len(base)+len(static)+len(routed))
	for _, src := range []url.Values{base, static, routed} {
		for k, vs := range src {
			out[k] = append(out[k], vs...)
		}
	}
	return out
}
