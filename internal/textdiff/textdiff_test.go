package textdiff

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	if got := Lines("a\nb", "a\nb"); got != "(equal)" {
		t.Errorf("equal texts: %q", got)
	}
	if got, want := Lines("a\nb\nc", "a\nx"), "line 2:\n  want: b\n  got:  x\nline 3:\n  want: c\n  got:  \n"; got != want {
		t.Errorf("Lines = %q, want %q", got, want)
	}
	many := Lines(strings.Repeat("a\n", 12), strings.Repeat("b\n", 12))
	if strings.Count(many, "line ") != 10 || !strings.HasSuffix(many, "(and 2 more differing lines)\n") {
		t.Errorf("12 differing lines: %s", many)
	}
}
