package openapi

import (
	"testing"
)

// The tests of this file each keep a bug the sweep of the OpenAPI
// Directory (TestDirectorySweep) found fixed.

// A JSON document may hold DEL and C1 control characters raw in its
// strings; YAML, which reads it, may not (docusign.net, sendgrid.com).
func TestLoadJSONWithC1Controls(t *testing.T) {
	doc := "{\"openapi\": \"3.0.0\", \"info\": {\"title\": \"recipient\u0080\u0099s \u007f\u0085\"}, \"paths\": {}}"
	d, err := LoadBytes("spec.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if want := "recipient\u0080\u0099s \u007f\u0085"; d.Title != want {
		t.Errorf("title %q, want %q", d.Title, want)
	}
	// A YAML document with one stays an error: YAML does not allow it.
	if _, err := LoadBytes("spec.yaml", []byte("openapi: 3.0.0\ninfo: {title: \"a\u0080\"}\npaths: {}\n")); err == nil {
		t.Error("a YAML document with a C1 control character was read")
	}
}
