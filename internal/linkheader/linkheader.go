// Package linkheader parses HTTP Link header fields as specified in RFC 8288.
//
// It is used to follow pagination links such as
//
//	Link: <https://api.example.com/items?page=2>; rel="next",
//	      <https://api.example.com/items?page=9>; rel="last"
//
// Parsing is tolerant, in the spirit of the algorithm in RFC 8288 Appendix B:
// a malformed link-value is skipped and parsing resumes with the next
// comma-separated link-value where one can be identified. Unlike that
// algorithm, a malformed link-value does not discard the links that follow it.
//
// A link-value is malformed, and skipped, when:
//
//   - it does not start with "<" (after optional whitespace);
//   - its "<" has no matching ">", detected as a missing ">" or as a "<"
//     inside the target (a literal "<" is never valid in a URI reference);
//     parsing resumes after the first comma following the "<";
//   - a quoted-string parameter value is not terminated; parsing resumes
//     after the first comma following the opening quote;
//   - a parameter name is not an RFC 9110 token (`; "rel"=next`, `; =x`),
//     an unquoted value contains "<", ">" or a double quote (typically a
//     missing comma, as in `<a>; rel=next <b>`), or a quoted value is
//     followed by anything other than ";" or "," (`title="a"b`); parsing
//     resumes after the next comma that is not inside a quoted-string.
//
// Empty list elements (",,"), empty parameters (";;" or a trailing ";") and
// parameters without a value ("; foo") are accepted. Unquoted parameter
// values are taken up to the next ";" or "," with surrounding whitespace
// removed, as in RFC 8288 Appendix B.3. Targets are returned as written and
// are not resolved against any base URI. Extended parameters such as title*
// (RFC 8187) are kept verbatim under their own name, without decoding.
//
// Each header field value is parsed on its own, so a malformed value in one
// header never affects the links of another.
package linkheader

import (
	"strings"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// Link is one link-value of a Link header.
type Link struct {
	// URI is the link target exactly as written between "<" and ">". It is
	// not resolved against the request URI and may be relative.
	URI string
	// Rels holds the relation types of the first rel parameter, split on
	// whitespace and lower-cased (ASCII), so `rel="Next LAST"` gives
	// [next last]. It is nil if the link has no rel parameter or an empty
	// one. Every element is non-empty and contains no whitespace.
	Rels []string
	// Params holds the parameters other than rel, keyed by lower-cased
	// (ASCII) name, with quoted-string values unquoted and unquoted values
	// trimmed of surrounding whitespace. A parameter without a value maps
	// to "". When a name occurs more than once, the first occurrence wins
	// (RFC 8288 §3). Params is nil when there are no such parameters.
	Params map[string]string
}

// HasRel reports whether rel is one of l's relation types. The comparison is
// ASCII case-insensitive; an empty rel never matches.
func (l Link) HasRel(rel string) bool {
	if rel == "" {
		return false
	}
	for _, r := range l.Rels {
		if equalFold(r, rel) {
			return true
		}
	}
	return false
}

// equalFold reports whether a and b are equal under ASCII case folding.
// It does not allocate.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}

// Parse parses all Link header field values, such as those returned by
// http.Header.Values("Link"). Each value may hold several comma-separated
// link-values. Links are returned in the order they appear. Malformed
// link-values are skipped (see the package documentation); Parse never fails.
func Parse(values []string) []Link {
	var links []Link
	for _, v := range values {
		parseValue(v, true, func(r rawLink) bool {
			links = append(links, Link{URI: r.uri, Rels: splitRels(r.rel), Params: r.params})
			return true
		})
	}
	return links
}

// Find returns the URI of the first link, in the order Parse would return
// them, whose relation types contain rel (compared ASCII
// case-insensitively), and whether such a link was found.
// It stops parsing at the first match and does not allocate unless a
// quoted rel value contains backslash escapes.
func Find(values []string, rel string) (string, bool) {
	if rel == "" {
		return "", false
	}
	var uri string
	found := false
	for _, v := range values {
		parseValue(v, false, func(r rawLink) bool {
			for t := range strings.FieldsSeq(r.rel) {
				if equalFold(t, rel) {
					uri, found = r.uri, true
					return false
				}
			}
			return true
		})
		if found {
			return uri, true
		}
	}
	return "", false
}

// rawLink is a well-formed link-value before its rel value is split.
type rawLink struct {
	uri    string
	rel    string            // unquoted value of the first rel parameter
	params map[string]string // other parameters; only filled by a full parse
}

// parseValue parses one header field value and calls yield for every
// well-formed link-value in it, stopping early if yield returns false.
// Parameters other than rel are collected only if full is true.
func parseValue(s string, full bool, yield func(rawLink) bool) {
	i := 0
	for i < len(s) {
		i = skipOWS(s, i)
		if i == len(s) {
			return
		}
		if s[i] == ',' { // empty list element
			i++
			continue
		}
		l, next, ok := parseLink(s, i, full)
		if ok && !yield(l) {
			return
		}
		i = next
	}
}

// parseLink parses the link-value starting at s[i]. It returns the link, the
// offset at which parsing should continue and whether the link-value was
// well-formed. The returned offset is always greater than i. Parameters
// other than rel are collected only if full is true; well-formedness does
// not depend on full.
func parseLink(s string, i int, full bool) (l rawLink, next int, ok bool) {
	if s[i] != '<' {
		return rawLink{}, skipElement(s, i), false
	}
	start := i + 1
	end := strings.IndexByte(s[start:], '>')
	if end < 0 || strings.IndexByte(s[start:start+end], '<') >= 0 {
		// Missing ">": the target is unknown, resume after the next comma.
		return rawLink{}, afterComma(s, start), false
	}
	l.uri = s[start : start+end]
	i = start + end + 1

	relSeen := false
	for {
		i = skipOWS(s, i)
		if i == len(s) {
			return l, i, true
		}
		switch s[i] {
		case ',':
			return l, i + 1, true
		case ';':
			i++
		default:
			return rawLink{}, skipElement(s, i), false
		}

		// link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
		i = skipOWS(s, i)
		if i == len(s) || s[i] == ';' || s[i] == ',' {
			continue // empty parameter
		}
		nameStart := i
		for i < len(s) && s[i] != '=' && s[i] != ';' && s[i] != ',' {
			i++
		}
		name := trimOWS(s[nameStart:i])
		if !httpsyntax.IsToken(name) {
			return rawLink{}, skipElement(s, nameStart), false
		}
		name = asciiLower(name)

		value := ""
		if i < len(s) && s[i] == '=' {
			i = skipOWS(s, i+1)
			if i < len(s) && s[i] == '"' {
				v, n, terminated := unquote(s, i)
				if !terminated {
					return rawLink{}, afterComma(s, i+1), false
				}
				value, i = v, n
				// Only OWS may separate a quoted value from ";" or ",".
				if j := skipOWS(s, i); j < len(s) && s[j] != ';' && s[j] != ',' {
					return rawLink{}, skipElement(s, j), false
				}
			} else {
				vStart := i
				for i < len(s) && s[i] != ';' && s[i] != ',' {
					i++
				}
				value = trimOWS(s[vStart:i])
				// '<', '>' and '"' are never part of a token; seeing one
				// means a missing comma (`rel=next <b>`) or broken quoting.
				if strings.ContainsAny(value, `<>"`) {
					return rawLink{}, skipElement(s, vStart), false
				}
			}
		}

		if name == "rel" {
			if !relSeen { // later rel parameters are ignored (RFC 8288 §3.3)
				relSeen = true
				l.rel = value
			}
			continue
		}
		if !full {
			continue
		}
		if _, dup := l.params[name]; dup {
			continue // first occurrence wins
		}
		if l.params == nil {
			l.params = make(map[string]string)
		}
		l.params[name] = value
	}
}

// splitRels splits a rel parameter value into lower-cased relation types.
func splitRels(v string) []string {
	rels := strings.Fields(v)
	if len(rels) == 0 {
		return nil
	}
	for k, r := range rels {
		rels[k] = asciiLower(r)
	}
	return rels
}

// unquote parses the quoted-string starting with the double quote at s[i].
// It returns the unescaped content, the offset just after the closing quote
// and whether a closing quote was found.
func unquote(s string, i int) (string, int, bool) {
	i++ // opening quote
	start := i
	// Fast path: no escapes.
	for i < len(s) && s[i] != '"' && s[i] != '\\' {
		i++
	}
	if i == len(s) {
		return "", i, false
	}
	if s[i] == '"' {
		return s[start:i], i + 1, true
	}
	var b strings.Builder
	b.WriteString(s[start:i])
	for i < len(s) {
		switch c := s[i]; c {
		case '"':
			return b.String(), i + 1, true
		case '\\':
			if i+1 == len(s) {
				return "", len(s), false
			}
			b.WriteByte(s[i+1])
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", i, false
}

// skipElement returns the offset just after the next comma at or after s[i]
// that is not inside a terminated quoted-string, or len(s) if there is none.
// It always returns a value greater than i when i < len(s).
func skipElement(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ',':
			return i + 1
		case '"':
			if _, n, ok := unquote(s, i); ok {
				i = n
				continue
			}
			// An unterminated quote is treated as an ordinary character.
		}
		i++
	}
	return len(s)
}

// afterComma returns the offset just after the first comma at or after s[i],
// or len(s) if there is none.
func afterComma(s string, i int) int {
	if j := strings.IndexByte(s[i:], ','); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// isOWS reports whether c is optional whitespace (SP or HTAB, RFC 9110 §5.6.3).
func isOWS(c byte) bool { return c == ' ' || c == '\t' }

// skipOWS returns the offset of the first non-OWS byte at or after s[i].
func skipOWS(s string, i int) int {
	for i < len(s) && isOWS(s[i]) {
		i++
	}
	return i
}

// trimOWS removes leading and trailing OWS from s.
func trimOWS(s string) string {
	for len(s) > 0 && isOWS(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isOWS(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// asciiLower returns s with ASCII upper-case letters mapped to lower case.
// Other bytes, including non-ASCII ones, are left untouched. It does not
// allocate when s is already lower-case.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
