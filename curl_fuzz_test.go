package kit

import (
	"strings"
	"testing"
)

// FuzzShellQuote checks that every string comes back whole from a POSIX
// shell's reading of its quoted form: one word, no byte interpreted.
func FuzzShellQuote(f *testing.F) {
	for _, s := range []string{"", "a", "it's", "'", "''", "$(rm -rf /)", "`id`", "a b", "\n", "\\'", "x=1", "~", "*", "%s", "é", "-H"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := shellQuote(s)
		got, ok := shellWord(q)
		if !ok || got != s {
			t.Fatalf("shellQuote(%q) = %s, which a shell reads as %q (one word: %v)", s, q, got, ok)
		}
	})
}

// shellWord reads w as a POSIX shell reads one word made of unquoted safe
// bytes, single-quoted runs and backslash-escaped bytes; ok is false when
// w holds anything else a shell would interpret (spaces, $, `, globs, ...).
func shellWord(w string) (string, bool) {
	if w == "" {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(w); {
		switch c := w[i]; {
		case c == '\'':
			j := strings.IndexByte(w[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(w[i+1 : i+1+j])
			i += j + 2
		case c == '\\':
			if i+1 >= len(w) {
				return "", false
			}
			b.WriteByte(w[i+1])
			i += 2
		case strings.IndexByte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,+@%", c) >= 0:
			b.WriteByte(c)
			i++
		default:
			return "", false
		}
	}
	return b.String(), true
}
