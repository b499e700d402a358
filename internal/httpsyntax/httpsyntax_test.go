package httpsyntax

import (
	"strings"
	"testing"
)

func TestIsToken(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"GET", true},
		{"X-Request-Id", true},
		{"!#$%&'*+-.^_`|~09azAZ", true},
		{"", false},
		{"X Id", false},
		{"X:Id", false},
		{"X\tId", false},
		{"Ünïcode", false},
		{"a\x7f", false},
		{`"quoted"`, false},
	} {
		if got := IsToken(tc.s); got != tc.want {
			t.Errorf("IsToken(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
	// Every byte against RFC 9110's definition by exclusion: a visible
	// ASCII character that is not a delimiter.
	for c := 0; c < 256; c++ {
		want := c > ' ' && c < 0x7f && !strings.ContainsRune("\"(),/:;<=>?@[\\]{}", rune(c))
		if got := IsTchar(byte(c)); got != want {
			t.Errorf("IsTchar(%#x) = %v, want %v", c, got, want)
		}
	}
}

func TestIndexControl(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", -1},
		{"plain value", -1},
		{"tab\tis fine", -1},
		{"Ünïcode is fine", -1},
		{"token\n", 5},
		{"a\rb", 1},
		{"\x00", 0},
		{"del\x7f", 3},
	} {
		if got := IndexControl(tc.s); got != tc.want {
			t.Errorf("IndexControl(%q) = %d, want %d", tc.s, got, tc.want)
		}
		if got := HasControl(tc.s); got != (tc.want >= 0) {
			t.Errorf("HasControl(%q) = %v", tc.s, got)
		}
	}
}
