// Package safetext makes text kitgen does not control (an OpenAPI
// document's, a file's name, a flag's value) safe for the place it is
// written to: a // comment of generated Go (Comment), a //go:generate line
// (GenerateArgs), a terminal (Terminal). A string literal needs nothing
// from here: strconv.Quote (%q) writes any text as a Go string that holds
// it exactly.
package safetext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Comment returns s as the text of one // comment line: every line break
// and other space (\n, \r, \t, \v, \f, NEL, U+2028, U+2029, no-break and
// wide spaces) is a plain space, so that nothing after it is read as code
// or as a directive; every other control character (C0, DEL, C1), the
// byte order mark, the bidirectional controls (with which an editor shows
// text in another order than the compiler reads it) and invalid UTF-8 are
// dropped. NUL, a byte order mark and invalid UTF-8 are also what gofmt
// refuses in a source file.
func Comment(s string) string {
	if safe(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], string(utf8.RuneError)):
			// invalid UTF-8: dropped
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case drop(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// safe reports whether Comment leaves s as it is.
func safe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != ' ' && (unicode.IsSpace(r) || drop(r)) {
			return false
		}
	}
	return true
}

// drop reports whether Comment drops r: a control character, the byte
// order mark, a bidirectional control.
func drop(r rune) bool {
	return unicode.IsControl(r) || r == '\ufeff' || bidi(r)
}

// bidi reports whether r is one of Unicode's bidirectional formatting
// characters (the "Trojan Source" ones, CVE-2021-42574).
func bidi(r rune) bool {
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e':
		return true
	case r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// Terminal returns s for a message on a terminal: every character that is
// not printable (a line break, a control, an escape sequence's ESC, a
// bidirectional control, a byte that is not UTF-8) is written as its Go
// escape (\n, \x1b, \u202e, \xff), so that a message is one line that
// shows what the text holds.
func Terminal(s string) string {
	printable := utf8.ValidString(s)
	for _, r := range s {
		printable = printable && unicode.IsPrint(r)
	}
	if printable {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x` + strconv.FormatUint(uint64(s[i])>>4, 16) + strconv.FormatUint(uint64(s[i])&0xf, 16))
		case unicode.IsPrint(r):
			b.WriteRune(r)
		default:
			q := strconv.QuoteRune(r) // '\n', '\x00', '\u2028'
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// GenerateArgs returns args as the arguments of a //go:generate line, so
// that go generate gives the command exactly args: an argument that go
// generate would split, unquote or expand (a space, a quote, a backslash,
// a $, anything but printable ASCII, or the empty argument) is written as
// a double-quoted Go string, its $ as ${DOLLAR} (go generate expands $NAME
// inside quotes too). Others are written as they are.
func GenerateArgs(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = generateArg(a)
	}
	return strings.Join(out, " ")
}

func generateArg(a string) string {
	plain := a != ""
	for i := 0; i < len(a) && plain; i++ {
		c := a[i]
		plain = c > ' ' && c < 0x7f && c != '"' && c != '\\' && c != '$' && c != '\''
	}
	if plain {
		return a
	}
	return strconv.Quote(strings.ReplaceAll(a, "$", "${DOLLAR}"))
}
