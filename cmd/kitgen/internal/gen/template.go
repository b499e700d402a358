package gen

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// pathTemplate is the part of a parsed kit path template kitgen needs.
type pathTemplate struct {
	placeholders []string
}

// parsePathTemplate checks a path template as kit's parsePathTemplate does
// (same rules, same messages), and returns its placeholders.
//
// This is a copy, to be replaced by kit's internal/pathtmpl once that lands
// (KITGEN.md §2.7 item 4).
func parsePathTemplate(raw string) (*pathTemplate, error) {
	t := &pathTemplate{}
	path, query, hasQuery := strings.Cut(raw, "?")
	if _, rest, ok, err := splitOrigin(path); err != nil {
		return nil, err
	} else if ok {
		path = rest
	}
	if hasQuery {
		if strings.ContainsAny(query, "{}") {
			return nil, fmt.Errorf("placeholder in the query %q: only the path has placeholders; make it a field", query)
		}
		if _, err := url.ParseQuery(query); err != nil {
			return nil, fmt.Errorf("bad query in path: %v", err)
		}
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
		for i := 0; i < len(lit); i++ {
			if lit[i] == '%' && (i+2 >= len(lit) || !isHex(lit[i+1]) || !isHex(lit[i+2])) {
				return nil, fmt.Errorf("bad escape %q in path", lit[i:min(i+3, len(lit))])
			}
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
		if !slices.Contains(t.placeholders, name) {
			t.placeholders = append(t.placeholders, name)
		}
		path = rest[end+1:]
	}
	return t, nil
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
