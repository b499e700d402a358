package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
)

// hostile ends a line, a comment, a string and a raw string, and holds
// what gofmt refuses (NUL) and what go generate expands ($HOME).
const hostile = "x\nfunc init() { panic(\"pwned\") }\n\u2028\x00\"`\\$HOME *"

// hostileName is hostile without the backquote no kit struct tag holds:
// the query parameter's name is one.
var hostileName = strings.ReplaceAll(hostile, "`", "")

// hostileArg is hostile without its NUL, which no command line holds: the
// tags are named by a flag.
var hostileArg = strings.ReplaceAll(hostile, "\x00", "")

// hostileSpec is a document with hostile text in its titles, summaries,
// descriptions, tags, names and values, and operations named as the
// methods go vet's stdmethods checks.
func hostileSpec(p string) []byte {
	str := map[string]any{"type": "string", "description": p, "format": p, "pattern": p, "example": p, "enum": []any{"a" + p, "b"}}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info":    map[string]any{"title": "T" + p, "version": "1"},
		"servers": []any{map[string]any{"url": "https://h/" + p}},
		"paths": map[string]any{
			"/pets/{id}": map[string]any{"get": map[string]any{
				"operationId": "getPet" + p, "summary": "S" + p, "description": p, "tags": []any{"pets" + hostileArg},
				"parameters": []any{
					map[string]any{"name": "id", "in": "path", "required": true, "description": p, "schema": str},
					map[string]any{"name": "q" + hostileName, "in": "query", "description": p, "schema": str},
					map[string]any{"name": "X-O", "in": "header", "description": p, "schema": str},
				},
				"responses": map[string]any{"200": map[string]any{"description": p, "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Pet" + p}}}}},
			}},
			"/std": map[string]any{
				"get":    map[string]any{"operationId": "marshalJSON", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
				"put":    map[string]any{"operationId": "readFrom", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
				"post":   map[string]any{"operationId": "format", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
				"patch":  map[string]any{"operationId": "string", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
				"delete": map[string]any{"operationId": "unwrap", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
			},
			"/std2": map[string]any{
				"get":    map[string]any{"operationId": "is", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
				"put":    map[string]any{"operationId": "writeTo", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
				"post":   map[string]any{"operationId": "error", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
				"patch":  map[string]any{"operationId": "scan", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
				"delete": map[string]any{"operationId": "client", "tags": []any{"other" + hostileArg}, "responses": map[string]any{"204": map[string]any{"description": p}}},
			},
		},
		"components": map[string]any{
			"schemas": map[string]any{
				"Pet" + p: map[string]any{"type": "object", "description": p, "required": []any{"name" + p},
					"properties": map[string]any{"name" + p: str, "kind": str}},
			},
			"securitySchemes": map[string]any{
				"bearer" + p: map[string]any{"type": "http" + p, "scheme": "bearer"},
				"key" + p:    map[string]any{"type": "apiKey", "in": "header", "name": "X-Key" + p},
			},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

// TestOpenAPIHostileText runs kitgen openapi as a user does on a document
// with hostile text everywhere, a spec and a -config file whose names need
// quoting, and flags that do: the package has no init function and passes
// go vet (the operations named MarshalJSON, ReadFrom... are renamed), and
// client.go's go:generate line gives the command back its arguments when
// go generate runs it.
func TestOpenAPIHostileText(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test module")
	}
	mod := newModule(t, "example.com/hostile")
	spec := filepath.Join("api", "my spec $HOME \"q\".json")
	conf := filepath.Join("api", "kit gen.yaml")
	testmod.WriteFile(t, filepath.Join(mod, spec), hostileSpec(hostile))
	testmod.WriteFile(t, filepath.Join(mod, conf), []byte("pagination: {}\n"))
	tags := "pets" + hostileArg + ",other" + hostileArg
	code, out := kitgen(t, mod, "openapi", "-o", "./api", "-ops", "*", "-tags", tags, "-config", conf, spec)
	if code != 0 {
		t.Fatalf("kitgen openapi: exit %d\n%s", code, out)
	}
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !strings.HasPrefix(l, "kitgen openapi: my spec") && !strings.HasPrefix(l, "api/my spec") || strings.ContainsAny(l, "\x00\u2028") {
			t.Errorf("report line %q", l)
		}
	}
	if !strings.Contains(out, "11 methods, 0 skipped") {
		t.Errorf("report:\n%s", out)
	}

	// No file of the package has an init function or imports more than
	// kit, context, encoding/json and reflect (for the operations' types).
	for _, name := range []string{"openapi_gen.go", "kit_gen.go", "client.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(mod, "api", name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Errorf("%s: an init function", name)
			}
		}
		for _, im := range f.Imports {
			switch im.Path.Value {
			case `"context"`, `"github.com/kithttp/kit"`, `"encoding/json"`, `"net/http"`, `"net/url"`, `"reflect"`:
			default:
				t.Errorf("%s: import %s", name, im.Path.Value)
			}
		}
	}
	vet := exec.Command("go", "vet", "./api")
	vet.Dir, vet.Env = mod, testmod.Env()
	if out, err := vet.CombinedOutput(); err != nil {
		t.Errorf("go vet of the generated package: %v\n%s", err, out)
	}

	// go generate runs client.go's first line with "go" standing for a
	// command that writes its arguments.
	client, err := os.ReadFile(filepath.Join(mod, "api", "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(client), "\n") {
		if strings.HasPrefix(l, "//go:generate go tool kitgen openapi ") {
			line = l
		}
	}
	echo := "package echo\n\n//go:generate -command go $KITGEN_TEST_BINARY\n" + line + "\n"
	testmod.WriteFile(t, filepath.Join(mod, "echo", "echo.go"), []byte(echo))
	argsFile := filepath.Join(t.TempDir(), "args.json")
	gen := exec.Command("go", "generate", "./echo")
	gen.Dir = mod
	gen.Env = append(testmod.Env(), "KITGEN_TEST_BINARY="+os.Args[0], "KITGEN_TEST_ECHO_ARGS="+argsFile)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("go generate of %q: %v\n%s", line, err, out)
	}
	var got []string
	if b, err := os.ReadFile(argsFile); err != nil || json.Unmarshal(b, &got) != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	want := []string{"tool", "kitgen", "openapi", "-package", "api", "-ops", "*", "-tags", tags, "-config", "kit gen.yaml", "my spec $HOME \"q\".json"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("go generate runs %q\n        want %q\nfrom %s", got, want, line)
	}
}
