package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
)

// The same API written in OpenAPI 3.0's idioms and in 3.1's: nullable as a
// flag, as a type list and as a oneOf with null; exclusive bounds; a
// boolean schema; examples in both spellings.
const spec30 = `openapi: 3.0.3
info: {title: Twins, version: "1"}
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer, minimum: 0, exclusiveMinimum: true}}
        - {name: since, in: query, schema: {type: string, format: date-time, nullable: true}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}}
    patch:
      operationId: patchItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/ItemPatch"}}}
      responses:
        "204": {description: patched}
components:
  schemas:
    Item:
      type: object
      required: [id, name, owner]
      properties:
        id: {type: integer, example: 7}
        name: {type: string}
        note: {type: string, nullable: true}
        owner: {allOf: [{$ref: "#/components/schemas/Owner"}], nullable: true}
        extra: {}
    Owner:
      type: object
      properties: {login: {type: string}}
    ItemPatch:
      type: object
      properties:
        note: {type: string, nullable: true}
        score: {type: number, nullable: true}
`

const spec31 = `openapi: 3.1.0
info: {title: Twins, version: "1"}
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer, exclusiveMinimum: 0}}
        - {name: since, in: query, schema: {type: [string, "null"], format: date-time}}
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/Item"}}}}
    patch:
      operationId: patchItem
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: "#/components/schemas/ItemPatch"}}}
      responses:
        "204": {description: patched}
components:
  schemas:
    Item:
      type: object
      required: [id, name, owner]
      properties:
        id: {type: integer, examples: [7]}
        name: {type: string}
        note: {type: [string, "null"]}
        owner: {oneOf: [{$ref: "#/components/schemas/Owner"}, {type: "null"}]}
        extra: true
    Owner:
      type: object
      properties: {login: {type: string}}
    ItemPatch:
      type: object
      properties:
        note: {oneOf: [{type: string}, {type: "null"}]}
        score: {type: [number, "null"]}
`

// positionsRE matches what differs between the twins by construction: the
// document's name and the lines its operations are on.
var positionsRE = regexp.MustCompile(`spec3[01]\.yaml(:\d+)?`)

// TestOpenAPIVersionsGiveSameGo: a document in 3.0's idioms and its 3.1
// twin give the same Go, but for the positions of the operations.
func TestOpenAPIVersionsGiveSameGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test module")
	}
	mod := newModule(t, "example.com/twins")
	out := map[string]string{}
	for name, spec := range map[string]string{"v30": spec30, "v31": spec31} {
		file := filepath.Join(mod, name, "spec"+name[1:]+".yaml")
		testmod.WriteFile(t, file, []byte(spec))
		if code, msg := kitgen(t, mod, "openapi", "-o", "./"+name, "-package", "twins", file); code != 0 {
			t.Fatalf("%s: exit %d\n%s", name, code, msg)
		}
		src, err := os.ReadFile(filepath.Join(mod, name, "openapi_gen.go"))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = positionsRE.ReplaceAllString(string(src), "spec.yaml")
	}
	if out["v30"] != out["v31"] {
		t.Errorf("3.0 and 3.1 give different Go:\n--- 3.0\n%s\n--- 3.1\n%s", out["v30"], out["v31"])
	}
}
