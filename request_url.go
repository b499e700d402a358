package kit

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Private implementation past this point.
//
// request_url.go builds the URL of a request: the client's base URL (or
// the template's own origin) and the expanded path, then the query
// (query.go); or a `kit:",url"` value resolved against the base URL; or a
// next-page link as given.

// buildURL returns the URL of a call of d: rawURL when set, else r's
// target or d's path with r's query. A URL of plain bytes on the base URL
// is parsed into into. built is u's scheme and host (shared: not to be
// changed); secretPath the runs of path segments that secret-looking
// placeholders filled.
func (rb *requestBuilder) buildURL(d *endpointDecl, r *routed, rawURL string, into *url.URL) (u, built *url.URL, secretPath []string, err error) {
	switch {
	case rawURL == "" && r.target != nil:
		if u, err = rb.targetURL(r.target, r.queryOrNil()); err != nil {
			return nil, nil, nil, errorf(d.name, "%w", err)
		}
	case rawURL == "":
		var b strings.Builder
		b.Grow(len(rb.prefix) + len(d.tmpl.Raw) + 64)
		if secretPath, err = rb.writePath(&b, d, r); err != nil {
			return nil, nil, nil, err
		}
		writeQuery(&b, rb.baseQueryFor(d), d.tmpl.Static, r)
		if u, built, err = rb.parseBuilt(b.String(), d.tmpl.Origin == "", into); err != nil {
			return nil, nil, nil, errorf(d.name, "building the URL: %w", err)
		}
	default:
		if u, err = parseURL(rawURL); err != nil {
			return nil, nil, nil, errorf(d.name, "building the URL: %w", err)
		}
	}
	if built == nil {
		built = &url.URL{Scheme: u.Scheme, Host: u.Host}
	}
	return u, built, secretPath, nil
}

// parseBuilt parses the URL build wrote. When onBase is set, it starts with
// the client's prefix: only what follows scheme://host is parsed, which
// gives the same URL as parsing it all (the prefix's scheme and host parse
// once, in newRequestBuilder), without parsing the host on every call. origin
// is then rb.authority, u's scheme and host (shared: not to be changed);
// else nil. A path of plain bytes is parsed into into, which is then u.
func (rb *requestBuilder) parseBuilt(raw string, onBase bool, into *url.URL) (u, origin *url.URL, err error) {
	if onBase && rb.authority != nil && len(raw) > rb.authorityLen {
		// A path that starts with "//" would parse as an authority.
		if rest := raw[rb.authorityLen:]; rest[0] == '/' && !strings.HasPrefix(rest, "//") {
			if parsePlain(into, rest) {
				u = into
			} else if u, err = parseURL(rest); err != nil {
				return nil, nil, err
			}
			u.Scheme, u.Host = rb.authority.Scheme, rb.authority.Host
			return u, rb.authority, nil
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

// targetURL is the URL of a call with a `kit:",url"` field: target resolved
// against the base URL (as a directory: "jobs/7" is below the base path),
// with the call's query parameters added, and the base URL's query when it
// is on the base URL's origin.
func (rb *requestBuilder) targetURL(target *url.URL, query url.Values) (*url.URL, error) {
	base := *rb.base
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
		return nil, fmt.Errorf("URL %s: scheme %q is not http or https", rb.secrets.redactorOf(nil).url(u), u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("URL %s has no host", rb.secrets.redactorOf(nil).url(u))
	}
	var baseQuery url.Values
	if rb.home.contains(u) {
		baseQuery = rb.baseQuery
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
func (rb *requestBuilder) writePath(b *strings.Builder, d *endpointDecl, r *routed) ([]string, error) {
	for i, ok := range r.filled {
		if !ok {
			return nil, errorf(d.name, "no value for path parameter {%s}", r.names[i])
		}
	}
	if d.tmpl.Origin != "" {
		b.WriteString(d.tmpl.Origin)
	} else {
		b.WriteString(rb.prefix)
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
func (rb *requestBuilder) baseQueryFor(d *endpointDecl) url.Values {
	if d.tmpl.Origin != "" {
		if o, err := url.Parse(d.tmpl.Origin); err != nil || !rb.home.contains(o) {
			return nil
		}
	}
	return rb.baseQuery
}
