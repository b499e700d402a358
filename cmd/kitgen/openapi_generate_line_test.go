package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
)

// TestOpenAPIGenerateLineFollowsFlags: client.go is the user's after the
// first run, but its go:generate line is how the package is regenerated:
// a later run with other flags rewrites that line (and nothing else of
// the file), and -check calls a line that differs stale.
func TestOpenAPIGenerateLineFollowsFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test module")
	}
	mod := newModule(t, "example.com/genline")
	spec := "openapi: 3.0.0\ninfo: {title: t}\npaths:\n  /a:\n    get:\n      operationId: getA\n      tags: [a]\n      responses: {\"204\": {description: ok}}\n  /b:\n    get:\n      operationId: getB\n      tags: [b]\n      responses: {\"204\": {description: ok}}\n"
	testmod.WriteFile(t, filepath.Join(mod, "api", "spec.yaml"), []byte(spec))
	if code, out := kitgen(t, mod, "openapi", "-o", "./api", "-tags", "a", "api/spec.yaml"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	client := filepath.Join(mod, "api", "client.go")
	b, err := os.ReadFile(client)
	if err != nil {
		t.Fatal(err)
	}
	// The user's own code in client.go stays.
	edited := strings.Replace(string(b), "func New(", "// Mine is the user's.\nconst Mine = 1\n\nfunc New(", 1)
	if err := os.WriteFile(client, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := kitgen(t, mod, "openapi", "-check", "-o", "./api", "-tags", "b", "api/spec.yaml"); code != 1 || !strings.Contains(out, "client.go") {
		t.Errorf("-check with other flags: exit %d, want 1 naming client.go\n%s", code, out)
	}
	if code, out := kitgen(t, mod, "openapi", "-o", "./api", "-tags", "b", "api/spec.yaml"); code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	b, err = os.ReadFile(client)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(edited, "-tags a spec.yaml", "-tags b spec.yaml", 1)
	if string(b) != want {
		t.Errorf("client.go after a run with -tags b:\n%s\nwant:\n%s", b, want)
	}
	if code, out := kitgen(t, mod, "openapi", "-check", "-o", "./api", "-tags", "b", "api/spec.yaml"); code != 0 {
		t.Errorf("-check right after: exit %d\n%s", code, out)
	}
}
