package main

import (
	"strings"
	"testing"
)

// TestHelpListsCommands: kitgen -h names both commands, the Go
// interfaces front end and kitgen openapi, and kitgen openapi -h its
// flags, -overlay among them, and -embed as deprecated.
func TestHelpListsCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, out := kitgen(t, dir, "-h")
	for _, want := range []string{"kitgen [-o kit_gen.go]", "kitgen openapi [", "kitgen openapi -h", "-version"} {
		if !strings.Contains(out, want) {
			t.Errorf("kitgen -h (exit %d) does not say %q:\n%s", code, want, out)
		}
	}
	if code != 0 {
		t.Errorf("kitgen -h: exit %d, want 0", code)
	}
	code, out = kitgen(t, dir, "openapi", "-h")
	for _, want := range []string{"usage: kitgen openapi", "-overlay file", "-remote", "-embed", "deprecated"} {
		if !strings.Contains(out, want) {
			t.Errorf("kitgen openapi -h (exit %d) does not say %q:\n%s", code, want, out)
		}
	}
	if code != 0 {
		t.Errorf("kitgen openapi -h: exit %d, want 0", code)
	}
}
