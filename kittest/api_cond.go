package kittest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// writeCacheable writes v as a 200 JSON response with a strong ETag, the
// quoted hex of the first 8 bytes of the SHA-256 of the exact body. If the
// request's If-None-Match matches that ETag it writes a 304 Not Modified
// with the ETag and no body instead, and counts it in Stats.NotModified.
func (a *API) writeCacheable(w http.ResponseWriter, r *http.Request, v any) {
	body, ok := apiEncodeJSON(v)
	if !ok {
		apiWriteBody(w, http.StatusInternalServerError, body)
		return
	}
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if apiNoneMatch(r.Header.Values("If-None-Match"), etag) {
		a.mu.Lock()
		a.stats.NotModified++
		a.mu.Unlock()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	apiWriteBody(w, http.StatusOK, body)
}

// apiNoneMatch reports whether the If-None-Match field lines match etag:
// the field is "*" or lists an entity tag weakly equal to etag (RFC 9110
// §8.8.3.2: the opaque tags are equal, whatever their W/ prefixes). A field
// that is malformed anywhere matches nothing, so it never causes a 304.
func apiNoneMatch(lines []string, etag string) bool {
	match := false
	for _, s := range lines {
		for {
			s = strings.TrimLeft(s, " \t")
			if s == "" {
				break
			}
			if s[0] == ',' { // empty list elements are allowed
				s = s[1:]
				continue
			}
			var tag string
			if s[0] == '*' {
				tag, s = "*", s[1:]
			} else {
				var ok bool
				if tag, s, ok = apiScanETag(s); !ok {
					return false
				}
			}
			s = strings.TrimLeft(s, " \t")
			if s != "" && s[0] != ',' {
				return false
			}
			if tag == "*" || apiWeakETag(tag) == apiWeakETag(etag) {
				match = true
			}
		}
	}
	return match
}

// apiScanETag scans the entity tag at the start of s, [W/]"<etagc>*", and
// returns it and the rest of s.
func apiScanETag(s string) (tag, rest string, ok bool) {
	start := 0
	if strings.HasPrefix(s, "W/") {
		start = 2
	}
	if len(s) < start+2 || s[start] != '"' {
		return "", "", false
	}
	for i := start + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i+1], s[i+1:], true
		case c == 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80: // etagc
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// apiWeakETag returns tag's opaque part, for weak comparison.
func apiWeakETag(tag string) string {
	return strings.TrimPrefix(tag, "W/")
}
