package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// hostilePayloads end a comment, a string, a line or a directive, or are
// what Go, gofmt or an editor reads specially.
var hostilePayloads = []string{
	"\n", "\r", "\u0085", "\u2028", "\u2029", "*/", "`", "\x00", "\"", "\\",
	"\ufeff", "\u202e", "\x1b[2J", "$HOME", " ", "\t",
	"x\nfunc init() { panic(1) }\n//",
	"x\r\nfunc init() { panic(1) }\n//",
	"x\u2028func init() { panic(1) }\u2029//",
	"*/\nimport _ \"os/exec\"\n/*",
	"\n//go:generate sh -c \"echo pwned\"\n",
	"\n//line evil.go:1\n",
	"\n// +build ignore\n",
	"\"\nfunc init() { panic(1) }\nvar _ = \"",
	"`\nfunc init() { panic(1) }\nvar _ = `",
	"\n//kit:option kit.WithHeader(\"X\", \"y\")\n",
	"\n\t//kit:get /evil\n\tEvil(ctx context.Context) error\n",
	"\n}\nfunc init() { panic(1) }\ntype X interface {\n//",
}

// ref is a $ref to components/schemas/name, escaped as a JSON pointer
// and a URL path.
func ref(name string) map[string]any {
	name = strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
	name = strings.ReplaceAll(name, "%", "%25")
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

// hostileDoc is a JSON document with p in every text kitgen copies
// anywhere: titles, summaries, descriptions, operationIds, tags, paths,
// parameters' names, descriptions and schemas, schemas' names,
// descriptions, enums, defaults, examples, formats and patterns, property
// names, discriminator values, security schemes, servers and the x-
// extensions kitgen reads. With p "" it is the same document, clean.
func hostileDoc(p string) []byte {
	str := func(extra ...map[string]any) map[string]any {
		s := map[string]any{"type": "string", "description": "d" + p, "format": "f" + p, "pattern": "^" + p, "example": "e" + p, "default": "v" + p, "title": "t" + p}
		for _, e := range extra {
			for k, v := range e {
				s[k] = v
			}
		}
		return s
	}
	jsonBody := func(schema any) map[string]any {
		return map[string]any{"application/json": map[string]any{"schema": schema, "example": "e" + p}}
	}
	ok := func(schema any) map[string]any {
		return map[string]any{
			"200":     map[string]any{"description": "ok" + p, "content": jsonBody(schema), "headers": map[string]any{"X-Rate" + p: map[string]any{"description": p, "schema": str()}}},
			"default": map[string]any{"description": "error" + p, "content": jsonBody(ref("Error" + p))},
		}
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": "Title" + p, "description": "Description" + p, "version": "1" + p, "summary": p},
		"servers": []any{map[string]any{"url": "https://api.example.com/" + p, "description": "server" + p},
			map[string]any{"url": "https://{v" + p + "}.example.com/" + p, "description": p, "variables": map[string]any{"v" + p: map[string]any{"default": "d" + p, "enum": []any{"d" + p, p}, "description": p}}}},
		"tags":         []any{map[string]any{"name": "pets" + p, "description": p, "externalDocs": map[string]any{"url": "https://d/" + p, "description": p}}},
		"externalDocs": map[string]any{"url": "https://d/" + p, "description": p},
		"security":     []any{map[string]any{"bearer" + p: []any{}}},
		"paths": map[string]any{
			"/pets/{id}": map[string]any{
				"summary": "item" + p, "description": p,
				"get": map[string]any{
					"operationId": "getPet" + p, "summary": "Get a pet" + p, "description": "Long" + p + "\n\n- [see" + p + "](https://l/" + p + ")\n1. two" + p + "\n\n# head" + p + "\n```\n" + p + "\n```", "tags": []any{"pets" + p},
					"externalDocs": map[string]any{"url": "https://d/" + p},
					"parameters": []any{
						map[string]any{"name": "id", "in": "path", "required": true, "description": "The id" + p, "schema": str()},
						map[string]any{"name": "q", "in": "query", "required": true, "description": "q" + p, "schema": str(map[string]any{"enum": []any{"a" + p, "b", p}})},
						map[string]any{"name": "opt" + p, "in": "query", "description": "Optional" + p, "schema": map[string]any{"type": "integer", "default": 5, "example": p}},
						map[string]any{"name": "list" + p, "in": "query", "explode": false, "description": p, "schema": map[string]any{"type": "array", "items": str()}},
						map[string]any{"name": "obj" + p, "in": "query", "explode": false, "description": p, "schema": map[string]any{"type": "object", "properties": map[string]any{"k" + p: str()}}},
						map[string]any{"name": "deep" + p, "in": "query", "style": "deepObject", "description": p, "schema": map[string]any{"type": "object", "properties": map[string]any{"k" + p: str()}}},
						map[string]any{"name": "spread" + p, "in": "query", "description": p, "schema": map[string]any{"type": "object", "properties": map[string]any{"k" + p: str()}}},
						map[string]any{"name": "X-Required", "in": "header", "required": true, "description": p, "schema": str()},
						map[string]any{"name": "X-Optional" + p, "in": "header", "description": "h" + p, "schema": str()},
					},
					"responses": ok(ref("Pet" + p)),
				},
			},
			// The names a directive holds: a payload skips the operation.
			"/required-query": map[string]any{
				"get": map[string]any{
					"operationId": "requiredQuery" + p, "tags": []any{"other" + p, "pets" + p},
					"parameters": []any{map[string]any{"name": "q" + p, "in": "query", "required": true, "schema": str()}},
					"responses":  map[string]any{"204": map[string]any{"description": p}},
				},
			},
			"/required-header": map[string]any{
				"get": map[string]any{
					"operationId": "requiredHeader" + p, "tags": []any{"other" + p},
					"parameters": []any{map[string]any{"name": "X-Required" + p, "in": "header", "required": true, "schema": str()}},
					"responses":  map[string]any{"204": map[string]any{"description": p}},
				},
			},
			"/pets" + p: map[string]any{
				"post": map[string]any{
					"operationId": "createPet" + p, "summary": p, "tags": []any{"pets" + p},
					"requestBody": map[string]any{"description": "body" + p, "required": true, "content": jsonBody(ref("Pet" + p))},
					"responses":   map[string]any{"201": map[string]any{"description": p}},
				},
			},
			"/form": map[string]any{
				"post": map[string]any{
					"operationId": "form" + p, "description": "form" + p,
					"requestBody": map[string]any{"content": map[string]any{"application/x-www-form-urlencoded": map[string]any{"schema": ref("Pet" + p)}}},
					"responses":   map[string]any{"204": map[string]any{"description": p}},
				},
			},
			"/open": map[string]any{
				"get": map[string]any{"operationId": "open" + p, "security": []any{}, "deprecated": true, "summary": "Open" + p,
					"responses": ok(map[string]any{"type": "array", "items": ref("Pet" + p)})},
			},
			"/cursor": map[string]any{
				"get": map[string]any{"operationId": "listCursor" + p,
					"parameters": []any{map[string]any{"name": "after" + p, "in": "query", "schema": str()}},
					"responses":  ok(ref("Page" + p))},
			},
			"/kit": map[string]any{
				"get": map[string]any{"operationId": "listKit" + p,
					"x-kit-pagination": map[string]any{"type": "cursor", "cursorParam": "after" + p, "nextKey": "next" + p, "itemsKey": "data" + p},
					"parameters":       []any{map[string]any{"name": "after" + p, "in": "query", "schema": str()}},
					"responses":        ok(ref("Page" + p))},
			},
			"/ms": map[string]any{
				"get": map[string]any{"operationId": "listMS" + p,
					"x-ms-pageable": map[string]any{"nextLinkName": "nextLink" + p, "itemName": "value" + p},
					"responses":     ok(map[string]any{"type": "object", "properties": map[string]any{"value" + p: map[string]any{"type": "array", "items": ref("Pet" + p)}, "nextLink" + p: str()}})},
			},
			"/speak": map[string]any{
				"get": map[string]any{"operationId": "listSpeak" + p,
					"x-speakeasy-pagination": map[string]any{"type": "cursor", "inputs": []any{map[string]any{"name": "after" + p, "in": "parameters", "type": "cursor"}},
						"outputs": map[string]any{"results": "$.data" + p, "nextCursor": "$.next" + p}},
					"parameters": []any{map[string]any{"name": "after" + p, "in": "query", "schema": str()}},
					"responses":  ok(ref("Page" + p))},
			},
			"/conf": map[string]any{
				"get": map[string]any{"operationId": "listConf" + p,
					"parameters": []any{map[string]any{"name": "after" + p, "in": "query", "schema": str()}},
					"responses":  ok(ref("Page" + p))},
			},
			"/animals": map[string]any{
				"get": map[string]any{"operationId": "animals" + p, "responses": ok(ref("Animal" + p))},
				"put": map[string]any{"operationId": "rawUnion" + p, "requestBody": map[string]any{"content": jsonBody(map[string]any{"oneOf": []any{ref("Pet" + p), str()}, "description": "raw" + p})},
					"responses": map[string]any{"204": map[string]any{"description": p}}},
			},
		},
		"components": map[string]any{
			"schemas": map[string]any{
				"Pet" + p: map[string]any{
					"type": "object", "title": "Pet" + p, "description": "A pet." + p, "example": map[string]any{"name": p},
					"required": []any{"name" + p},
					"properties": map[string]any{
						"name" + p: str(),
						"kind" + p: map[string]any{"type": "string", "enum": []any{"cat" + p, "dog" + p, p}, "description": "kind" + p, "default": "cat" + p},
						"tags":     map[string]any{"type": "array", "items": str(), "description": p},
						"born":     map[string]any{"type": "string", "format": "date-time", "description": "born" + p},
						"meta":     map[string]any{"type": "object", "additionalProperties": str(), "description": p},
						"nullable": map[string]any{"type": []any{"string", "null"}, "description": p},
					},
				},
				"Error" + p: map[string]any{"type": "object", "description": "An error." + p, "properties": map[string]any{"message" + p: str(), "Error": str()}},
				"Page" + p: map[string]any{"type": "object", "description": p,
					"properties": map[string]any{"data" + p: map[string]any{"type": "array", "items": ref("Pet" + p)}, "next" + p: str(), "has_more": map[string]any{"type": "boolean"}}},
				"Cat" + p: map[string]any{"type": "object", "description": "cat" + p, "properties": map[string]any{"kind" + p: str(), "meow" + p: str()}},
				"Dog" + p: map[string]any{"type": "object", "description": "dog" + p, "properties": map[string]any{"kind" + p: str(), "bark" + p: str()}},
				"Animal" + p: map[string]any{"description": "animal" + p, "oneOf": []any{ref("Cat" + p), ref("Dog" + p)},
					"discriminator": map[string]any{"propertyName": "kind" + p, "mapping": map[string]any{"cat" + p: "#/components/schemas/" + ref("Cat" + p)["$ref"].(string)[len("#/components/schemas/"):], "dog" + p: ref("Dog" + p)["$ref"]}}},
			},
			"securitySchemes": map[string]any{
				"bearer" + p: map[string]any{"type": "http", "scheme": "bearer", "description": p},
				"basic" + p:  map[string]any{"type": "http" + p, "scheme": "basic" + p, "description": p},
				"key" + p:    map[string]any{"type": "apiKey", "in": "header", "name": "X-Key" + p, "description": p},
				"query" + p:  map[string]any{"type": "apiKey", "in": "query" + p, "name": "key" + p},
				"other" + p:  map[string]any{"type": "apiKey" + p, "in": "query", "name": "key" + p},
				"oauth" + p:  map[string]any{"type": "oauth2", "description": p, "flows": map[string]any{"clientCredentials": map[string]any{"tokenUrl": "https://a/" + p, "scopes": map[string]any{"read" + p: p}}}},
				"oidc" + p:   map[string]any{"type": "openIdConnect", "openIdConnectUrl": "https://a/" + p},
			},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// hostileConfig is a -config file with p in its keys and values.
func hostileConfig(p string) []byte {
	return []byte(fmt.Sprintf("pagination:\n  %s:\n    type: cursor\n    cursorParam: %s\n    nextKey: %s\n    itemsKey: %s\n",
		strQuote("listConf"+p), strQuote("after"+p), strQuote("next"+p), strQuote("data"+p)))
}

// strQuote writes s as a YAML double-quoted string: Go's ASCII escapes
// are YAML's too.
func strQuote(s string) string {
	return strconv.QuoteToASCII(s)
}

// generated is what kitgen openapi writes from a document, before
// kitgen's own pass: openapi_gen.go, client.go and the report.
type generated struct {
	src, client, report []byte
	shapes              map[string]shape // by file name, once parsed
}

// shape returns the shape of one of the files, parsing it once.
func (g *generated) shape(t testing.TB, name string, src []byte) shape {
	if s, ok := g.shapes[name]; ok {
		return s
	}
	if g.shapes == nil {
		g.shapes = map[string]shape{}
	}
	g.shapes[name] = shapeOf(t, name, src)
	return g.shapes[name]
}

// generateText runs the generator on the document hostileDoc(p) makes,
// with p in the file names and flags too.
func generateText(t testing.TB, p string) (*generated, error) {
	// A document is UTF-8 (JSON writes what is not as U+FFFD); so is the
	// -config file that names its operations.
	p = strings.ToValidUTF8(p, "\uFFFD")
	doc, err := LoadBytes("spec"+p+".json", hostileDoc(p))
	if err != nil {
		return nil, err
	}
	conf, err := parseConfig("kitgen"+p+".yaml", hostileConfig(p))
	if err != nil {
		return nil, err
	}
	if err := checkConfig(doc, conf); err != nil {
		return nil, err
	}
	g := newGenerator(doc, "api", "spec"+p+".json")
	g.config = conf
	// -env: the security schemes' names make environment variables.
	g.setEnv("KIT")
	g.build()
	src, _, err := g.file()
	if err != nil {
		return nil, err
	}
	cfg := Config{Spec: filepath.Join("specs"+p, "spec"+p+".json"), Dir: "api", Ops: "get*" + p, Tags: []string{"pets" + p, "b"}, Config: "kitgen" + p + ".yaml", Env: "KIT", Docs: true}
	client := clientFile(doc, cfg, "api", "api")
	var r bytes.Buffer
	g.report(doc).Print(&r, cfg.Spec)
	// api.md (-docs) is Markdown, not Go: it holds no control
	// character either, and the document's text is on one line each.
	for i, c := range string(g.apiDoc()) {
		if c != '\n' && c != '\t' && unsafeRune(c) {
			return nil, fmt.Errorf("api.md: offset %d: character %U", i, c)
		}
	}
	return &generated{src: src, client: client, report: r.Bytes()}, nil
}

// shape is what a generated file declares, by kind, without names: the
// names follow the document's, the shape must not.
type shape struct {
	imports    map[string]bool
	decls      map[string]int // "func", "method", "type", "const", "var", "import" → count
	directives map[string]int // //kit: and //go: comment lines by their verb
}

// shapeOf parses a generated file and checks what no document may put
// in it: an init function, a directive other than //kit: and the
// go:generate lines of client.go, a comment that is not a // comment, a
// character that is not printable (but a tab or a newline) anywhere.
func shapeOf(t testing.TB, name string, src []byte) shape {
	t.Helper()
	if !utf8.Valid(src) {
		t.Fatalf("%s: not UTF-8\n%s", name, src)
	}
	for i, r := range string(src) {
		if r != '\n' && r != '\t' && unsafeRune(r) {
			t.Fatalf("%s: offset %d: character %U\n%s", name, i, r, src)
		}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", name, err, src)
	}
	s := shape{imports: map[string]bool{}, decls: map[string]int{}, directives: map[string]int{}}
	for _, im := range f.Imports {
		s.imports[im.Path.Value] = true
		if im.Name != nil {
			t.Errorf("%s: a named import %s %s", name, im.Name.Name, im.Path.Value)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				t.Errorf("%s: an init function at %s", name, fset.Position(d.Pos()))
			}
			if d.Recv == nil {
				s.decls["func"]++
			} else {
				s.decls["method"]++
			}
		case *ast.GenDecl:
			s.decls[d.Tok.String()] += len(d.Specs)
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			switch {
			case strings.HasPrefix(c.Text, "/*"):
				t.Errorf("%s: a /* comment at %s: %q", name, fset.Position(c.Pos()), c.Text)
			case c.Text == "//" || strings.HasPrefix(c.Text, "// ") && !strings.HasPrefix(c.Text, "// +build"):
			case strings.HasPrefix(c.Text, "//kit:") || strings.HasPrefix(c.Text, "//go:generate "):
				verb, _, _ := strings.Cut(c.Text, " ")
				s.directives[verb]++
			default:
				t.Errorf("%s: a directive at %s: %q", name, fset.Position(c.Pos()), c.Text)
			}
		}
	}
	return s
}

// unsafeRune reports whether r is what no generated file (nor the report)
// may hold raw: a control character, a line break or space but ' ', the
// byte order mark, a bidirectional control.
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.IsSpace(r) && r != ' ' || r == '\ufeff' ||
		r == '\u061c' || r == '\u200e' || r == '\u200f' || r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// within reports what s has that clean has not.
func (s shape) within(clean shape) []string {
	var extra []string
	for im := range s.imports {
		if !clean.imports[im] {
			extra = append(extra, "import "+im)
		}
	}
	for k, n := range s.decls {
		if n > clean.decls[k] {
			extra = append(extra, fmt.Sprintf("%d %s declarations, %d in the clean document", n, k, clean.decls[k]))
		}
	}
	for k, n := range s.directives {
		if n > clean.directives[k] {
			extra = append(extra, fmt.Sprintf("%d %s lines, %d in the clean document", n, k, clean.directives[k]))
		}
	}
	sort.Strings(extra)
	return extra
}

// checkHostile checks what the generator wrote from the document with p
// against what it writes from the clean one.
func checkHostile(t testing.TB, p string, clean, got *generated) {
	t.Helper()
	for _, f := range []struct {
		name       string
		clean, got []byte
	}{{"openapi_gen.go", clean.src, got.src}, {"client.go", clean.client, got.client}} {
		cs, gs := clean.shape(t, f.name, f.clean), shapeOf(t, f.name, f.got)
		if extra := gs.within(cs); len(extra) > 0 {
			t.Errorf("payload %q: %s has what the document did not ask for: %s\n%s", p, f.name, strings.Join(extra, "; "), f.got)
		}
	}
	for i, r := range string(got.report) {
		if r != '\n' && unsafeRune(r) {
			t.Errorf("payload %q: report: offset %d: character %U\n%s", p, i, r, got.report)
			break
		}
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(got.report), "\n"), "\n") {
		if !strings.HasPrefix(line, "kitgen openapi: ") && !strings.HasPrefix(line, "spec") {
			t.Errorf("payload %q: a report line that is not a position's: %q", p, line)
		}
	}
}

// TestHostileText: no text of a document, nor a file name or flag, puts
// anything in the generated package that the document did not ask for
// (code, an import, a directive), and none fails the document.
func TestHostileText(t *testing.T) {
	clean, err := generateText(t, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range hostilePayloads {
		got, err := generateText(t, p)
		if err != nil {
			t.Errorf("payload %q: %v", p, err)
			continue
		}
		checkHostile(t, p, clean, got)
	}
}

// One NUL in one summary (a JSON document's "\u0000") made gofmt refuse
// the whole file: "illegal character NUL". It is dropped from the comment,
// and the document is generated.
func TestNULInSummary(t *testing.T) {
	doc := `{"openapi": "3.0.3", "info": {"title": "T\u0000", "version": "1"}, "paths": {
  "/a": {"get": {"operationId": "getA", "summary": "Gets\u0000 an A.", "responses": {"204": {"description": "ok"}}}},
  "/b": {"get": {"operationId": "getB", "responses": {"204": {"description": "ok"}}}}}}`
	d, err := LoadBytes("spec.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	g := newGenerator(d, "api", "spec.json")
	g.build()
	src, _, err := g.file()
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if !strings.Contains(string(src), "// GetA: Gets an A.\n") || len(g.methods) != 2 {
		t.Errorf("%d methods:\n%s", len(g.methods), src)
	}
}

// A path, header or query parameter name that a //kit: directive would
// hold with a line break skips its operation, with the reason; the rest
// of the document is generated.
func TestDirectiveTextSkipsOperation(t *testing.T) {
	for _, tc := range []struct{ path, params, want string }{
		{`/a\u2028b`, `[]`, `path "/a\u2028b"`},
		{"/a", `[{"name": "X-A\nB", "in": "header", "required": true, "schema": {"type": "string"}}]`, `header parameter "X-A\nB"`},
		{"/a", `[{"name": "q\r", "in": "query", "required": true, "schema": {"type": "string"}}]`, `query parameter "q\r"`},
	} {
		doc := `{"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {
  "` + tc.path + `": {"get": {"operationId": "getA", "parameters": ` + tc.params + `, "responses": {"204": {"description": "ok"}}}},
  "/b": {"get": {"operationId": "getB", "responses": {"204": {"description": "ok"}}}}}}`
		d, err := LoadBytes("spec.json", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		g := newGenerator(d, "api", "spec.json")
		g.build()
		if _, _, err := g.file(); err != nil {
			t.Fatal(err)
		}
		if len(g.methods) != 1 || len(g.skipped) != 1 || !strings.Contains(g.skipped[0].Reason, tc.want) {
			t.Errorf("%s %s: %d methods, skipped %+v", tc.path, tc.params, len(g.methods), g.skipped)
		}
	}
}

// An operation named as a method whose signature go vet's stdmethods
// checks (MarshalJSON, ReadFrom, Is...) gave a method vet refuses; one
// named Client was hidden by the root's embedded *kit.Client. They are
// renamed, with a note; String and Error, which vet does not check, are
// not.
func TestStdMethodNames(t *testing.T) {
	ids := []string{"marshalJSON", "unmarshalJSON", "format", "readFrom", "writeTo", "is", "as", "unwrap", "scan", "seek",
		"gobEncode", "gobDecode", "marshalXML", "unmarshalXML", "readByte", "readRune", "unreadByte", "unreadRune", "writeByte",
		"client", "string", "error", "goString", "marshalText"}
	var paths strings.Builder
	for i, id := range ids {
		fmt.Fprintf(&paths, "  /p%d:\n    get:\n      operationId: %s\n      responses: {\"204\": {description: ok}}\n", i, id)
	}
	d, err := LoadBytes("spec.yaml", []byte("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n"+paths.String()))
	if err != nil {
		t.Fatal(err)
	}
	g := newGenerator(d, "api", "spec.yaml")
	g.build()
	got := map[string]bool{}
	for _, m := range g.methods {
		got[m.name] = true
	}
	for name := range stdMethods {
		if got[name] || !got[name+"2"] {
			t.Errorf("method %s: not renamed %s2", name, name)
		}
	}
	for _, name := range []string{"String", "Error", "GoString", "MarshalText", "Client2"} {
		if !got[name] {
			t.Errorf("no method %s", name)
		}
	}
	var r bytes.Buffer
	g.report(d).Print(&r, "spec.yaml")
	if !strings.Contains(r.String(), "note: GET /p0: MarshalJSON is the method of json.Marshaler, whose signature go vet checks; this one is MarshalJSON2") {
		t.Errorf("report:\n%s", r.String())
	}
	if n := strings.Count(r.String(), "note:"); n != len(stdMethods)+1 {
		t.Errorf("%d notes, want %d:\n%s", n, len(stdMethods)+1, r.String())
	}
}

// A -package that is not a Go package name was written into client.go
// and openapi_gen.go as it was: "api\nfunc init() {...}" is code.
func TestPackageNameChecked(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"api\nfunc init() { panic(1) }\n", "a b", "_", "1a", "func"} {
		out := filepath.Join(dir, "out")
		_, err := Run(Config{Spec: spec, Dir: out, Package: pkg})
		if err == nil || !strings.Contains(err.Error(), "not a Go package name") {
			t.Errorf("-package %q: %v", pkg, err)
		}
		if entries, _ := os.ReadDir(out); len(entries) > 0 {
			t.Errorf("-package %q: %d files written", pkg, len(entries))
		}
	}
}

// A document whose name starts with a dash was written after the flags
// as it was, and kitgen read it as a flag when go generate ran the line.
func TestGenerateLineSpecLikeAFlag(t *testing.T) {
	d, err := LoadBytes("-spec.yaml", []byte("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	client := string(clientFile(d, Config{Spec: "-spec.yaml"}, ".", "api"))
	if !strings.Contains(client, "//go:generate go tool kitgen openapi -package api -- -spec.yaml\n") {
		t.Errorf("client.go:\n%s", client)
	}
}
