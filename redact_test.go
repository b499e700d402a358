package kit

import "testing"

// redactPath, for a Request kit did not build, covers every segment a
// {name...} secret may fill, and keeps the number of segments.
func TestRedactPathMultiSegment(t *testing.T) {
	for _, tt := range []struct{ tmpl, path, want string }{
		{"/download/{token...}", "/v1/download/a/b/c", "/v1/download/REDACTED/REDACTED/REDACTED"},
		{"/download/{token...}/raw", "/download/a/b/raw", "/download/REDACTED/REDACTED/raw"},
		{"/download/{token...}", "/download/a/download/b", "/download/REDACTED/REDACTED/REDACTED"},
		// A placeholder in the head matches the first place: more is redacted.
		{"/{org}/{token...}/x/{api_key}", "/v1/o/a/b/x/k", "/v1/REDACTED/REDACTED/REDACTED/x/REDACTED"},
		{"/files/{path...}/{sig}", "/files/a/b/s", "/files/a/b/REDACTED"},
		{"/nowhere/{token...}", "/v1/a/b", "/REDACTED/REDACTED/REDACTED"},
		{"/hooks/{token}/items/{id}", "/v1/hooks/t/items/7", "/v1/hooks/REDACTED/items/7"},
	} {
		got, ok := redactPath(tt.tmpl, tt.path)
		if !ok || got != tt.want {
			t.Errorf("redactPath(%q, %q) = %q, %v; want %q", tt.tmpl, tt.path, got, ok, tt.want)
		}
	}
	if got, ok := redactPath("/files/{path...}", "/files/a/b"); ok {
		t.Errorf("a {path...} that is not secret: %q", got)
	}
}

// redactRuns replaces whole segments only, every occurrence.
func TestRedactRuns(t *testing.T) {
	for _, tt := range []struct {
		path string
		runs []string
		want string
	}{
		{"/v1/resets/abc", []string{"abc"}, "/v1/resets/REDACTED"},
		{"/v1/abcd/abc/abc", []string{"abc"}, "/v1/abcd/REDACTED/REDACTED"},
		{"/d/a/b/c/raw", []string{"a/b/c"}, "/d/REDACTED/raw"},
		{"/d/a/b/cc", []string{"a/b/c"}, "/d/a/b/cc"},
		{"/f/report.sig", []string{"report.sig", "x"}, "/f/REDACTED"},
	} {
		if got, _ := redactRuns(tt.path, tt.runs); got != tt.want {
			t.Errorf("redactRuns(%q, %q) = %q, want %q", tt.path, tt.runs, got, tt.want)
		}
	}
}
