package openapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvPrefix: an -env prefix that is not an environment variable's
// name is refused before anything is written; it would be in the names
// New reads.
func TestEnvPrefix(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte("openapi: 3.1.0\ninfo: {title: T, version: \"1\"}\npaths: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"A-B", "1A", "A B", "A\n"} {
		_, err := Run(Config{Spec: spec, Dir: filepath.Join(dir, "out"), Env: bad})
		if err == nil || !strings.Contains(err.Error(), "-env") {
			t.Errorf("-env %q: %v", bad, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("a refused -env wrote the package directory: %v", err)
	}
	if got := envVar("PETS", "bearerAuth", ""); got != "PETS_BEARER_AUTH" {
		t.Errorf("envVar: %s", got)
	}
	if got := envVar("PETS", "basic", "USER"); got != "PETS_BASIC_USER" {
		t.Errorf("envVar: %s", got)
	}
}
