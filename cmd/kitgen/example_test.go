package main

import (
	"path/filepath"
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
// kitgen openapi writes from its spec.yaml today.
func TestOpenAPIExampleUpToDate(t *testing.T) {
	dir := filepath.Join(testmod.Root(t), "examples", "openapi")
	if code, msg := kitgen(t, dir, "openapi", "-check", "-package", "users", "spec.yaml"); code != 0 {
		t.Fatalf("kitgen openapi -check in %s: exit %d\n%s(run go generate in examples/openapi)", dir, code, msg)
	}
}
