package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
)

// TestExampleUpToDate runs kitgen -check on examples/kitgen/github, whose
// kit_gen.go is checked in: it fails when the declarations or kitgen
// changed without go generate being run there.
func TestExampleUpToDate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(testmod.Root(t), "examples", "kitgen", "github")
	if code, msg := kitgen(t, dir, "-check"); code != 0 {
		t.Fatalf("kitgen -check %s: exit %d\n%s(run go generate in examples/kitgen/github)", dir, code, msg)
	}
}

// TestOpenAPIExampleUpToDate: the generated files of examples/openapi
// (an OpenAPI 3.1 document, with an overlay and -env) and of
// examples/openapi/swagger2 (a Swagger 2.0 document) are what kitgen
// openapi writes today, with the flags of each client.go's go:generate
// line.
func TestOpenAPIExampleUpToDate(t *testing.T) {
	for _, sub := range []string{"openapi", filepath.Join("openapi", "swagger2")} {
		dir := filepath.Join(testmod.Root(t), "examples", sub)
		src, err := os.ReadFile(filepath.Join(dir, "client.go"))
		if err != nil {
			t.Fatal(err)
		}
		line := regexp.MustCompile(`(?m)^//go:generate go tool kitgen openapi (.+)$`).FindSubmatch(src)
		if line == nil {
			t.Fatalf("%s: client.go has no //go:generate go tool kitgen openapi line", dir)
		}
		args := append([]string{"openapi", "-check"}, strings.Fields(string(line[1]))...)
		if code, msg := kitgen(t, dir, args...); code != 0 {
			t.Errorf("kitgen %s in %s: exit %d\n%s(run go generate in examples/%s)", strings.Join(args, " "), dir, code, msg, filepath.ToSlash(sub))
		}
	}
}
