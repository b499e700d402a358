package linkheader

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	type P = map[string]string
	tests := []struct {
		name string
		in   []string
		want []Link
	}{
		{"nil", nil, nil},
		{"empty", []string{""}, nil},
		{"only whitespace and commas", []string{" \t, ,,\t"}, nil},
		{
			"single quoted rel",
			[]string{`<https://a/?page=2>; rel="next"`},
			[]Link{{URI: "https://a/?page=2", Rels: []string{"next"}}},
		},
		{
			"token rel",
			[]string{`<https://a/?page=2>;rel=next`},
			[]Link{{URI: "https://a/?page=2", Rels: []string{"next"}}},
		},
		{
			"upper-case name and value",
			[]string{`<https://a/2>; REL=NEXT`},
			[]Link{{URI: "https://a/2", Rels: []string{"next"}}},
		},
		{
			"several rels",
			[]string{`<https://a/9>; rel="next  Last"`},
			[]Link{{URI: "https://a/9", Rels: []string{"next", "last"}}},
		},
		{
			"several rels with tab and surrounding space",
			[]string{"<https://a/9>; rel=\" \tnext\tlast \""},
			[]Link{{URI: "https://a/9", Rels: []string{"next", "last"}}},
		},
		{
			"several links in one header",
			[]string{`<https://a/?page=2>; rel="next", <https://a/?page=9>; rel="last"`},
			[]Link{
				{URI: "https://a/?page=2", Rels: []string{"next"}},
				{URI: "https://a/?page=9", Rels: []string{"last"}},
			},
		},
		{
			"several headers",
			[]string{`<https://a/1>; rel=prev`, `<https://a/3>; rel=next, <https://a/1>; rel=first`},
			[]Link{
				{URI: "https://a/1", Rels: []string{"prev"}},
				{URI: "https://a/3", Rels: []string{"next"}},
				{URI: "https://a/1", Rels: []string{"first"}},
			},
		},
		{
			"whitespace everywhere",
			[]string{" \t< https://a/2 > \t ; \t rel \t = \t \"next\" \t ;\ttitle = x y \t , \t<b>;rel=last\t"},
			[]Link{
				{URI: " https://a/2 ", Rels: []string{"next"}, Params: P{"title": "x y"}},
				{URI: "b", Rels: []string{"last"}},
			},
		},
		{
			"quoted string with comma and semicolon",
			[]string{`<https://a/2>; title="a, b; c"; rel=next, <https://a/3>; rel=last`},
			[]Link{
				{URI: "https://a/2", Rels: []string{"next"}, Params: P{"title": "a, b; c"}},
				{URI: "https://a/3", Rels: []string{"last"}},
			},
		},
		{
			"quoted string with escapes",
			[]string{`<https://a/2>; title="say \"hi\", \\o/"; rel=next`},
			[]Link{{URI: "https://a/2", Rels: []string{"next"}, Params: P{"title": `say "hi", \o/`}}},
		},
		{
			"quoted string with escaped ordinary character",
			[]string{`<x>; title="\a\b"`},
			[]Link{{URI: "x", Params: P{"title": "ab"}}},
		},
		{
			"URI with comma and semicolon",
			[]string{`<https://a/?ids=1,2;v=3>; rel="next", <https://a/;x>; rel=last`},
			[]Link{
				{URI: "https://a/?ids=1,2;v=3", Rels: []string{"next"}},
				{URI: "https://a/;x", Rels: []string{"last"}},
			},
		},
		{
			"param without value",
			[]string{`<x>; foo; rel=next; BAR ; baz=`},
			[]Link{{URI: "x", Rels: []string{"next"}, Params: P{"foo": "", "bar": "", "baz": ""}}},
		},
		{
			"empty params",
			[]string{`<x>;; ;rel=next;`},
			[]Link{{URI: "x", Rels: []string{"next"}}},
		},
		{
			"no params",
			[]string{`<x>`, `<y> , <z>`},
			[]Link{{URI: "x"}, {URI: "y"}, {URI: "z"}},
		},
		{
			"empty URI",
			[]string{`<>; rel=self`},
			[]Link{{URI: "", Rels: []string{"self"}}},
		},
		{
			"first rel wins",
			[]string{`<x>; rel=next; rel=prev`},
			[]Link{{URI: "x", Rels: []string{"next"}}},
		},
		{
			"empty first rel wins",
			[]string{`<x>; rel=""; rel=prev`},
			[]Link{{URI: "x"}},
		},
		{
			"first param occurrence wins",
			[]string{`<x>; Title=one; title="two"; rel=next`},
			[]Link{{URI: "x", Rels: []string{"next"}, Params: P{"title": "one"}}},
		},
		{
			"extended param kept verbatim",
			[]string{`</TheBook/chapter2>; rel="previous"; title*=UTF-8'de'letztes%20Kapitel`},
			[]Link{{
				URI:    "/TheBook/chapter2",
				Rels:   []string{"previous"},
				Params: P{"title*": "UTF-8'de'letztes%20Kapitel"},
			}},
		},
		{
			"extension relation type and anchor",
			[]string{`<http://example.org/>; rel="start http://example.net/Relation/Other"; anchor="#foo"`},
			[]Link{{
				URI:    "http://example.org/",
				Rels:   []string{"start", "http://example.net/relation/other"},
				Params: P{"anchor": "#foo"},
			}},
		},
		{
			"link without rel is kept",
			[]string{`<x>; type="text/html"`},
			[]Link{{URI: "x", Params: P{"type": "text/html"}}},
		},

		// Malformed input.
		{
			"missing > at end",
			[]string{`<https://a/1>; rel=prev, <https://a/3; rel=next`},
			[]Link{{URI: "https://a/1", Rels: []string{"prev"}}},
		},
		{
			"missing > before another link",
			[]string{`<https://a/x; rel=prev, <https://a/3>; rel=next`},
			[]Link{{URI: "https://a/3", Rels: []string{"next"}}},
		},
		{
			"missing > with comma in URI",
			[]string{`<https://a/?q=1,2; rel=prev, <https://a/3>; rel=next`},
			[]Link{{URI: "https://a/3", Rels: []string{"next"}}},
		},
		{
			"unterminated quote at end",
			[]string{`<https://a/1>; rel=prev, <https://a/3>; rel="next`},
			[]Link{{URI: "https://a/1", Rels: []string{"prev"}}},
		},
		{
			"unterminated quote recovers at next comma",
			[]string{`<https://a/1>; title="oops, <https://a/3>; rel=next`},
			[]Link{{URI: "https://a/3", Rels: []string{"next"}}},
		},
		{
			"unterminated quote ending in backslash",
			[]string{`<x>; title="a\`},
			nil,
		},
		{
			"not starting with <",
			[]string{`https://a/1; rel=prev, <https://a/3>; rel=next`},
			[]Link{{URI: "https://a/3", Rels: []string{"next"}}},
		},
		{
			"garbage with quoted comma",
			[]string{`junk; title="a, <b>; rel=next", <c>; rel=last`},
			[]Link{{URI: "c", Rels: []string{"last"}}},
		},
		{
			"junk between URI and params",
			[]string{`<a> junk; rel=next, <b>; rel=last`},
			[]Link{{URI: "b", Rels: []string{"last"}}},
		},
		{
			"junk after quoted value",
			[]string{`<a>; title="t"x; rel=next, <b>; rel=last`},
			[]Link{{URI: "b", Rels: []string{"last"}}},
		},
		{
			"invalid param name",
			[]string{`<a>; "rel"=next, <b>; re l=next, <c>; =x, <d>; rel=last`},
			[]Link{{URI: "d", Rels: []string{"last"}}},
		},
		{
			"missing comma between links",
			[]string{`<a>; rel=next <b>; rel=last, <c>; rel=first`},
			[]Link{{URI: "c", Rels: []string{"first"}}},
		},
		{
			"malformed header does not affect the next header",
			[]string{`<a>; title="unterminated, <b>`, `<c>; rel=next`},
			[]Link{{URI: "b"}, {URI: "c", Rels: []string{"next"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Parse(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q)\n got %#v\nwant %#v", tt.in, got, tt.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	github := []string{
		`<https://api.github.com/repositories/1/issues?page=2>; rel="next", ` +
			`<https://api.github.com/repositories/1/issues?page=5>; rel="last"`,
		`<https://api.github.com/repositories/1/issues?page=1>; rel="first prev"`,
	}
	tests := []struct {
		name   string
		values []string
		rel    string
		want   string
		wantOK bool
	}{
		{"next", github, "next", "https://api.github.com/repositories/1/issues?page=2", true},
		{"last", github, "last", "https://api.github.com/repositories/1/issues?page=5", true},
		{"second header, second rel", github, "prev", "https://api.github.com/repositories/1/issues?page=1", true},
		{"case-insensitive query", github, "NeXt", "https://api.github.com/repositories/1/issues?page=2", true},
		{"absent", github, "self", "", false},
		{"empty rel", github, "", "", false},
		{"no headers", nil, "next", "", false},
		{"first match wins", []string{`<a>; rel=next`, `<b>; rel=next`}, "next", "a", true},
		{"skips malformed", []string{`<a; rel=next, <b>; rel=next`}, "next", "b", true},
		{"rel is not a substring match", []string{`<a>; rel=nextpage`}, "next", "", false},
		{"only rel counts, not other params", []string{`<a>; title=next`}, "next", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Find(tt.values, tt.rel)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Find(%q, %q) = %q, %v; want %q, %v", tt.values, tt.rel, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestHasRel(t *testing.T) {
	t.Parallel()
	l := Link{URI: "x", Rels: []string{"next", "last"}}
	tests := []struct {
		rel  string
		want bool
	}{
		{"next", true},
		{"LAST", true},
		{"Next", true},
		{"nex", false},
		{"", false},
		{"prev", false},
	}
	for _, tt := range tests {
		if got := l.HasRel(tt.rel); got != tt.want {
			t.Errorf("HasRel(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

func TestFindDoesNotAllocate(t *testing.T) {
	values := []string{`<https://a/?page=2>; rel="next", <https://a/?page=9>; rel="last"`}
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := Find(values, "LAST"); !ok {
			t.Fatal("not found")
		}
	})
	if allocs > 0 {
		t.Errorf("Find allocated %v times per run, want 0", allocs)
	}
}

var benchValues = []string{
	`<https://api.example.com/v1/items?cursor=eyJpZCI6MTIzNDV9&per_page=100>; rel="next", ` +
		`<https://api.example.com/v1/items?cursor=eyJpZCI6MX0&per_page=100>; rel="prev", ` +
		`<https://api.example.com/v1/items?per_page=100>; rel="first", ` +
		`<https://api.example.com/v1/items?page=42&per_page=100>; rel="last"; title="Last page, finally"`,
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if len(Parse(benchValues)) != 4 {
			b.Fatal("wrong number of links")
		}
	}
}

func BenchmarkFind(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Find(benchValues, "last"); !ok {
			b.Fatal("not found")
		}
	}
}
