package kit

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Private implementation past this point.

// pathTemplate is an endpoint path parsed once at declaration:
// "/teams/{id}/users?kind=x" -> literal "/teams/", placeholder id,
// literal "/users", static query kind=x.
type pathTemplate struct {
	raw          string
	origin       string // "https://host:port" of an absolute URL template; "" for a path
	parts        []pathPart
	placeholders []string // distinct names, in order of first appearance
	static       url.Values
}

type pathPart struct {
	literal string // already escaped; "" for a placeholder
	name    string // placeholder name; "" for a literal
}

func parsePathTemplate(raw string) (*pathTemplate, error) {
	t := &pathTemplate{raw: raw}
	path, query, hasQuery := strings.Cut(raw, "?")
	if origin, rest, ok, err := splitOrigin(path); err != nil {
		return nil, err
	} else if ok {
		t.origin, path = origin, rest
	}
	if hasQuery {
		if strings.ContainsAny(query, "{}") {
			// Placeholders fill the path only; a query parameter is a field.
			return nil, fmt.Errorf("placeholder in the query %q: only the path has placeholders; make it a field", query)
		}
		q, err := url.ParseQuery(query)
		if err != nil {
			return nil, fmt.Errorf("bad query in path: %v", err)
		}
		t.static = q
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	for path != "" {
		open := strings.IndexByte(path, '{')
		lit := path
		if open >= 0 {
			lit = path[:open]
		}
		if strings.IndexByte(lit, '}') >= 0 {
			return nil, fmt.Errorf("unbalanced '}' in path")
		}
		if lit != "" {
			esc, err := escapeLiteral(lit)
			if err != nil {
				return nil, err
			}
			t.parts = append(t.parts, pathPart{literal: esc})
		}
		if open < 0 {
			break
		}
		rest := path[open+1:]
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return nil, fmt.Errorf("unterminated '{' in path")
		}
		name := rest[:end]
		if name == "" || strings.ContainsAny(name, "{/ ") {
			return nil, fmt.Errorf("bad placeholder {%s}", name)
		}
		t.parts = append(t.parts, pathPart{name: name})
		if !slices.Contains(t.placeholders, name) {
			t.placeholders = append(t.placeholders, name)
		}
		path = rest[end+1:]
	}
	return t, nil
}

// splitOrigin splits an absolute http(s) URL path template into its origin
// ("https://host") and path. ok is false for a plain path.
func splitOrigin(path string) (origin, rest string, ok bool, err error) {
	scheme, after, found := strings.Cut(path, "://")
	if !found {
		return "", path, false, nil
	}
	scheme = strings.ToLower(scheme)
	if scheme != "http" && scheme != "https" {
		if strings.ContainsAny(scheme, "/{") {
			return "", path, false, nil // "://" inside a path
		}
		return "", "", false, fmt.Errorf("absolute URL with scheme %q: only http and https URLs can be endpoints", scheme)
	}
	host, p, _ := strings.Cut(after, "/")
	if strings.ContainsAny(host, "{}") {
		return "", "", false, fmt.Errorf("placeholder in the host %q: only the path has placeholders", host)
	}
	u, perr := url.Parse(scheme + "://" + host)
	if perr != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return "", "", false, fmt.Errorf("bad host %q in absolute URL", host)
	}
	return scheme + "://" + strings.ToLower(u.Host), "/" + p, true, nil
}

// escapeLiteral percent-encodes bytes that may not stand in a URL path and
// checks existing escapes.
func escapeLiteral(lit string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		switch {
		case c == '%':
			if i+2 >= len(lit) || !isHex(lit[i+1]) || !isHex(lit[i+2]) {
				return "", fmt.Errorf("bad escape %q in path", lit[i:min(i+3, len(lit))])
			}
			b.WriteByte(c)
		case isPathByte(c):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isPathByte reports whether c may stand unescaped in a path (RFC 3986
// pchar plus '/').
func isPathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0
}

// expand writes the escaped path for the given placeholder values to b.
func (t *pathTemplate) expand(b *strings.Builder, names, vals []string) error {
	for _, p := range t.parts {
		if p.name == "" {
			b.WriteString(p.literal)
			continue
		}
		v := ""
		for i, n := range names {
			if n == p.name {
				v = vals[i]
				break
			}
		}
		switch v {
		case "", ".", "..":
			return fmt.Errorf("path parameter {%s} is %q, which would change the resource addressed", p.name, v)
		}
		b.WriteString(url.PathEscape(v))
	}
	return nil
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
