package pathtmpl

import (
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw          string
		parts        []Part
		placeholders []string
		static       url.Values
	}{
		{"", []Part{{Literal: "/"}}, nil, nil},
		{"users", []Part{{Literal: "/users"}}, nil, nil},
		{"/users/{id}", []Part{{Literal: "/users/"}, {Name: "id"}}, []string{"id"}, nil},
		{"/teams/{id}/users", []Part{{Literal: "/teams/"}, {Name: "id"}, {Literal: "/users"}}, []string{"id"}, nil},
		{"/{a}{b}", []Part{{Literal: "/"}, {Name: "a"}, {Name: "b"}}, []string{"a", "b"}, nil},
		{"/{a}/x/{a}", []Part{{Literal: "/"}, {Name: "a"}, {Literal: "/x/"}, {Name: "a"}}, []string{"a"}, nil},
		{"/files/{name}.json", []Part{{Literal: "/files/"}, {Name: "name"}, {Literal: ".json"}}, []string{"name"}, nil},
		{"/search?type=repo&sort=", []Part{{Literal: "/search"}}, nil, url.Values{"type": {"repo"}, "sort": {""}}},
		{"/a b/ü", []Part{{Literal: "/a%20b/%C3%BC"}}, nil, nil},
		{"/a%20b", []Part{{Literal: "/a%20b"}}, nil, nil},
		{"/a#b", []Part{{Literal: "/a%23b"}}, nil, nil},
		{"/v1:batch", []Part{{Literal: "/v1:batch"}}, nil, nil},
		{"/repos/{owner}/contents/{path...}", []Part{{Literal: "/repos/"}, {Name: "owner"}, {Literal: "/contents/"}, {Name: "path", Rest: true}}, []string{"owner", "path"}, nil},
		{"/branches/{branch...}/protection", []Part{{Literal: "/branches/"}, {Name: "branch", Rest: true}, {Literal: "/protection"}}, []string{"branch"}, nil},
	}
	for _, tt := range tests {
		got, err := Parse(tt.raw)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.raw, err)
			continue
		}
		if !reflect.DeepEqual(got.Parts, tt.parts) || !reflect.DeepEqual(got.Placeholders, tt.placeholders) || !reflect.DeepEqual(got.Static, tt.static) {
			t.Errorf("Parse(%q) = parts %+v placeholders %q static %v\nwant parts %+v placeholders %q static %v",
				tt.raw, got.Parts, got.Placeholders, got.Static, tt.parts, tt.placeholders, tt.static)
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, want string }{
		{"/users/{id", "unterminated"},
		{"/users/id}", "unbalanced"},
		{"/users/{}", "bad placeholder"},
		{"/users/{a/b}", "bad placeholder"},
		{"/users/{a b}", "bad placeholder"},
		{"/users/{a{b}", "bad placeholder"},
		{"/a%zz", "bad escape"},
		{"/a%4", "bad escape"},
		{"/a%", "bad escape"},
		{"/a?x=%zz", "bad query"},
		{"/search?q={q}", "placeholder in the query"},
		{"/search?{q}", "placeholder in the query"},
		{"/files/{...}", "bad placeholder"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.raw)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) error = %v, want %q", tt.raw, err, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	tmpl, err := Parse("/a/{x}/b/{y}")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"x", "y"}
	tests := []struct {
		x, y, want, wantErr string
	}{
		{"1", "2", "/a/1/b/2", ""},
		{"a/b", "c d", "/a/a%2Fb/b/c%20d", ""},
		{"?#%", "é", "/a/%3F%23%25/b/%C3%A9", ""},
		{"...", ".x", "/a/.../b/.x", ""},
		{"", "2", "", "{x}"},
		{".", "2", "", "{x}"},
		{"1", "..", "", "{y}"},
	}
	for _, tt := range tests {
		var b strings.Builder
		err := tmpl.Expand(&b, names, []string{tt.x, tt.y})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("expand(%q, %q) = %q, %v; want an error naming %s", tt.x, tt.y, b.String(), err, tt.wantErr)
			}
			continue
		}
		if err != nil || b.String() != tt.want {
			t.Errorf("expand(%q, %q) = %q, %v; want %q", tt.x, tt.y, b.String(), err, tt.want)
		}
	}
}

// TestExpandRest: a {name...} value keeps its slashes, each segment
// escaped on its own, and no segment may be empty, "." or "..".
func TestExpandRest(t *testing.T) {
	t.Parallel()
	tmpl, err := Parse("/repos/{owner}/contents/{path...}")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"owner", "path"}
	for _, tt := range []struct{ path, want, wantErr string }{
		{"README.md", "/repos/o/contents/README.md", ""},
		{"docs/a b/ü.md", "/repos/o/contents/docs/a%20b/%C3%BC.md", ""},
		{"feature/x?y#z", "/repos/o/contents/feature/x%3Fy%23z", ""},
		{"a/../../admin", "", `segment ".."`},
		{"a/./b", "", `segment "."`},
		{"a//b", "", `segment ""`},
		{"/a", "", `segment ""`},
		{"a/", "", `segment ""`},
		{"", "", `segment ""`},
	} {
		var b strings.Builder
		err := tmpl.Expand(&b, names, []string{"o", tt.path})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("expand(%q) = %q, %v; want an error with %s", tt.path, b.String(), err, tt.wantErr)
			}
			continue
		}
		if err != nil || b.String() != tt.want {
			t.Errorf("expand(%q) = %q, %v; want %q", tt.path, b.String(), err, tt.want)
		}
	}
}

// TestExpandSecrets: the runs of whole segments that secret placeholders
// fill, a {name...} one's every segment included, after any prefix.
func TestExpandSecrets(t *testing.T) {
	t.Parallel()
	secret := func(name string) bool { return strings.Contains(name, "token") }
	for _, tt := range []struct {
		tmpl  string
		vals  []string // for names a, token, token2
		want  []string
		wantP string
	}{
		{"/resets/{token}", []string{"", "abc"}, []string{"abc"}, "/v1/resets/abc"},
		{"/download/{token...}/raw", []string{"", "a/b c/d"}, []string{"a/b%20c/d"}, "/v1/download/a/b%20c/d/raw"},
		{"/files/{a}.{token}", []string{"report", "sig"}, []string{"report.sig"}, "/v1/files/report.sig"},
		{"/{token}/{a}/{token2}", []string{"7", "x", "y"}, []string{"x", "y"}, "/v1/x/7/y"},
		{"/{token}/{token}", []string{"", "x"}, []string{"x"}, "/v1/x/x"},
		{"/users/{a}", []string{"7"}, nil, "/v1/users/7"},
	} {
		p, err := Parse(tt.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("/v1")
		runs, err := p.ExpandSecrets(&b, []string{"a", "token", "token2"}, append(tt.vals, "", "")[:3], secret)
		if err != nil || b.String() != tt.wantP || !slices.Equal(runs, tt.want) {
			t.Errorf("%s with %q = %q, %q, %v; want %q, %q", tt.tmpl, tt.vals, b.String(), runs, err, tt.wantP, tt.want)
		}
	}
}
