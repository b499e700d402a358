package linkheader

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// FuzzParse checks invariants of Parse and Find on arbitrary header values:
// no panic, well-formed Rels and Params, Find agreeing with Parse, and
// re-serialising the parsed links giving back the same links.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`<https://a/?page=2>; rel="next"`,
		`<https://a/?page=2>; rel=next, <https://a/?page=9>; rel="last"`,
		`<https://a/?ids=1,2;v=3>; REL="Next Last"; title="a, b; \"c\""`,
		`<x>; foo; rel=next;; bar= ; title*=UTF-8'de'n%c3%a4chstes`,
		`<https://a/x; rel=prev, <https://a/3>; rel=next`,
		`<https://a/1>; title="oops, <https://a/3>; rel=next`,
		`junk; title="a, <b>", <c>; rel=last`,
		"\t< a >\t;\trel\t=\t\"\tnext\t\"\t,",
		`<a>; rel=next <b>; rel=last, <c>; rel=first`,
		`<a>; title="a\`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		values := []string{s}
		links := Parse(values)
		for _, l := range links {
			if strings.Contains(l.URI, "<") || strings.Contains(l.URI, ">") {
				t.Errorf("URI %q contains an angle bracket", l.URI)
			}
			if l.Rels != nil && len(l.Rels) == 0 {
				t.Errorf("Rels is empty but not nil")
			}
			for _, r := range l.Rels {
				if r == "" {
					t.Errorf("empty rel in %q", l.Rels)
				}
				if r != asciiLower(r) {
					t.Errorf("rel %q is not lower-case", r)
				}
				if strings.ContainsFunc(r, unicode.IsSpace) {
					t.Errorf("rel %q contains whitespace", r)
				}
			}
			if l.Params != nil && len(l.Params) == 0 {
				t.Errorf("Params is empty but not nil")
			}
			for k := range l.Params {
				if k == "rel" || !httpsyntax.IsToken(k) || k != asciiLower(k) {
					t.Errorf("bad param name %q", k)
				}
			}
		}

		// Find agrees with Parse, for every rel and an upper-cased variant.
		for _, l := range links {
			for _, r := range l.Rels {
				want := ""
				for _, m := range links {
					if m.HasRel(r) {
						want = m.URI
						break
					}
				}
				for _, q := range []string{r, asciiUpper(r)} {
					got, ok := Find(values, q)
					if !ok || got != want {
						t.Errorf("Find(%q) = %q, %v; want %q, true", q, got, ok, want)
					}
				}
			}
		}
		if _, ok := Find(values, "next last"); ok {
			t.Errorf("Find matched a rel containing whitespace")
		}

		// Round trip: serialising the links canonically and parsing again
		// gives the same links.
		if len(links) > 0 {
			if got := Parse([]string{format(links)}); !reflect.DeepEqual(got, links) {
				t.Errorf("round trip of %q via %q\n got %#v\nwant %#v", s, format(links), got, links)
			}
		}
	})
}

// format serialises links as a canonical Link header value.
func format(links []Link) string {
	var b strings.Builder
	for i, l := range links {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("<" + l.URI + ">")
		if l.Rels != nil {
			b.WriteString("; rel=" + quote(strings.Join(l.Rels, " ")))
		}
		for k, v := range l.Params {
			b.WriteString("; " + k + "=" + quote(v))
		}
	}
	return b.String()
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// asciiUpper maps ASCII lower-case letters to upper case, leaving other
// bytes untouched (strings.ToUpper would replace invalid UTF-8).
func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}
