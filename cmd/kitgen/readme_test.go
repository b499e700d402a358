package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

// TestReadmeInstall keeps the documented install story and what CI proves
// the same: the kitgen example of the kitgen guide (docs/kitgen.md) is
// .ci/userclient/api/api.go, the package .ci/release/install generates,
// builds and runs from a published kit; the README shows the install commands; and
// every install command of the README, the guides and kitgen's README
// names kit.Version.
func TestReadmeInstall(t *testing.T) {
	guide := readRepoFile(t, filepath.Join("docs", "kitgen.md"))
	api := readRepoFile(t, filepath.Join(".ci", "userclient", "api", "api.go"))
	if !strings.Contains(guide, "```go\n"+api+"```\n") {
		t.Error("docs/kitgen.md does not show .ci/userclient/api/api.go verbatim in a go code block: update one from the other")
	}
	install := regexp.MustCompile(`go (?:get|run|install)(?: -tool)? (github\.com/kithttp/kit[^\s` + "`" + `]*)`)
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"README.md", filepath.Join("cmd", "kitgen", "README.md")}
	for _, d := range docs {
		names = append(names, filepath.Join("docs", filepath.Base(d)))
	}
	for _, name := range names {
		found := 0
		for _, m := range install.FindAllStringSubmatch(readRepoFile(t, name), -1) {
			found++
			if _, v, _ := strings.Cut(m[1], "@"); v != "v"+kit.Version {
				t.Errorf("%s: %q should install @v%s (kit.Version), the version CI publishes and checks", name, m[0], kit.Version)
			}
		}
		if name == "README.md" && found < 3 {
			t.Errorf("README: found %d install commands for kit modules, want at least 3 (kit, kitgen, kitoauth2)", found)
		}
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
