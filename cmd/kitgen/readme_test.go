package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

// TestReadmeInstall keeps the README's install story and what CI proves the
// same: the kitgen example in the README is .ci/userclient/api/api.go, the
// package .ci/release generates, builds and runs from a published kit, and
// every install command names kit.Version.
func TestReadmeInstall(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	api := readRepoFile(t, filepath.Join(".ci", "userclient", "api", "api.go"))
	if !strings.Contains(readme, "```go\n"+api+"```\n") {
		t.Error("README.md does not show .ci/userclient/api/api.go verbatim in a go code block: update one from the other")
	}
	install := regexp.MustCompile(`go (?:get|run|install)(?: -tool)? (github\.com/kithttp/kit[^\s` + "`" + `]*)`)
	found := 0
	for _, m := range install.FindAllStringSubmatch(readme, -1) {
		found++
		if _, v, _ := strings.Cut(m[1], "@"); v != "v"+kit.Version {
			t.Errorf("README: %q should install @v%s (kit.Version), the version CI publishes and checks", m[0], kit.Version)
		}
	}
	if found < 3 {
		t.Errorf("README: found %d install commands for kit modules, want at least 3 (kit, kitgen, kitoauth2)", found)
	}
}

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
