// Package httpsyntax holds the HTTP syntax checks that kit and kitgen
// share, so that both accept exactly the same header names, methods and
// header values: one definition of each rule.
package httpsyntax

import "strings"

// IsToken reports whether s is an HTTP token (RFC 9110 section 5.6.2), as
// header field names and methods are: one or more tchars.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !IsTchar(s[i]) {
			return false
		}
	}
	return true
}

// IsTchar reports whether c is a token character (RFC 9110 section
// 5.6.2): a letter, a digit, or one of !#$%&'*+-.^_`|~.
func IsTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// HasControl reports whether s has a byte that may not appear in a header
// value: a control character other than tab (CR and LF among them).
func HasControl(s string) bool { return IndexControl(s) >= 0 }

// IndexControl returns the index of the first byte of s that may not
// appear in a header value (a control character other than tab), or -1.
func IndexControl(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return i
		}
	}
	return -1
}
