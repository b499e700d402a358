package httpsyntax

import (
	"strconv"
	"strings"
)

// ParseContentRange parses the Content-Range of a 206 response with one
// part (RFC 9110 section 14.4): "bytes first-last/complete", where
// complete is a length or "*" (unknown: -1). ok is false for anything
// else: another unit, an unsatisfied range ("bytes */complete"), a last
// before first, a complete length not past last, or numbers that do not
// fit an int64.
func ParseContentRange(s string) (first, last, complete int64, ok bool) {
	s = strings.TrimSpace(s)
	unit, rest, found := strings.Cut(s, " ")
	if !found || !strings.EqualFold(unit, "bytes") {
		return 0, 0, 0, false
	}
	rest = strings.TrimLeft(rest, " ")
	span, length, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	a, b, found := strings.Cut(span, "-")
	if !found {
		return 0, 0, 0, false
	}
	var okA, okB bool
	first, okA = digits(a)
	last, okB = digits(b)
	if !okA || !okB || last < first {
		return 0, 0, 0, false
	}
	if length == "*" {
		return first, last, -1, true
	}
	complete, ok = digits(length)
	if !ok || complete <= last {
		return 0, 0, 0, false
	}
	return first, last, complete, true
}

// digits parses a non-empty run of ASCII digits that fits an int64.
func digits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
