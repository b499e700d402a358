package kit

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzRedactPath checks CallInfo.URL's path redaction on any template and
// path: it never panics, keeps the number of segments, and replaces exactly
// the segments that fill a secret-looking placeholder when the template's
// segments line up with the path's.
func FuzzRedactPath(f *testing.F) {
	f.Add("/hooks/{token}/items/{id}", "sk_live_1", "7")
	f.Add("/files/{name}.{sig}", "report", "abc")
	f.Add("https://uploads.example.com/v1/{api_key}?x=1", "k", "")
	f.Add("/{a}/{b}", "", "%2F")
	f.Add("/users/{id}", "{token}", "..")
	f.Fuzz(func(t *testing.T, template, v1, v2 string) {
		// Fill the placeholders in order with v1, v2, v1, ...
		vals := []string{v1, v2}
		var b strings.Builder
		tmpl, _, _ := strings.Cut(template, "?")
		if i := strings.Index(tmpl, "://"); i >= 0 {
			j := strings.IndexByte(tmpl[i+3:], '/')
			if j < 0 {
				return
			}
			tmpl = tmpl[i+3+j:]
		}
		n := 0
		for rest := tmpl; rest != ""; {
			before, after, ok := strings.Cut(rest, "{")
			b.WriteString(before)
			if !ok {
				break
			}
			_, tail, ok := strings.Cut(after, "}")
			if !ok {
				b.WriteString("{" + after)
				break
			}
			b.WriteString(url.PathEscape(vals[n%2]))
			n++
			rest = tail
		}
		p := "/base" + b.String()
		got, changed := redactPath(template, p)
		if !changed {
			if got != "" {
				t.Fatalf("unchanged, but returned %q", got)
			}
			return
		}
		want := len(strings.Split(strings.Trim(p, "/"), "/"))
		if segs := len(strings.Split(strings.Trim(got, "/"), "/")); segs != want {
			t.Fatalf("redactPath(%q, %q) = %q: %d segments, want %d", template, p, got, segs, want)
		}
		if !strings.Contains(got, "REDACTED") {
			t.Fatalf("redactPath(%q, %q) = %q: changed without REDACTED", template, p, got)
		}
	})
}
