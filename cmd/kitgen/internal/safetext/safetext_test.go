package safetext

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// payloads are the texts that break out of a comment, a string or a
// go:generate argument, or that Go, gofmt or an editor reads specially.
var payloads = []string{
	"\n", "\r", "\u0085", "\u2028", "\u2029", "*/", "`", "\x00", "\"", "\\",
	"\ufeff", "\u202e", "\u2066", "\x1b[31m", "\xff", "\t", "\v", "\f", "$HOME", "${DOLLAR}",
	"x\nfunc init() { panic(1) }\n//", "x\r\npackage main", "\n//go:generate rm -rf /\n", "\n//line a.go:1\n",
	"\n// +build ignore\n", "a b", "",
}

func TestCommentIsOneSafeLine(t *testing.T) {
	for _, p := range payloads {
		for _, s := range []string{p, "a" + p + "b", p + p} {
			got := Comment(s)
			if !commentSafe(got) {
				t.Errorf("Comment(%q) = %q: not one safe line", s, got)
			}
		}
	}
	// Text without anything to remove is kept as it is.
	for _, s := range []string{"Returns the user's name (see *Pet).", "Größe – 名前 ✓", "*/ and `x`"} {
		if got := Comment(s); got != s {
			t.Errorf("Comment(%q) = %q, want it unchanged", s, got)
		}
	}
	// Line breaks are spaces; the rest of what is removed is dropped.
	if got, want := Comment("a\nb\u2028c\x00d\u202ee"), "a b cde"; got != want {
		t.Errorf("Comment = %q, want %q", got, want)
	}
}

// commentSafe reports whether s can follow "// " on one line of Go that
// gofmt accepts and an editor shows as the compiler reads it.
func commentSafe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r == ' ' {
			continue
		}
		if unicode.IsControl(r) || unicode.IsSpace(r) || r == '\ufeff' || bidi(r) {
			return false
		}
	}
	return true
}

func TestTerminalEscapes(t *testing.T) {
	for _, p := range payloads {
		got := Terminal("a" + p + "b")
		if !utf8.ValidString(got) {
			t.Errorf("Terminal(%q) = %q: not UTF-8", p, got)
		}
		for _, r := range got {
			if !unicode.IsPrint(r) {
				t.Errorf("Terminal(%q) = %q: holds %U", p, got, r)
			}
		}
	}
	if got, want := Terminal("a\nb\x00\u2028\xff é"), `a\nb\x00\u2028\xff é`; got != want {
		t.Errorf("Terminal = %q, want %q", got, want)
	}
}

func TestGenerateArgsRoundTrip(t *testing.T) {
	var args []string
	for _, p := range payloads {
		args = append(args, p, "a"+p+"b", "-"+p)
	}
	args = append(args, "spec.yaml", "my spec.yaml", `C:\api\spec.yaml`, "https://h/x?a=1&b=$c", "get*,list*", "é")
	for _, a := range args {
		line := "//go:generate go tool kitgen " + GenerateArgs(a)
		if strings.ContainsAny(line, "\n\r") {
			t.Errorf("GenerateArgs(%q): a line break in %q", a, line)
			continue
		}
		got, err := generateSplit(line + "\n")
		if err != nil || len(got) != 4 || got[3] != a {
			t.Errorf("GenerateArgs(%q) = %q, which go generate reads as %q (%v)", a, line, got, err)
		}
	}
	// Plain arguments are written as they are: go:generate lines stay readable.
	if got, want := GenerateArgs("-package", "api", "-ops", "get*,list*", "spec.yaml"), "-package api -ops get*,list* spec.yaml"; got != want {
		t.Errorf("GenerateArgs = %q, want %q", got, want)
	}
}

// generateSplit is go generate's reading of a //go:generate line (cmd/go's
// (*Generator).split, Go 1.26): space-separated words or double-quoted Go
// strings, then $NAME and ${NAME} expanded in each, with $DOLLAR a dollar.
func generateSplit(line string) ([]string, error) {
	var words []string
	line = line[len("//go:generate ") : len(line)-1]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
Words:
	for {
		line = strings.TrimLeft(line, " \t")
		if len(line) == 0 {
			break
		}
		if line[0] == '"' {
			for i := 1; i < len(line); i++ {
				switch line[i] {
				case '\\':
					if i+1 == len(line) {
						return nil, errorString("bad backslash")
					}
					i++
				case '"':
					word, err := strconv.Unquote(line[0 : i+1])
					if err != nil {
						return nil, errorString("bad quoted string")
					}
					words = append(words, word)
					line = line[i+1:]
					if len(line) > 0 && line[0] != ' ' && line[0] != '\t' {
						return nil, errorString("expect space after quoted argument")
					}
					continue Words
				}
			}
			return nil, errorString("mismatched quoted string")
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		words = append(words, line[0:i])
		line = line[i:]
	}
	for i, word := range words {
		words[i] = os.Expand(word, func(name string) string {
			if name == "DOLLAR" {
				return "$"
			}
			return "<$" + name + ">" // any other variable is the environment's
		})
	}
	return words, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }
