package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
)

// corpusDir holds public OpenAPI documents beside the repository, as CI
// lays it out; a user's clone does not have it and the test skips.
// KIT_OPENAPI_CORPUS names another directory.
func corpusDir() string {
	if env := os.Getenv("KIT_OPENAPI_CORPUS"); env != "" {
		return env
	}
	return filepath.Join("..", "..", "..", "shared", "openapi-corpus")
}

var corpusDocs = []struct{ file, pkg, sha256 string }{
	{"petstore.yaml", "petstore", "598136cb904e17e8eeead51ae33dd8d401fdff455d2d74f3869c4aa5f2742266"},
	{"api.github.com.json", "github", "74a329543c6c2454423151da7ba7ddd656e485ce771d21752b9164c68175fa73"},
	{"openai_openapi.yaml", "openai", "db5d7478feae10b4d331834c60d9765a8aa042e38419f9b1694288c11aa8ebc8"},
}

var corpusPathRE = regexp.MustCompile(`(?m)^\S*/`)

// TestOpenAPICorpus imports each public document, generates its client,
// builds and vets it, and compares the report (operations, methods,
// skipped with reasons, paginated by kind) with testdata/openapi-corpus.
// KITGEN_UPDATE=1 rewrites those files.
func TestOpenAPICorpus(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("builds large generated packages (not under -short or -race: the plain run covers it)")
	}
	dir, err := filepath.Abs(corpusDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the OpenAPI corpus is not beside this clone (%v): skipping", err)
	}
	mod := newModule(t, "example.com/corpus")
	var pkgs []string
	for _, d := range corpusDocs {
		got := corpusClient(t, dir, mod, d.file)
		golden := filepath.Join("testdata", "openapi-corpus", d.pkg+".report")
		if os.Getenv("KITGEN_UPDATE") == "1" {
			testmod.WriteFile(t, golden, []byte(got))
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s: the report differs from %s (KITGEN_UPDATE=1 rewrites it):\n%s", d.file, golden, got)
		}
		t.Logf("%s", strings.SplitN(got, "\n", 2)[0])
		pkgs = append(pkgs, "./"+d.pkg)
	}
	for _, args := range [][]string{{"build"}, {"vet"}} {
		cmd := exec.Command("go", append(args, pkgs...)...)
		cmd.Dir = mod
		cmd.Env = testmod.Env()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s of the generated clients: %v\n%s", args[0], err, out)
		}
	}
}

// corpusClient checks a corpus document against its sha256 (the corpus's
// SOURCES.md), generates its client into the package of corpusDocs in mod,
// and returns kitgen's report without the document's directory.
func corpusClient(t *testing.T, dir, mod, file string) string {
	t.Helper()
	for _, d := range corpusDocs {
		if d.file != file {
			continue
		}
		spec := filepath.Join(dir, d.file)
		data, err := os.ReadFile(spec)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != d.sha256 {
			t.Fatalf("%s: sha256 %x, want %s (the corpus's SOURCES.md)", d.file, sum, d.sha256)
		}
		code, out := kitgen(t, mod, "openapi", "-o", "./"+d.pkg, spec)
		if code != 0 {
			t.Fatalf("%s: kitgen openapi exited with %d:\n%s", d.file, code, out)
		}
		return corpusPathRE.ReplaceAllString(out, "")
	}
	t.Fatalf("%s is not in the corpus", file)
	return ""
}
