package openapi

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"swagger", "swagger: \"1.2\"\ninfo: {title: x}\n", `spec.yaml:1:10: Swagger 1.2: only Swagger 2.0 and OpenAPI 3 documents are read`},
		{"no openapi", "info: {title: x}\n", `spec.yaml:1:1: not an OpenAPI document: no openapi field at the top`},
		{"version", "openapi: 4.0.0\n", `spec.yaml:1:10: OpenAPI 4.0.0: only versions 3.0, 3.1 and 3.2 are read`},
		{"not yaml", "openapi: [\n", `spec.yaml: not YAML or JSON`},
		{"scalar", "hello\n", `spec.yaml:1:1: not an OpenAPI document: want a mapping at the top`},
		{"paths", "openapi: 3.0.0\npaths: [1]\n", `spec.yaml:2:8: paths: want a mapping`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadBytes("spec.yaml", []byte(c.doc))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want it to start with %q", err, c.want)
			}
		})
	}
}

// TestSkips: an operation that cannot be read is left out with its
// position and reason; the others are read.
func TestSkips(t *testing.T) {
	doc := `openapi: 3.1.0
paths:
  /a:
    get:
      operationId: good
      responses:
        "200": {description: ok}
    post:
      operationId: missing
      requestBody:
        content:
          application/json:
            schema: {$ref: "#/components/schemas/Nope"}
      responses:
        "200": {description: ok}
  /b:
    get:
      parameters:
        - {name: x, in: body}
      responses: {}
    put:
      parameters:
        - $ref: "#/components/parameters/Loop"
      responses: {}
    delete:
      responses:
        "200":
          $ref: "https://example.com/r.yaml"
    patch:
      responses:
        "7": {description: odd}
components:
  parameters:
    Loop: {$ref: "#/components/parameters/Loop"}
`
	d, err := LoadBytes("spec.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Ops) != 1 || d.Ops[0].ID != "good" {
		t.Fatalf("read %d operations, want only good", len(d.Ops))
	}
	want := []string{
		`POST /a spec.yaml:13:28: request body: application/json: $ref "#/components/schemas/Nope": "schemas" not found`,
		`GET /b spec.yaml:19:11: parameter x: in: "body" is not path, query, header or cookie`,
		`PUT /b spec.yaml:34:11: $ref "#/components/parameters/Loop": more than 64 references in a chain (a cycle?)`,
		`DELETE /b spec.yaml:28:17: $ref "https://example.com/r.yaml": a remote reference (kitgen openapi -remote follows them)`,
		`PATCH /b spec.yaml:31:9: response "7": not a status code, a range like 2XX, or default`,
	}
	var got []string
	for _, s := range d.Skipped {
		got = append(got, s.Method+" "+s.Path+" "+s.Pos.String()+": "+s.Reason)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNullableForms: 3.0's nullable, 3.1's type list and a oneOf with a
// null branch read the same.
func TestNullableForms(t *testing.T) {
	forms := []string{
		"openapi: 3.0.3\ncomponents:\n  schemas:\n    S: {type: string, nullable: true, format: date-time}\n",
		"openapi: 3.1.0\ncomponents:\n  schemas:\n    S: {type: [string, \"null\"], format: date-time}\n",
		"openapi: 3.1.0\ncomponents:\n  schemas:\n    S:\n      oneOf: [{type: \"null\"}, {type: string, format: date-time}]\n",
	}
	for i, f := range forms {
		d, err := LoadBytes("spec.yaml", []byte(f))
		if err != nil {
			t.Fatal(err)
		}
		s := d.Schemas[0]
		if !s.Nullable || s.Name != "S" {
			t.Errorf("form %d: nullable %v, name %q", i, s.Nullable, s.Name)
		}
		typ, format := s.Type, s.Format
		if len(s.OneOf) == 1 {
			typ, format = s.OneOf[0].Type, s.OneOf[0].Format
		}
		if typ != "string" || format != "date-time" {
			t.Errorf("form %d: %s/%s, want string/date-time", i, typ, format)
		}
	}
}

// TestRecursion: a schema that refers to itself is one object reached
// again, not an endless expansion.
func TestRecursion(t *testing.T) {
	doc := `openapi: 3.0.0
components:
  schemas:
    Node:
      type: object
      properties:
        children: {type: array, items: {$ref: "#/components/schemas/Node"}}
        parent: {$ref: "#/components/schemas/Node"}
`
	d, err := LoadBytes("spec.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	n := d.Schemas[0]
	if n.Properties[0].Schema.Items != n || n.Properties[1].Schema != n {
		t.Error("a recursive reference does not lead back to the same schema")
	}
}

// TestFiles: relative $refs to other files are read from beside the
// document, and positions name the file they are in.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("api.yaml", `openapi: 3.0.0
paths:
  /pets/{id}:
    $ref: "paths/pet.yaml"
  /broken:
    get:
      responses:
        "200":
          content:
            application/json:
              schema: {$ref: "models.yaml#/Missing"}
`)
	write("paths/pet.yaml", `get:
  operationId: getPet
  responses:
    "200":
      description: ok
      content:
        application/json:
          schema: {$ref: "../models.yaml#/Pet"}
`)
	write("models.yaml", "Pet:\n  type: object\n  properties:\n    name: {type: string}\n")
	d, err := Load(filepath.Join(dir, "api.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Ops) != 1 || d.Ops[0].ID != "getPet" {
		t.Fatalf("operations %v", d.Ops)
	}
	s := d.Ops[0].Responses[0].Content[0].Schema
	if len(s.Properties) != 1 || s.Properties[0].Name != "name" {
		t.Errorf("schema from models.yaml: %+v", s)
	}
	if !strings.HasSuffix(d.Ops[0].Pos.File, filepath.Join("paths", "pet.yaml")) {
		t.Errorf("operation position %s, want paths/pet.yaml", d.Ops[0].Pos)
	}
	if len(d.Skipped) != 1 || !strings.Contains(d.Skipped[0].Reason, `$ref "models.yaml#/Missing": "Missing" not found`) {
		t.Errorf("skipped %+v", d.Skipped)
	}
	// In memory, another file cannot be read: the operation is skipped.
	data, _ := os.ReadFile(filepath.Join(dir, "api.yaml"))
	d, err = LoadBytes("api.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Ops) != 0 || len(d.Skipped) != 2 {
		t.Errorf("in memory: %d operations, %d skipped, want 0 and 2", len(d.Ops), len(d.Skipped))
	}
}

// TestEmptyBodyOnGet: Stripe's document declares an empty form body on its
// GETs; a GET cannot send one, and the body says nothing: it is dropped
// with a note, and the operation is read. A body that says something is
// kept (kitgen's pass refuses it).
func TestEmptyBodyOnGet(t *testing.T) {
	doc := `openapi: 3.0.0
paths:
  /v1/account:
    get:
      operationId: GetAccount
      requestBody:
        content:
          application/x-www-form-urlencoded:
            encoding: {}
            schema: {additionalProperties: false, properties: {}, type: object}
        required: false
      responses:
        "200": {description: ok}
  /v1/search:
    get:
      operationId: Search
      requestBody:
        content:
          application/json:
            schema: {type: object, properties: {q: {type: string}}}
      responses:
        "200": {description: ok}
`
	d, err := LoadBytes("spec.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Ops) != 2 {
		t.Fatalf("%d operations, want 2", len(d.Ops))
	}
	if d.Ops[0].Body != nil {
		t.Errorf("GET /v1/account: the empty body is kept")
	}
	if d.Ops[1].Body == nil {
		t.Errorf("GET /v1/search: the body that says something is dropped")
	}
	want := "spec.yaml:6:7: GET /v1/account: an empty request body on a GET is left out"
	if len(d.Notes) != 1 || d.Notes[0].Pos.String()+": "+d.Notes[0].Msg != want {
		t.Errorf("notes %v, want %q", d.Notes, want)
	}
}
