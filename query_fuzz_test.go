package kit

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// fuzzInner and fuzzObject are a nested query object.
type fuzzInner struct {
	V string `json:"v"`
}

type fuzzObject struct {
	Name  string     `json:"name,omitempty"`
	Tags  []string   `json:"tags,omitempty"`
	Inner *fuzzInner `json:"inner,omitempty"`
}

// fuzzObjectParams has a map and a struct sent in brackets under their
// names (OpenAPI's deepObject), beside a plain parameter.
type fuzzObjectParams struct {
	Meta map[string]string `kit:"meta,query"`
	Obj  *fuzzObject       `kit:"obj,query"`
	Q    string
}

// FuzzQueryObject routes arbitrary keys and values of query objects and
// checks that the URL's query parses back to exactly meta[k]=v,
// obj[name]=..., obj[tags]=... (repeated), obj[inner][v]=... and q; a map
// key that is empty or holds a bracket is an error, and nothing else is.
func FuzzQueryObject(f *testing.F) {
	f.Add("order", "6735", "team", "a b", "ann", "x,y", true, "in", "q")
	f.Add("", "v", "k", "", "", "", false, "", "")
	f.Add("a[b", "1", "c]", "2", "&=?", ",", true, "%zz", "+")
	f.Add("é", "\xff", "k=v", "#", "\x00", "a,,b", true, "\r\n", "%41")
	d, err := newEndpointDecl("GET", "/objects", reflect.TypeFor[fuzzObjectParams](), reflect.TypeFor[any](), nil)
	if err != nil {
		f.Fatal(err)
	}
	st, err := newTestState("http://example.com/api")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, name, tags string, hasInner bool, inner, q string) {
		p := fuzzObjectParams{Meta: map[string]string{k1: v1, k2: v2}, Obj: &fuzzObject{Name: name}, Q: q}
		if tags != "" {
			p.Obj.Tags = strings.Split(tags, ",")
		}
		if hasInner {
			p.Obj.Inner = &fuzzInner{V: inner}
		}
		bad := func(k string) bool { return k == "" || strings.ContainsAny(k, "[]") }
		r, err := d.request(st, &p, nil)
		if bad(k1) || bad(k2) {
			if err == nil {
				t.Fatalf("keys %q and %q: sent %s; want an error", k1, k2, r.URL)
			}
			return
		}
		if err != nil {
			t.Fatalf("request(%+v): %v", p, err)
		}
		u, err := url.Parse(r.URL.String())
		if err != nil {
			t.Fatalf("URL %q: %v", r.URL, err)
		}
		got, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			t.Fatalf("URL %q: query does not parse: %v", r.URL, err)
		}
		want := url.Values{"q": {q}}
		for k, v := range p.Meta {
			want.Add("meta["+k+"]", v)
		}
		if name != "" {
			want.Add("obj[name]", name)
		}
		for _, tag := range p.Obj.Tags {
			want.Add("obj[tags]", tag)
		}
		if hasInner {
			want.Add("obj[inner][v]", inner)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("URL %q:\nquery %q\nwant  %q", r.URL, got, want)
		}
	})
}

// fuzzJoinedParams has a list sent as one value with each delimiter, a
// joined header, and a list that repeats its name.
type fuzzJoinedParams struct {
	CSV    []string `kit:"csv,csv"`
	SSV    []string `kit:"ssv,ssv"`
	Pipes  []string `kit:"pipes,pipes"`
	Header []string `kit:"X-List,csv,header"`
	Rep    []string `kit:"rep"`
}

// FuzzJoinedList routes arbitrary elements of joined lists and checks that
// the URL's query parses back to one value per list, the elements joined
// with its delimiter (empty lists sending nothing), and that repeated
// lists are untouched beside them.
func FuzzJoinedList(f *testing.F) {
	f.Add("id", "name", "a b", true)
	f.Add("", "", "", false)
	f.Add("a,b", "x&y=z", "c|d", true)
	f.Add("é☃", "%zz", "+ +", false)
	f.Add("\xff", "#?", "\x00", true)
	d, err := newEndpointDecl("GET", "/lists", reflect.TypeFor[fuzzJoinedParams](), reflect.TypeFor[any](), nil)
	if err != nil {
		f.Fatal(err)
	}
	st, err := newTestState("http://example.com/api")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a, b, c string, three bool) {
		elems := []string{a, b}
		if three {
			elems = append(elems, c)
		}
		p := fuzzJoinedParams{CSV: elems, SSV: elems, Pipes: elems, Rep: elems}
		if !strings.ContainsAny(a+b+c, "\r\n\x00") {
			p.Header = elems
		}
		r, err := d.request(st, &p, nil)
		if err != nil {
			t.Fatalf("request(%q): %v", elems, err)
		}
		u, err := url.Parse(r.URL.String())
		if err != nil {
			t.Fatalf("URL %q: %v", r.URL, err)
		}
		got, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			t.Fatalf("URL %q: query does not parse: %v", r.URL, err)
		}
		want := url.Values{
			"csv":   {strings.Join(elems, ",")},
			"ssv":   {strings.Join(elems, " ")},
			"pipes": {strings.Join(elems, "|")},
			"rep":   elems,
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("URL %q:\nquery %q\nwant  %q", r.URL, got, want)
		}
		if h := r.Header.Values("X-List"); p.Header != nil && (len(h) != 1 || h[0] != strings.Join(elems, ",")) {
			t.Fatalf("X-List %q, want %q joined", h, elems)
		}
	})
}
