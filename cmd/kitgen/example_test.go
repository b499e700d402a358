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
