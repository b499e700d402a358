package openapi

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/tools/txtar"
)

// FuzzImport: no document makes the importer or the generator panic or
// hang; every import error is an *Error with a position or names the file,
// and whatever the importer accepts, the generator writes as Go that
// parses and formats.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"petstore.yaml"} {
		if data, err := os.ReadFile(filepath.Join(corpusDir, name)); err == nil {
			f.Add(data)
		}
	}
	// Every rule's documents: each mapping rule is a seed.
	rules, _ := filepath.Glob(filepath.Join("testdata", "rules", "*.txtar"))
	for _, file := range rules {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range ar.Files {
			if s.Name == "spec.yaml" || s.Name == "spec30.yaml" {
				f.Add(s.Data)
			}
		}
	}
	f.Add([]byte("openapi: 3.1.0\npaths:\n  /a/{id}:\n    get:\n      parameters: [{name: id, in: path, schema: {type: [integer, \"null\"]}}]\n      responses: {\"200\": {content: {application/json: {schema: {$ref: \"#/components/schemas/A\"}}}}}\ncomponents:\n  schemas:\n    A: {allOf: [{$ref: \"#/components/schemas/A\"}], discriminator: {propertyName: k, mapping: {x: A}}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := LoadBytes("spec.yaml", data)
		if err != nil {
			return
		}
		for _, op := range d.Ops {
			if op.Method == "" || op.Path == "" && op.Pos.Line == 0 {
				t.Fatalf("operation without a method or position: %+v", op)
			}
		}
		g := newGenerator(d, "api", "spec.yaml")
		g.build()
		src, _, err := g.file()
		if err != nil {
			t.Fatalf("the generator wrote Go that does not format: %v\n%s", err, src)
		}
		// What parses holds no init function, no directive but //kit:
		// lines, and imports only what the generator writes.
		for im := range shapeOf(t, Output, src).imports {
			if !generatorImports[im] {
				t.Errorf("import %s\n%s", im, src)
			}
		}
		shapeOf(t, "client.go", clientFile(d, Config{Spec: "spec.yaml"}, ".", "api"))
	})
}

// generatorImports are the imports openapi_gen.go may have.
var generatorImports = map[string]bool{}

func init() {
	for _, im := range []string{"context", "github.com/kithttp/kit", "github.com/kithttp/kit/kitwebhook", "encoding/json", "fmt", "io", "iter", "maps", "net/http", "slices", "strconv", "strings", "time"} {
		generatorImports[strconv.Quote(im)] = true
	}
}

// FuzzHostileText: whatever text is in every field kitgen copies (and in
// the file names and flags), the generated package has nothing the
// document did not ask for: no init function, no other import, no
// directive, no declaration the clean document does not have.
func FuzzHostileText(f *testing.F) {
	for _, p := range hostilePayloads {
		f.Add(p)
	}
	clean, err := generateText(f, "")
	if err != nil {
		f.Fatal(err)
	}
	clean.shape(f, "openapi_gen.go", clean.src) // parsed once, before the fuzzing goroutines read them
	clean.shape(f, "client.go", clean.client)
	f.Fuzz(func(t *testing.T, p string) {
		got, err := generateText(t, p)
		if err != nil {
			if strings.HasPrefix(err.Error(), "kitgen") {
				return // the -config file's values are the user's, and checked
			}
			t.Fatalf("payload %q fails the document: %v", p, err)
		}
		checkHostile(t, p, clean, got)
	})
}

// FuzzConfig: no -config file makes the reader panic; what it refuses is
// an *Error with the file's position.
func FuzzConfig(f *testing.F) {
	rules, _ := filepath.Glob(filepath.Join("testdata", "rules", "*.txtar"))
	for _, file := range rules {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, s := range ar.Files {
			if s.Name == "kitgen.yaml" {
				f.Add(s.Data)
			}
		}
	}
	f.Add([]byte("pagination:\n  listA: {type: cursor, cursorParam: a, recordKey: id, hasMoreKey: more, inBody: true}\n  GET /b: none\n"))
	f.Add([]byte("pagination:\n  x: {type: offset, limit: -1}\n"))
	f.Add([]byte("pagination:\n  x: {type: pageNumber, start: unknown}\n  y: {type: pageNumber, start: 2}\n  z: {type: cursor, start: 0}\n"))
	f.Add([]byte("pagination: [1, 2]\n"))
	f.Add([]byte("other: {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseConfig("kitgen.yaml", data)
		if err != nil {
			var pe *Error
			if errors.As(err, &pe) && pe.Pos.File != "kitgen.yaml" {
				t.Fatalf("an error positioned elsewhere: %v", err)
			}
			return
		}
		for key, p := range cfg.Pagination {
			if err := p.check(); err != nil {
				t.Fatalf("%s: accepted, but check says %v", key, err)
			}
			if p.literal() == "" {
				t.Fatalf("%s: no literal", key)
			}
		}
	})
}

// FuzzOverlayPath: an overlay's target, outside input, never makes the
// JSONPath parser or its selection panic or hang, and what the parser
// accepts selects only nodes of the document.
func FuzzOverlayPath(f *testing.F) {
	for _, s := range []string{
		"$.paths['/a'].get", `$.paths["/a"]["get","post"]`, "$.paths.*.get", "$..get",
		"$..parameters[-1]", "$.paths.*.get.parameters[?@.name=='filter' && @.in=='query']",
		`$..parameters[?(@.name != "filter")]`, "$..parameters[?!@.required || @.in == 'header']",
		"$[", "$['a", "$[?(@.a]", "$.a[1:2]",
	} {
		f.Add(s)
	}
	const doc = "paths:\n  /a:\n    get: {operationId: getA, parameters: [{name: filter, in: query}, {name: id, in: path, required: true}]}\n    post: {operationId: postA}\n"
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		f.Fatal(err)
	}
	all := map[*yaml.Node]bool{root.Content[0]: true}
	for _, n := range descendants(root.Content[0], nil) {
		all[n] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseJSONPath(s)
		if err != nil {
			return
		}
		for _, m := range p.apply(root.Content[0]) {
			if !all[m.n] {
				t.Fatalf("%q selects a node not in the document: %v", s, m.n)
			}
		}
	})
}
