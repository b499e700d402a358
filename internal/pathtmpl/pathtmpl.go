// Package pathtmpl parses and expands kit's endpoint path templates:
// "/teams/{id}/users?kind=x" is the literal "/teams/", the placeholder id,
// the literal "/users" and the static query kind=x. kit parses every
// declaration with it, and tools that check declarations ahead of time
// (kitgen) use it too, so both accept the same templates and report the
// same messages.
package pathtmpl

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Template is a path template, parsed once. It is immutable and safe for
// concurrent use.
type Template struct {
	Raw          string     // as written
	Origin       string     // "https://host:port" of an absolute URL template; "" for a path
	Parts        []Part     // the path, in order
	Placeholders []string   // distinct placeholder names, in order of first appearance
	Static       url.Values // the query written in the template; nil when none
}

// Part is one piece of a template's path: a literal or a placeholder.
type Part struct {
	Literal string // already escaped; "" for a placeholder
	Name    string // placeholder name; "" for a literal
	// Rest marks a placeholder written {name...}, as net/http's patterns
	// write it: its value may hold slashes, which stay, each segment
	// escaped on its own. Unlike a pattern, which matches, a template only
	// builds URLs, so it may stand anywhere in the path
	// (/branches/{branch...}/protection).
	Rest bool
}

// Parse parses a path template. A path that does not start with "/" gets
// one. Literal bytes that may not stand in a URL path are percent-encoded;
// existing escapes must be well formed. Placeholders are {name}, where name
// is not empty and has no '{', '/' or space; they may appear only in the
// path, not in the static query. A placeholder written {name...} keeps
// its value's slashes (a file path, a branch name like feature/x).
//
// A template may also be an absolute http or https URL
// ("https://uploads.example.com/files/{id}"): Origin is then its scheme and
// host, and the rest is parsed as a path. Placeholders may not stand in the
// host.
func Parse(raw string) (*Template, error) {
	t := &Template{Raw: raw}
	path, query, hasQuery := strings.Cut(raw, "?")
	if origin, rest, ok, err := splitOrigin(path); err != nil {
		return nil, err
	} else if ok {
		t.Origin, path = origin, rest
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
		t.Static = q
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
			t.Parts = append(t.Parts, Part{Literal: esc})
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
		name, multi := strings.CutSuffix(name, "...")
		if name == "" || strings.ContainsAny(name, "{/ ") {
			return nil, fmt.Errorf("bad placeholder {%s}", rest[:end])
		}
		t.Parts = append(t.Parts, Part{Name: name, Rest: multi})
		if !slices.Contains(t.Placeholders, name) {
			t.Placeholders = append(t.Placeholders, name)
		}
		path = rest[end+1:]
	}
	return t, nil
}

// Expand writes the escaped path to b, each placeholder filled with the
// value at the same position in vals as its name in names, escaped as one
// path segment; a {name...} placeholder's value keeps its slashes, each
// segment escaped on its own. A value that is empty, "." or ".." is an
// error (it would change the resource addressed), and so is a {name...}
// value with such a segment; so is a placeholder without a value,
// reported as an empty one.
func (t *Template) Expand(b *strings.Builder, names, vals []string) error {
	_, err := t.expand(b, names, vals, nil)
	return err
}

// ExpandSecrets is Expand that also returns, for each placeholder whose
// name secret reports true for, the run of whole path segments its value
// fills in what was written, escaped as written and without the slashes
// around it: "abc" for {token} in /resets/{token}, "a/b/c" for a
// {token...} filled with a/b/c, "report.abc" for {sig} in
// /files/{name}.{sig}. Whoever reports the path replaces each run with a
// placeholder; a run covers the whole segments, so the value cannot be
// told from what is left.
func (t *Template) ExpandSecrets(b *strings.Builder, names, vals []string, secret func(name string) bool) ([]string, error) {
	return t.expand(b, names, vals, secret)
}

// expand is Expand and ExpandSecrets: with secret nil, no runs.
func (t *Template) expand(b *strings.Builder, names, vals []string, secret func(string) bool) ([]string, error) {
	start := b.Len()
	var spans [][2]int // in b, of the secret values written
	for _, p := range t.Parts {
		if p.Name == "" {
			b.WriteString(p.Literal)
			continue
		}
		v := ""
		for i, n := range names {
			if n == p.Name {
				v = vals[i]
				break
			}
		}
		from := b.Len()
		if p.Rest {
			for i, seg := range strings.Split(v, "/") {
				switch seg {
				case "", ".", "..":
					return nil, fmt.Errorf("path parameter {%s...} is %q, whose segment %q would change the resource addressed", p.Name, v, seg)
				}
				if i > 0 {
					b.WriteByte('/')
				}
				b.WriteString(url.PathEscape(seg))
			}
		} else {
			switch v {
			case "", ".", "..":
				return nil, fmt.Errorf("path parameter {%s} is %q, which would change the resource addressed", p.Name, v)
			}
			b.WriteString(url.PathEscape(v))
		}
		if secret != nil && secret(p.Name) {
			spans = append(spans, [2]int{from, b.Len()})
		}
	}
	if len(spans) == 0 {
		return nil, nil
	}
	// Widen each span to the whole segments it touches. The path starts
	// with '/', so every span has one before it.
	s := b.String()
	runs := make([]string, 0, len(spans))
	for _, sp := range spans {
		from := start + strings.LastIndexByte(s[start:sp[0]], '/') + 1
		to := len(s)
		if i := strings.IndexByte(s[sp[1]:], '/'); i >= 0 {
			to = sp[1] + i
		}
		if run := s[from:to]; !slices.Contains(runs, run) {
			runs = append(runs, run)
		}
	}
	return runs, nil
}

// IsPathByte reports whether c may stand unescaped in a path (RFC 3986
// pchar plus '/').
func IsPathByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0
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
		case IsPathByte(c):
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
