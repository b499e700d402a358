package kit

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParsePathTemplate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		raw          string
		parts        []pathPart
		placeholders []string
		static       url.Values
	}{
		{"", []pathPart{{literal: "/"}}, nil, nil},
		{"users", []pathPart{{literal: "/users"}}, nil, nil},
		{"/users/{id}", []pathPart{{literal: "/users/"}, {name: "id"}}, []string{"id"}, nil},
		{"/teams/{id}/users", []pathPart{{literal: "/teams/"}, {name: "id"}, {literal: "/users"}}, []string{"id"}, nil},
		{"/{a}{b}", []pathPart{{literal: "/"}, {name: "a"}, {name: "b"}}, []string{"a", "b"}, nil},
		{"/{a}/x/{a}", []pathPart{{literal: "/"}, {name: "a"}, {literal: "/x/"}, {name: "a"}}, []string{"a"}, nil},
		{"/files/{name}.json", []pathPart{{literal: "/files/"}, {name: "name"}, {literal: ".json"}}, []string{"name"}, nil},
		{"/search?type=repo&sort=", []pathPart{{literal: "/search"}}, nil, url.Values{"type": {"repo"}, "sort": {""}}},
		{"/a b/ü", []pathPart{{literal: "/a%20b/%C3%BC"}}, nil, nil},
		{"/a%20b", []pathPart{{literal: "/a%20b"}}, nil, nil},
		{"/a#b", []pathPart{{literal: "/a%23b"}}, nil, nil},
		{"/v1:batch", []pathPart{{literal: "/v1:batch"}}, nil, nil},
	}
	for _, tt := range tests {
		got, err := parsePathTemplate(tt.raw)
		if err != nil {
			t.Errorf("parsePathTemplate(%q): %v", tt.raw, err)
			continue
		}
		if !reflect.DeepEqual(got.parts, tt.parts) || !reflect.DeepEqual(got.placeholders, tt.placeholders) || !reflect.DeepEqual(got.static, tt.static) {
			t.Errorf("parsePathTemplate(%q) = parts %+v placeholders %q static %v\nwant parts %+v placeholders %q static %v",
				tt.raw, got.parts, got.placeholders, got.static, tt.parts, tt.placeholders, tt.static)
		}
	}
}

func TestParsePathTemplateErrors(t *testing.T) {
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
	}
	for _, tt := range tests {
		_, err := parsePathTemplate(tt.raw)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("parsePathTemplate(%q) error = %v, want %q", tt.raw, err, tt.want)
		}
	}
}

func TestPathTemplateExpand(t *testing.T) {
	t.Parallel()
	tmpl, err := parsePathTemplate("/a/{x}/b/{y}")
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
		err := tmpl.expand(&b, names, []string{tt.x, tt.y})
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

func TestMergeQueryOrder(t *testing.T) {
	t.Parallel()
	base := url.Values{"k": {"base"}, "v": {"2"}}
	static := url.Values{"k": {"static"}}
	routed := url.Values{"k": {"call"}, "q": {"x"}}
	got := mergeQuery(base, static, routed)
	want := url.Values{"k": {"base", "static", "call"}, "v": {"2"}, "q": {"x"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mergeQuery = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(base, url.Values{"k": {"base"}, "v": {"2"}}) || !reflect.DeepEqual(static, url.Values{"k": {"static"}}) {
		t.Errorf("mergeQuery modified its inputs: base %v, static %v", base, static)
	}
	if got := mergeQuery(nil, nil, routed); !reflect.DeepEqual(got, routed) {
		t.Errorf("mergeQuery(nil, nil, q) = %v, want q", got)
	}
}
