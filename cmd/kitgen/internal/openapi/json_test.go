package openapi

import (
	"strings"
	"testing"
)

// TestLoadJSON: a JSON document is read by a JSON reader, with JSON's
// escapes (a surrogate pair, as GitHub's and other official documents
// write emoji in examples), and each node keeps its file:line:col.
func TestLoadJSON(t *testing.T) {
	doc := "{\n  \"openapi\": \"3.0.1\",\n  \"info\": {\"title\": \"Thumbs \\ud83d\\udc4d \\ud800 \u0085\u009f\x7f\"},\n" +
		"  \"paths\": {\n    \"/a\": {\n      \"get\": {\"operationId\": \"getA\", \"responses\": {\"200\": {\"description\": \"ok\",\n" +
		"        \"content\": {\"application/json\": {\"schema\": {\"$ref\": \"#/components/schemas/Nope\"}}}}}}\n    }\n  }\n}\n"
	d, err := LoadBytes("spec.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Thumbs \U0001F44D \uFFFD \u0085\u009f\x7f"; d.Title != want {
		t.Errorf("title %q, want %q", d.Title, want)
	}
	if len(d.Skipped) != 1 {
		t.Fatalf("skipped %v, want GET /a", d.Skipped)
	}
	if got, want := d.Skipped[0].Pos.String(), "spec.json:7:61"; got != want {
		t.Errorf("skip at %s, want %s (the $ref's value)", got, want)
	}
}

// TestLoadJSONErrors: what is not JSON is refused at its position; a
// document that only starts like JSON but is YAML (a flow mapping) is
// still read as YAML.
func TestLoadJSONErrors(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"syntax", "{\n  \"openapi\": \"3.0.0\",\n  \"info\": [1 2]\n}\n", "spec.json:3:14: not JSON: "},
		{"not utf-8", "{\"openapi\": \"3.0.0\",\n \"x\": \"\xff\"}", "spec.json:2:8: not JSON: the text is not UTF-8"},
		{"array", "[1]", "spec.json:1:1: not an OpenAPI document: want a mapping at the top"},
		{"two values", "{\"openapi\": \"3.0.0\"} {}", "spec.json:1:22: not JSON: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadBytes("spec.json", []byte(c.doc))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want it to start with %q", err, c.want)
			}
		})
	}
	d, err := LoadBytes("spec.yaml", []byte("{openapi: 3.0.0, info: {title: Flow}}\n"))
	if err != nil || d.Title != "Flow" {
		t.Fatalf("a YAML flow mapping: %v, %+v", err, d)
	}
	// A key given twice: the first is read, as in YAML.
	d, err = LoadBytes("spec.json", []byte(`{"openapi": "3.0.0", "info": {"title": "One", "title": "Two"}}`))
	if err != nil || d.Title != "One" {
		t.Fatalf("a key given twice: %v, %+v", err, d)
	}
}
