package openapi

import (
	"bytes"
	"strings"
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

// A discriminator mapping that names nothing (a document bundled from
// several files keeps mappings into files that are gone: digitalocean.com)
// is left out with a note; the operation and its union stay.
func TestDanglingDiscriminatorMapping(t *testing.T) {
	doc := `openapi: 3.0.0
info: {title: t, version: "1"}
paths:
  /records:
    post:
      requestBody:
        content:
          application/json:
            schema:
              oneOf: [{$ref: "#/components/schemas/A"}, {$ref: "#/components/schemas/B"}]
              discriminator:
                propertyName: type
                mapping: {a: "models/types.yml#/a", b: "#/components/schemas/Gone", c: B}
      responses: {"204": {description: ok}}
components:
  schemas:
    A: {type: object, properties: {type: {type: string}, x: {type: string}}}
    B: {type: object, properties: {type: {type: string}, y: {type: integer}}}
`
	d, err := LoadBytes("spec.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Skipped) != 0 || len(d.Ops) != 1 {
		t.Fatalf("%d operations read, skipped %+v", len(d.Ops), d.Skipped)
	}
	if len(d.Notes) != 2 {
		t.Fatalf("notes %+v, want the two mappings that name nothing", d.Notes)
	}
	for _, n := range d.Notes {
		if n.Pos.Line != 13 || !strings.Contains(n.Msg, "discriminator mapping") {
			t.Errorf("note %s: %s", n.Pos, n.Msg)
		}
	}
	g := newGenerator(d, "api", "spec.yaml")
	g.build()
	src, _, err := g.file()
	if err != nil {
		t.Fatal(err)
	}
	// The union is sealed: B by its mapping, A by its schema's name.
	for _, want := range []string{`case "c":`, `case "A":`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("no %s in\n%s", want, src)
		}
	}
	var r bytes.Buffer
	g.report(d).Print(&r, "spec.yaml")
	if !strings.Contains(r.String(), "spec.yaml:13:") || !strings.Contains(r.String(), "note: discriminator mapping a left out") {
		t.Errorf("report:\n%s", r.String())
	}
}

// A path parameter a path's own query names twice, or names in the path
// too, skips the operation (it made the generator panic).
func TestPathQueryPlaceholderTwice(t *testing.T) {
	for _, path := range []string{"/a/{id}?id={id}", "/a?x={id}&y={id}"} {
		doc := "openapi: 3.0.0\ninfo: {title: t, version: \"1\"}\npaths:\n  " + path + ":\n    get:\n      parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n      responses: {\"204\": {description: ok}}\n"
		d, err := LoadBytes("spec.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		g := newGenerator(d, "api", "spec.yaml")
		g.build()
		if _, _, err := g.file(); err != nil {
			t.Fatal(err)
		}
		if len(g.methods) != 0 || len(g.skipped) != 1 || !strings.Contains(g.skipped[0].Reason, "fills another placeholder") {
			t.Errorf("%s: %d methods, skipped %+v", path, len(g.methods), g.skipped)
		}
	}
}
