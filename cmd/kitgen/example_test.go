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

// TestOpenAPIExampleUpToDate: examples/openapi's generated files are what
// kitgen openapi writes from its spec.yaml today, with the flags of
// client.go's go:generate line (-overlay, -env).
func TestOpenAPIExampleUpToDate(t *testing.T) {
	dir := filepath.Join(testmod.Root(t), "examples", "openapi")
	src, err := os.ReadFile(filepath.Join(dir, "client.go"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^//go:generate go tool kitgen openapi (.+)$`).FindSubmatch(src)
	if line == nil {
		t.Fatal("examples/openapi/client.go has no //go:generate go tool kitgen openapi line")
	}
	args := append([]string{"openapi", "-check"}, strings.Fields(string(line[1]))...)
	if code, msg := kitgen(t, dir, args...); code != 0 {
		t.Fatalf("kitgen %s in %s: exit %d\n%s(run go generate in examples/openapi)", strings.Join(args, " "), dir, code, msg)
	}
}
