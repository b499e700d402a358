package pathtmpl

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// fuzzTemplateLiterals splits the path of a template that parsed into its
// literal runs, as written (before escaping), dropping empty runs: the
// literal parts of the parsed template, in order.
func fuzzTemplateLiterals(raw string) []string {
	path, _, _ := strings.Cut(raw, "?")
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	var lits []string
	for {
		open := strings.IndexByte(path, '{')
		if open < 0 {
			if path != "" {
				lits = append(lits, path)
			}
			return lits
		}
		if open > 0 {
			lits = append(lits, path[:open])
		}
		end := strings.IndexByte(path[open:], '}')
		path = path[open+end+1:]
	}
}

// FuzzPathTemplate checks that any template either fails to parse or
// expands, for any placeholder values, to a URL whose placeholders each fill
// exactly their own escaped text (no '/', '?' or '#' injected, no dot
// segment made), and whose literal parts are the template's.
func FuzzPathTemplate(f *testing.F) {
	for _, s := range [][4]string{
		{"/users/{id}", "42", "", ""},
		{"/teams/{team}/users/{id}?kind=x", "a/b", "../..", ""},
		{"users/{id}/posts/{post}", "?q=1", "#frag", ""},
		{"/a/{x}{y}/b", ".", ".", "z"},
		{"/files/{path}.json", "%2F..%2F", "é", ""},
		{"/{a}/{b}/{a}", "x", "y", ""},
		{"/a%20b/{x}", "c d", "", ""},
		{"/bad%zz/{x}", "1", "", ""},
		{"/{x", "1", "", ""},
		{"/x}/{y}", "1", "", ""},
		{"/{x}?q={y}", "1", "2", ""},
		{"//host/{x}", "\x00\xff", "", ""},
		{"/repos/{o}/contents/{path...}", "a/b", "docs/a b/../c", ""},
		{"/f/{p...}", "x/./y", "", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	const prefix = "http://example.com/api"
	f.Fuzz(func(t *testing.T, raw, v0, v1, v2 string) {
		tmpl, err := Parse(raw)
		if err != nil {
			return
		}
		given := []string{v0, v1, v2}
		names := tmpl.Placeholders
		vals := make([]string, len(names))
		for i := range names {
			vals[i] = given[i%len(given)]
		}
		var b strings.Builder
		b.WriteString(prefix)
		err = tmpl.Expand(&b, names, vals)
		badValue := func(v string) bool { return v == "" || v == "." || v == ".." }
		bad := false
		for _, p := range tmpl.Parts {
			if p.Name == "" {
				continue
			}
			v := vals[slices.Index(names, p.Name)]
			if p.Rest {
				bad = bad || slices.ContainsFunc(strings.Split(v, "/"), badValue)
			} else {
				bad = bad || badValue(v)
			}
		}
		if err != nil {
			if !bad {
				t.Fatalf("expand(%q, %q) = %v; want success", raw, vals, err)
			}
			return
		}
		if bad {
			t.Fatalf("expand(%q, %q) = %q; want an error for an empty or dot value", raw, vals, b.String())
		}
		out := b.String()
		u, err := url.Parse(out)
		if err != nil {
			t.Fatalf("expand(%q, %q) = %q, which url.Parse rejects: %v", raw, vals, out, err)
		}
		if u.Host != "example.com" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery || strings.ContainsAny(out, "?#") {
			t.Fatalf("expand(%q, %q) = %q: host %q, query %q, fragment %q", raw, vals, out, u.Host, u.RawQuery, u.Fragment)
		}
		path := strings.TrimPrefix(out, "http://example.com")
		if got := u.EscapedPath(); got != path {
			t.Fatalf("expand(%q, %q) = %q: url.Parse reads path %q", raw, vals, out, got)
		}

		// Walk the output part by part.
		rest := strings.TrimPrefix(out, prefix)
		fromValue := make([]bool, 0, len(rest)) // per byte: written for a placeholder
		lits := fuzzTemplateLiterals(raw)
		li := 0
		for _, p := range tmpl.Parts {
			if p.Name == "" {
				if li >= len(lits) {
					t.Fatalf("template %q: more literal parts than literals %q", raw, lits)
				}
				lit := lits[li]
				li++
				if !strings.HasPrefix(rest, p.Literal) {
					t.Fatalf("template %q: output %q lacks literal %q", raw, rest, p.Literal)
				}
				for i := 0; i < len(p.Literal); i++ {
					if c := p.Literal[i]; c != '%' && !IsPathByte(c) {
						t.Fatalf("template %q: literal %q holds unescaped %q", raw, p.Literal, c)
					}
				}
				got, err1 := url.PathUnescape(p.Literal)
				want, err2 := url.PathUnescape(lit)
				if err1 != nil || err2 != nil || got != want {
					t.Fatalf("template %q: literal %q escaped to %q (%q, %v; want %q, %v)", raw, lit, p.Literal, got, err1, want, err2)
				}
				rest = rest[len(p.Literal):]
				for range p.Literal {
					fromValue = append(fromValue, false)
				}
				continue
			}
			v := vals[slices.Index(names, p.Name)]
			esc := url.PathEscape(v)
			leaves := "/?#"
			if p.Rest { // {name...}: slashes stay, each segment escaped
				segs := strings.Split(v, "/")
				for i, seg := range segs {
					segs[i] = url.PathEscape(seg)
				}
				esc, leaves = strings.Join(segs, "/"), "?#"
			}
			if !strings.HasPrefix(rest, esc) {
				t.Fatalf("template %q: output %q lacks {%s} = %q escaped", raw, rest, p.Name, v)
			}
			if strings.ContainsAny(esc, leaves) {
				t.Fatalf("template %q: {%s} = %q escapes to %q, which leaves its segment", raw, p.Name, v, esc)
			}
			if back, err := url.PathUnescape(esc); err != nil || back != v {
				t.Fatalf("template %q: {%s} = %q escaped to %q unescapes to %q, %v", raw, p.Name, v, esc, back, err)
			}
			rest = rest[len(esc):]
			for range esc {
				fromValue = append(fromValue, true)
			}
		}
		if rest != "" || li != len(lits) {
			t.Fatalf("template %q: output has %q left over, %d of %d literals used", raw, rest, li, len(lits))
		}
		// No segment holding a placeholder value is a dot segment.
		full := strings.TrimPrefix(out, prefix)
		start := 0
		for i := 0; i <= len(full); i++ {
			if i < len(full) && full[i] != '/' {
				continue
			}
			seg := full[start:i]
			if slices.Contains(fromValue[start:i], true) {
				if s, _ := url.PathUnescape(seg); s == "." || s == ".." || seg == "." || seg == ".." {
					t.Fatalf("template %q with %q: placeholder segment %q is a dot segment", raw, vals, seg)
				}
			}
			start = i + 1
		}
	})
}
