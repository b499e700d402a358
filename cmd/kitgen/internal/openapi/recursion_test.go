package openapi

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit/internal/leakcheck"
)

// generatedTypes is what generateWithin returns.
type generatedTypes struct {
	g   *generator
	src []byte
}

// generateWithin reads doc and generates from it in a goroutine, failing
// the test when that has not ended within a generous bound: a schema that
// makes the generator recurse without end fails the test instead of
// hanging it.
func generateWithin(t *testing.T, doc string) generatedTypes {
	t.Helper()
	type result struct {
		out generatedTypes
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := LoadBytes("spec.yaml", []byte(doc))
		if err != nil {
			done <- result{err: err}
			return
		}
		g := newGenerator(d, "api", "spec.yaml")
		g.build()
		src, _, err := g.file()
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, src)
		}
		done <- result{generatedTypes{g, src}, err}
	}()
	const bound = 60 * time.Second // generous: -race, on a shared machine
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.out
	case <-time.After(bound):
		t.Fatalf("generating did not end within %v: the generator recurses without end", bound)
		return generatedTypes{}
	}
}

// checkDecls type-checks the model declarations the generator wrote, as a
// package of their own: a type that contains itself by value, or is
// itself (type A A), is an error here.
func checkDecls(t *testing.T, g *generator) {
	t.Helper()
	var b strings.Builder
	b.WriteString("package api\n\nimport (\n")
	for _, im := range g.types.sortedImports() {
		if im == "iter" {
			continue
		}
		fmt.Fprintf(&b, "\t%q\n", im)
	}
	b.WriteString(")\n\n")
	for _, d := range g.types.decls {
		b.WriteString(d + "\n")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "models.go", b.String(), 0)
	if err != nil {
		t.Fatalf("the models do not parse: %v\n%s", err, b.String())
	}
	// Blank uses keep an import the models do not need from failing.
	for _, im := range f.Imports {
		name := strings.Trim(im.Path.Value, `"`)
		name = name[strings.LastIndex(name, "/")+1:]
		f.Decls = append(f.Decls, &ast.GenDecl{Tok: token.VAR, Specs: []ast.Spec{&ast.ValueSpec{
			Names:  []*ast.Ident{ast.NewIdent("_")},
			Values: []ast.Expr{&ast.SelectorExpr{X: ast.NewIdent(name), Sel: ast.NewIdent(usedName[name])}},
		}}})
	}
	conf := types.Config{Importer: kitStub{importer.ForCompiler(fset, "source", nil)}}
	if _, err := conf.Check("api", fset, []*ast.File{f}, nil); err != nil {
		t.Fatalf("the models do not type-check: %v\n%s", err, b.String())
	}
}

// kitStub imports kit as the declarations of it the models use, which
// type-checks in a moment (kit itself, from source, takes seconds each
// time); other packages from source.
type kitStub struct{ types.Importer }

const kitStubSource = `package kit

type UnknownFields map[string][]byte

type Nullable[T any] struct{ v T }

type File struct{}

func MarshalJSON(v any) ([]byte, error) { return nil, nil }

func UnmarshalJSON(data []byte, v any) error { return nil }
`

func (k kitStub) Import(path string) (*types.Package, error) {
	if path != kitImport {
		return k.Importer.Import(path)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "kit.go", kitStubSource, 0)
	if err != nil {
		return nil, err
	}
	return (&types.Config{}).Check(kitImport, fset, []*ast.File{f}, nil)
}

// usedName is a name of each package the models may import.
var usedName = map[string]string{"json": "Marshal", "fmt": "Sprint", "time": "Now", "kit": "MarshalJSON"}

// docWith is a document with one operation, GET /x, that answers the
// first of schemas (components/schemas entries, indented by four).
func docWith(first, schemas string) string {
	return `openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: getX
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/` + first + `"}}}}
components:
  schemas:
` + schemas
}

// TestSelfContainingSchemas: an array, a map or a union that contains
// itself ends: a named schema reached again is its named type (type D
// []D), and the models type-check.
func TestSelfContainingSchemas(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range []struct {
		name, first, schemas string
		want                 []string
	}{
		{"array of itself", "D", `    D: {type: array, items: {$ref: "#/components/schemas/D"}}
`, []string{"type D []D", "GetX(ctx context.Context, opts ...kit.CallOption) (D, error)"}},
		{"map of itself", "G", `    G: {type: object, additionalProperties: {$ref: "#/components/schemas/G"}}
`, []string{"type G map[string]G", "(G, error)"}},
		{"map of arrays of itself", "M", `    M: {type: object, additionalProperties: {type: array, items: {$ref: "#/components/schemas/M"}}}
`, []string{"type M map[string][]M"}},
		{"oneOf containing itself", "C", `    C: {oneOf: [{type: number}, {type: array, items: {$ref: "#/components/schemas/C"}}]}
`, []string{"type C struct", "AsCList() ([]C, error)", "AsFloat64() (float64, error)"}},
		{"anyOf of one containing itself", "U", `    U: {anyOf: [{type: array, items: {$ref: "#/components/schemas/U"}}]}
`, []string{"type U []U"}},
		{"array of a nullable oneOf of itself", "N", `    N: {type: array, items: {oneOf: [{$ref: "#/components/schemas/N"}, {type: "null"}]}}
`, []string{"type N []N"}},
		{"indirect", "A", `    A: {type: array, items: {$ref: "#/components/schemas/B"}}
    B: {type: array, items: {$ref: "#/components/schemas/A"}}
`, []string{"type A [][]A"}},
		{"through allOf", "A", `    A: {allOf: [{$ref: "#/components/schemas/B"}], description: A list.}
    B: {type: array, items: {$ref: "#/components/schemas/A"}}
`, []string{"type A []A"}},
		{"inline, by a pointer into a schema", "Geo", `    Geo:
      type: object
      properties:
        coords: {type: array, items: {$ref: "#/components/schemas/Geo/properties/coords"}}
`, []string{"type GeoCoords []GeoCoords", "Coords GeoCoords `json:\"coords,omitempty\"`"}},
		{"struct field", "S", `    S:
      type: object
      required: [tree]
      properties:
        tree: {$ref: "#/components/schemas/T"}
    T: {type: object, additionalProperties: {$ref: "#/components/schemas/T"}}
`, []string{"Tree T `json:\"tree\"`", "type T map[string]T"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := generateWithin(t, docWith(c.first, c.schemas))
			if len(out.g.skipped) != 0 {
				t.Errorf("skipped %+v", out.g.skipped)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out.src), w) {
					t.Errorf("no %q in\n%s", w, out.src)
				}
			}
			checkDecls(t, out.g)
		})
	}
}

// TestAliasCycles: schemas that are only each other say nothing: a $ref
// chain that comes back skips its operation with the reason; an allOf
// of one that comes back is any. Neither hangs.
func TestAliasCycles(t *testing.T) {
	leakcheck.Check(t)
	out := generateWithin(t, docWith("A", `    A: {$ref: "#/components/schemas/B"}
    B: {$ref: "#/components/schemas/A"}
`))
	if len(out.g.methods) != 0 || len(out.g.doc.Skipped) != 1 || !strings.Contains(out.g.doc.Skipped[0].Reason, "a cycle?") {
		t.Errorf("$ref cycle: %d methods, skipped %+v", len(out.g.methods), out.g.doc.Skipped)
	}
	out = generateWithin(t, docWith("A", `    A: {allOf: [{$ref: "#/components/schemas/B"}]}
    B: {allOf: [{$ref: "#/components/schemas/A"}]}
`))
	if !strings.Contains(string(out.src), "GetX(ctx context.Context, opts ...kit.CallOption) (any, error)") {
		t.Errorf("allOf cycle:\n%s", out.src)
	}
	checkDecls(t, out.g)
}

// TestDeepInlineSchemas: inline schemas nested deeper than MaxSchemaDepth
// skip their operation with the reason, quickly.
func TestDeepInlineSchemas(t *testing.T) {
	leakcheck.Check(t)
	for _, kind := range []string{`{"type": "array", "items": `, `{"type": "object", "properties": {"a": `, `{"type": "object", "additionalProperties": `} {
		const levels = 1000
		var b strings.Builder
		b.WriteString(`{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": `)
		b.WriteString(strings.Repeat(kind, levels))
		b.WriteString(`{"type": "string"}`)
		b.WriteString(strings.Repeat(strings.Repeat("}", strings.Count(kind, "{")), levels))
		b.WriteString(`}}}}}}}}`)
		out := generateWithin(t, b.String())
		if len(out.g.methods) != 0 || len(out.g.doc.Skipped) != 1 || !strings.Contains(out.g.doc.Skipped[0].Reason, "nested more than") {
			t.Errorf("%s: %d methods, skipped %+v", kind, len(out.g.methods), out.g.doc.Skipped)
		}
	}
}

// TestDeepSchemaChain: a chain of named schemas, each an array (or a
// struct) of the next, deeper than MaxSchemaDepth: the loader reads each
// at its own depth, so the generator bounds the chain, and skips the
// operation with the reason (the type names had grown by "Item" at every
// step), and each other operation that needs its types. An operation
// whose chain is short is kept.
func TestDeepSchemaChain(t *testing.T) {
	leakcheck.Check(t)
	for _, kind := range []string{"array", "object"} {
		const n = 10000
		var b strings.Builder
		b.WriteString(`openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /long:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/S1"}}}}
  /again:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/S1"}}}}
  /short:
    get:
      responses:
        "200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/S9990"}}}}
components:
  schemas:
`)
		// The last first: each is read when the one it names is read already.
		for i := n; i >= 1; i-- {
			switch {
			case i == n:
				fmt.Fprintf(&b, "    S%d: {type: string}\n", i)
			case kind == "array":
				fmt.Fprintf(&b, "    S%d: {type: array, items: {$ref: \"#/components/schemas/S%d\"}}\n", i, i+1)
			default:
				fmt.Fprintf(&b, "    S%d: {type: object, required: [a], properties: {a: {$ref: \"#/components/schemas/S%d\"}}}\n", i, i+1)
			}
		}
		out := generateWithin(t, b.String())
		if len(out.g.methods) != 1 || out.g.methods[0].op.Path != "/short" {
			t.Errorf("%s: methods %+v", kind, out.g.methods)
		}
		// /again needs the types /long declared already: skipped too.
		if len(out.g.skipped) != 2 {
			t.Fatalf("%s: skipped %+v", kind, out.g.skipped)
		}
		for i, path := range []string{"/long", "/again"} {
			if s := out.g.skipped[i]; s.Path != path || !strings.Contains(s.Reason, "nested more than") || s.Pos.Line < 20 {
				t.Errorf("%s: skipped %+v", kind, s)
			}
		}
	}
}

// TestRequiredBackEdgeThroughAlias: a required field that leads back to
// the struct it is in through an allOf of one (a description beside the
// $ref) is a pointer, as a plain $ref's is: by value, the type would
// contain itself.
func TestRequiredBackEdgeThroughAlias(t *testing.T) {
	leakcheck.Check(t)
	for _, c := range []struct{ name, schemas, want string }{
		{"inline allOf", `    Node:
      type: object
      required: [parent]
      properties:
        parent: {allOf: [{$ref: "#/components/schemas/Node"}], description: The parent.}
`, "Parent *Node `json:\"parent\"`"},
		{"named alias", `    Node:
      type: object
      required: [parent]
      properties:
        parent: {$ref: "#/components/schemas/Parent"}
    Parent: {oneOf: [{$ref: "#/components/schemas/Node"}]}
`, "Parent *Node `json:\"parent\"`"},
		{"two structs", `    Node:
      type: object
      required: [edge]
      properties:
        edge: {$ref: "#/components/schemas/Edge"}
    Edge:
      type: object
      required: [to]
      properties:
        to: {allOf: [{$ref: "#/components/schemas/Node"}], description: Where it goes.}
`, "To *Node `json:\"to\"`"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := generateWithin(t, docWith("Node", c.schemas))
			if !strings.Contains(string(out.src), c.want) {
				t.Errorf("no %q in\n%s", c.want, out.src)
			}
			checkDecls(t, out.g)
		})
	}
}

// TestDeepAllOf: an allOf chain as long as the document (each schema
// read at its own depth) skips its operation with the reason, quickly:
// its properties were gathered in cubic time.
func TestDeepAllOf(t *testing.T) {
	leakcheck.Check(t)
	const n = 10000
	var b strings.Builder
	for i := n; i >= 1; i-- {
		if i == n {
			fmt.Fprintf(&b, "    S%d: {type: object, properties: {p%d: {type: string}}}\n", i, i)
			continue
		}
		fmt.Fprintf(&b, "    S%d: {allOf: [{$ref: \"#/components/schemas/S%d\"}], properties: {p%d: {type: string}}}\n", i, i+1, i)
	}
	out := generateWithin(t, docWith("S1", b.String()))
	if len(out.g.methods) != 0 || len(out.g.skipped) != 1 || !strings.Contains(out.g.skipped[0].Reason, "nested more than") {
		t.Errorf("deep: %d methods, skipped %+v", len(out.g.methods), out.g.skipped)
	}
}

// TestDeepComponentSkipsEveryUse: a component schema nested too deep is
// refused each time it is read, not only the first (when the
// components are read): an operation that uses it is skipped, not given
// the part read before the refusal.
func TestDeepComponentSkipsEveryUse(t *testing.T) {
	leakcheck.Check(t)
	deep := strings.Repeat("{type: array, items: ", 300) + "{type: string}" + strings.Repeat("}", 300)
	out := generateWithin(t, docWith("Holder", `    Holder: {type: object, properties: {a: {type: string}, deep: {$ref: "#/components/schemas/Deep"}}}
    Deep: `+deep+`
`))
	if len(out.g.methods) != 0 || len(out.g.doc.Skipped) != 1 || !strings.Contains(out.g.doc.Skipped[0].Reason, "nested more than") {
		t.Errorf("%d methods, skipped %+v\n%s", len(out.g.methods), out.g.doc.Skipped, out.src)
	}
}
