package openapi

import (
	"strings"
	"testing"
)

// TestConfigStart: start is 0, 1 or unknown, and a pageNumber's only;
// anything else is refused with the entry's position.
func TestConfigStart(t *testing.T) {
	for _, c := range []struct{ yaml, lit, err string }{
		{"pagination:\n  a: {type: pageNumber, start: 0}\n", "kit.PageNumber{Start: kit.StartAtZero}", ""},
		{"pagination:\n  a: {type: pageNumber, start: 1}\n", "kit.PageNumber{Start: kit.StartAtOne}", ""},
		{"pagination:\n  a: {type: pageNumber, start: unknown, pageSize: 5}\n", "kit.PageNumber{PageSize: 5, Start: kit.StartUnknown}", ""},
		{"pagination:\n  a: {type: pageNumber}\n", "kit.PageNumber{}", ""},
		{"pagination:\n  a: {type: cursor, cursorParam: pageToken, nextKey: nextPageToken}\n", `kit.Cursor{CursorParam: "pageToken", NextKey: "nextPageToken"}`, ""},
		{"pagination:\n  a: {type: pageNumber, start: 2}\n", "", `kitgen.yaml:2:6: pagination of a: start "2" is not 0, 1 or unknown`},
		{"pagination:\n  a: {type: offset, start: 0}\n", "", "kitgen.yaml:2:6: pagination of a: start is a pageNumber's, not a offset's"},
	} {
		cfg, err := parseConfig("kitgen.yaml", []byte(c.yaml))
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%q: error %v, want %s", c.yaml, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.yaml, err)
			continue
		}
		if got := cfg.Pagination["a"].literal(); got != c.lit {
			t.Errorf("%q: %s, want %s", c.yaml, got, c.lit)
		}
	}
}

// TestPageStart: a page parameter's default, then its minimum, then its
// description say where pages start; else the start is unknown.
func TestPageStart(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		p    Parameter
		want string
	}{
		{Parameter{Name: "page", Schema: &Schema{Type: "integer", Default: 0}}, "0"},
		{Parameter{Name: "page", Schema: &Schema{Type: "integer", Default: 1, Minimum: f(0)}}, "1"},
		{Parameter{Name: "page", Schema: &Schema{Type: "integer", Minimum: f(0)}}, "0"},
		{Parameter{Name: "page", Schema: &Schema{Type: "integer", Minimum: f(1)}}, "1"},
		{Parameter{Name: "page", Description: "Zero-based page index.", Schema: &Schema{Type: "integer"}}, "0"},
		{Parameter{Name: "page", Description: "Pages start at 1.", Schema: &Schema{Type: "integer"}}, "1"},
		{Parameter{Name: "page", Description: "0-based; the first page is page 1 in v1.", Schema: &Schema{Type: "integer"}}, "unknown"},
		{Parameter{Name: "page", Schema: &Schema{Type: "integer", Default: 2, Minimum: f(2)}}, "unknown"},
		{Parameter{Name: "page", Schema: &Schema{Type: "integer"}}, "unknown"},
	} {
		if got, why := pageStart(&c.p); got != c.want || why == "" {
			t.Errorf("%+v (%q): %s (%s), want %s", *c.p.Schema, c.p.Description, got, why, c.want)
		}
	}
}

// TestDeprecatedInProse: the word deprecates the parameter it describes,
// unless another parameter's name follows it.
func TestDeprecatedInProse(t *testing.T) {
	names := []string{"page", "page_token", "page_size"}
	for _, c := range []struct {
		name, desc string
		want       bool
	}{
		{"page", "Deprecated: use page_token.", true},
		{"page", "The page to return (deprecated, use page_token)", true},
		{"page", "This parameter is DEPRECATED in favour of page_token.", true},
		{"page_token", "Replaces the deprecated `page` parameter.", false},
		{"page_token", "Replaces the deprecated page parameter.", false},
		{"page", "The page to return.", false},
		{"page", "Not undeprecated.", false},
	} {
		if got := deprecatedInProse(c.name, c.desc, names); got != c.want {
			t.Errorf("%s: %q: %v, want %v", c.name, c.desc, got, c.want)
		}
	}
}

// TestNormName: case styles meet.
func TestNormName(t *testing.T) {
	for _, s := range []string{"next_page_token", "nextPageToken", "NextPageToken", "next-page-token", "NEXT_PAGE_TOKEN"} {
		if got := normName(s); got != "nextpagetoken" {
			t.Errorf("%s: %s", s, got)
		}
	}
	if !strings.HasPrefix(normName("next_marker"), "next") || normName("next_marker") != "next"+normName("marker") {
		t.Error("next_marker does not answer marker")
	}
}
