package safetext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzComment: whatever the text, Comment gives one line a // comment can
// hold, and leaves alone what needs no change.
func FuzzComment(f *testing.F) {
	for _, p := range payloads {
		f.Add("a" + p + "b")
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Comment(s)
		if !commentSafe(got) {
			t.Fatalf("Comment(%q) = %q: not one safe line", s, got)
		}
		if Comment(got) != got {
			t.Fatalf("Comment(%q) = %q, and Comment of that is %q", s, got, Comment(got))
		}
		if commentSafe(s) && got != s {
			t.Fatalf("Comment(%q) = %q, changing a safe text", s, got)
		}
		term := Terminal(s)
		for _, r := range term {
			if !unicode.IsPrint(r) {
				t.Fatalf("Terminal(%q) = %q: holds %U", s, term, r)
			}
		}
		if !utf8.ValidString(term) {
			t.Fatalf("Terminal(%q) = %q: not UTF-8", s, term)
		}
	})
}

// FuzzGenerateArgs: go generate reads back every argument GenerateArgs
// writes, whatever it holds.
func FuzzGenerateArgs(f *testing.F) {
	for _, p := range payloads {
		f.Add("a"+p+"b", p)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		line := "//go:generate go " + GenerateArgs(a, b) + "\n"
		if strings.Count(line, "\n") != 1 || strings.Contains(line, "\r") {
			t.Fatalf("GenerateArgs(%q, %q): a line break in %q", a, b, line)
		}
		got, err := generateSplit(line)
		if err != nil || len(got) != 3 || got[1] != a || got[2] != b {
			t.Fatalf("GenerateArgs(%q, %q) = %q, which go generate reads as %q (%v)", a, b, line, got, err)
		}
	})
}
