package kit

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
)

// Private implementation past this point.
//
// origin.go keeps credentials and secrets where they belong: which URLs are
// on the base URL's origin, what is taken off a request redirected to
// another origin, and how URLs are redacted in errors and logs.

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	o := originOf(b)
	return o.matches(a)
}

// originKey is a URL's origin, worked out once: its scheme, its host in
// lower case and its port, the scheme's default made explicit.
type originKey struct {
	scheme, host, port string
}

func originOf(u *url.URL) originKey {
	return originKey{u.Scheme, strings.ToLower(u.Hostname()), portOf(u)}
}

// portOf is u's port, or its scheme's default port.
func portOf(u *url.URL) string {
	if port := u.Port(); port != "" {
		return port
	}
	switch u.Scheme {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// matches reports whether u is on origin o: same scheme, same host (case
// aside), same port. It compares in place, allocating nothing for an
// ASCII host.
func (o *originKey) matches(u *url.URL) bool {
	return u.Scheme == o.scheme && portOf(u) == o.port && lowerEqual(u.Hostname(), o.host)
}

// lowerEqual reports whether strings.ToLower(s) == lower, without
// allocating when s is ASCII.
func lowerEqual(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.ToLower(s) == lower
		}
	}
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// homeOrigin is the origin of a client's base URL, the only one its
// credentials go to: the origin rule that the client and its auth layer
// share.
type homeOrigin struct {
	base  *url.URL
	key   originKey   // base's origin
	bound []originKey // other origins the credentials are bound to (WithFailover's); nil: none
}

// contains reports whether u is on the base URL's origin. A URL with the
// base URL's very scheme and host (any URL build makes from the base URL)
// is, without working out its host and port.
func (h homeOrigin) contains(u *url.URL) bool {
	return u.Host == h.base.Host && u.Scheme == h.base.Scheme || h.key.matches(u) || h.boundTo(u)
}

// boundTo reports whether u is on one of the other origins the
// credentials are bound to.
func (h homeOrigin) boundTo(u *url.URL) bool {
	for i := range h.bound {
		if h.bound[i].matches(u) {
			return true
		}
	}
	return false
}

// sameOrigin reports whether u is on the base URL's origin.
func (st *clientState) sameOrigin(u *url.URL) bool { return st.home.contains(u) }

// origin is scheme://host of the base URL, the only origin credentials go to.
func (st *clientState) origin() string {
	return st.base.Scheme + "://" + strings.ToLower(st.base.Host)
}

// credentialHeaders are taken off a request redirected to another origin,
// whoever set them: the client's auth, WithHeader or a header parameter.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie"}

// An authRecord is kept in the context of each request that kit
// authenticated: what the Auth added, so that a redirect to another origin
// can take it off again. The auth layer puts it there; the redirect guard of
// the client's *http.Client reads it.
type authRecord struct {
	origin *url.URL    // the base URL: the only origin credentials go to
	header []headerWas // headers the Auth added or changed
	query  [][2]string // query parameters the Auth added: name, value
}

// headerWas is a header's values before the Auth ran (nil: absent).
type headerWas struct {
	key string
	old []string
}

type authRecordKey struct{}

// authContext is a context holding an authRecord: what
// context.WithValue(parent, authRecordKey{}, rec) makes, as a type of
// kit's so that it can be part of an attempt's requestCopy and cost no
// allocation of its own. Like context.WithValue's, it embeds its parent:
// cancellation, deadline and every other value are the parent's.
type authContext struct {
	context.Context
	rec *authRecord
}

// Value returns the record for authRecordKey, else the parent's value.
func (c *authContext) Value(key any) any {
	if _, ok := key.(authRecordKey); ok {
		return c.rec
	}
	return c.Context.Value(key)
}

// String names the context, as context.WithValue's String does.
func (c *authContext) String() string { return fmt.Sprint(c.Context) + ".WithValue(authRecord)" }

// authRecordFrom returns the record of the request whose context is ctx, or
// nil when kit did not authenticate that request.
func authRecordFrom(ctx context.Context) *authRecord {
	rec, _ := ctx.Value(authRecordKey{}).(*authRecord)
	return rec
}

// withoutAuthRecord hides an authRecord that ctx inherited from an
// enclosing request (a token fetch calling a login endpoint runs under the
// context of the call that started it): a request built with it was not
// authenticated.
func withoutAuthRecord(ctx context.Context) context.Context {
	if authRecordFrom(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, authRecordKey{}, (*authRecord)(nil))
}

// record returns what the Auth changed between before (the request as kit
// built it) and after (the request the Auth was given). The names of the
// query parameters it added become the client's secrets.
func (l *authLayer) record(before http.Header, beforeQuery string, after *http.Request) *authRecord {
	rec := &authRecord{origin: l.home.base}
	for k, vs := range after.Header {
		if old, ok := before[k]; !ok || !slices.Equal(old, vs) {
			rec.header = append(rec.header, headerWas{k, old})
		}
	}
	if after.URL.RawQuery != beforeQuery {
		rec.query = addedParams(beforeQuery, after.URL.RawQuery)
		for _, p := range rec.query {
			l.secrets.add(p[0])
		}
	}
	return rec
}

// addedParams returns the name-value pairs of query after that are not in
// query before.
func addedParams(before, after string) [][2]string {
	b, _ := url.ParseQuery(before)
	a, _ := url.ParseQuery(after)
	var added [][2]string
	for k, vs := range a {
		for _, v := range vs {
			if !slices.Contains(b[k], v) {
				added = append(added, [2]string{k, v})
			}
		}
	}
	return added
}

// redirectGuard wraps a CheckRedirect policy (nil: at most 10 redirects) so
// that credentials are taken off a request redirected to another origin
// before it runs.
func (st *clientState) redirectGuard(next func(req *http.Request, via []*http.Request) error) func(req *http.Request, via []*http.Request) error {
	if next == nil {
		next = checkRedirect
	}
	return func(req *http.Request, via []*http.Request) error {
		st.stripCredentials(req, via)
		return next(req, via)
	}
}

// guardHTTPClient returns a shallow copy of hc whose CheckRedirect strips
// credentials on a redirect to another origin. hc itself is not modified.
func (st *clientState) guardHTTPClient(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = st.redirectGuard(hc.CheckRedirect)
	return &c
}

// stripCredentials takes credentials off req, a redirect of via[0]:
//   - on a redirect away from the first request's origin, the credential
//     headers (Authorization, Proxy-Authorization, Cookie, and the header of
//     the client's APIKey auth), whoever set them; net/http keeps them when
//     only the port or the scheme changes;
//   - on a redirect away from the base URL's origin, whatever the client's
//     Auth added: headers it added are deleted, headers it changed get their
//     earlier values back, query parameters it added are removed from the
//     URL and the Referer.
func (st *clientState) stripCredentials(req *http.Request, via []*http.Request) {
	if len(via) > 0 && !sameOrigin(req.URL, via[0].URL) {
		st.stripCredentialHeaders(req.Header)
		// The Referer net/http adds is the URL redirected from, query and
		// all: it would carry a key given as a query parameter.
		delete(req.Header, "Referer")
	}
	rec := authRecordFrom(req.Context())
	if rec == nil || sameOrigin(req.URL, rec.origin) || st.home.boundTo(req.URL) {
		return
	}
	stripAuth(req, rec)
}

// stripCredentialHeaders deletes the credential headers from h, whoever
// set them: Authorization, Proxy-Authorization, Cookie and the header of
// the client's APIKey auth.
func (st *clientState) stripCredentialHeaders(h http.Header) {
	for _, k := range credentialHeaders {
		delete(h, k)
	}
	if k := st.secrets.apiKeyHeader; k != "" {
		delete(h, k)
	}
}

// confineCredentials applies the origin rule where a request finally goes,
// after every interceptor has run: hreq, the request the transport is about
// to send for req, carries credentials only to the base URL's origin.
// Credentials are decided by URL before the interceptors run (the client's
// credential headers are left off a URL kit built on another origin, and
// the auth layer authenticates only the base origin), and an interceptor
// may move the request after that (a mirror, a failover). So, when hreq is
// not on the base URL's origin:
//   - if it is not on the origin of the URL kit built either (an
//     interceptor moved it), every credential header is taken off,
//     whoever set it, as on a redirect to another origin;
//   - whatever the client's Auth added (an attempt interceptor runs after
//     the auth layer) is taken off, headers and query parameters.
//
// Headers set for an endpoint declared on another origin (its WithHeader,
// a call's header parameter) stay on that origin; a `kit:",url"` value
// counts as a move (req.built is the endpoint's origin, not the value's),
// since it is often a URL a server sent. hreq's URL and Header are copied
// before anything is taken off: they are shared with req.
func (st *clientState) confineCredentials(hreq *http.Request, req *Request) {
	if st.sameOrigin(hreq.URL) {
		return
	}
	moved := req.built == nil || !sameOrigin(hreq.URL, req.built)
	rec := authRecordFrom(hreq.Context())
	if !moved && rec == nil {
		return
	}
	hreq.Header = hreq.Header.Clone()
	if hreq.Header == nil {
		hreq.Header = make(http.Header)
	}
	u := *hreq.URL
	hreq.URL = &u
	if moved {
		st.stripCredentialHeaders(hreq.Header)
	}
	if rec != nil {
		stripAuth(hreq, rec)
	}
}

// stripAuth takes off req what the client's Auth added (rec): headers it
// added are deleted, headers it changed get their earlier values back,
// query parameters it added are removed from the URL and the Referer.
func stripAuth(req *http.Request, rec *authRecord) {
	for _, h := range rec.header {
		if _, ok := req.Header[h.key]; !ok {
			continue
		}
		if h.old == nil {
			delete(req.Header, h.key)
		} else {
			req.Header[h.key] = slices.Clone(h.old)
		}
	}
	if len(rec.query) == 0 {
		return
	}
	if q, ok := removeParams(req.URL.RawQuery, rec.query); ok {
		req.URL.RawQuery = q
		req.URL.ForceQuery = false
	}
	if ref := req.Header.Get("Referer"); ref != "" {
		if u, err := url.Parse(ref); err != nil {
			req.Header.Del("Referer")
		} else if q, ok := removeParams(u.RawQuery, rec.query); ok {
			u.RawQuery = q
			req.Header.Set("Referer", u.String())
		}
	}
}

// removeParams removes the name-value pairs from a raw query. ok reports
// whether it changed.
func removeParams(rawQuery string, pairs [][2]string) (string, bool) {
	if rawQuery == "" {
		return rawQuery, false
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		// Unparsable: drop it if it might hold a credential.
		for _, p := range pairs {
			if strings.Contains(rawQuery, p[1]) || strings.Contains(rawQuery, url.QueryEscape(p[1])) {
				return "", true
			}
		}
		return rawQuery, false
	}
	changed := false
	for _, p := range pairs {
		vs, ok := q[p[0]]
		if !ok {
			continue
		}
		n := len(vs)
		kept := slices.DeleteFunc(vs, func(v string) bool { return v == p[1] })
		if len(kept) != n {
			changed = true
		}
		if len(kept) == 0 {
			delete(q, p[0])
		} else {
			q[p[0]] = kept
		}
	}
	if !changed {
		return rawQuery, false
	}
	return q.Encode(), true
}
