package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusDir is where the public documents of the corpus are: beside the
// repository, as a clone of the project lays it out for CI. A user's clone
// does not have it, and the tests that need it skip. KIT_OPENAPI_CORPUS
// names another directory.
var corpusDir = filepath.Join("..", "..", "..", "..", "..", "shared", "openapi-corpus")

// corpus lists the documents with the sha256 their sources name, and what
// reading each must give: operations read, operations skipped, and named
// schemas.
var corpus = []struct {
	file           string
	sha256         string
	ops, skipped   int
	schemas        int
	version        string
	wantOperations []string // a few that must be there
}{
	{"petstore.yaml", "598136cb904e17e8eeead51ae33dd8d401fdff455d2d74f3869c4aa5f2742266", 3, 0, 3, "3.0.0",
		[]string{"GET /pets listPets", "POST /pets createPets", "GET /pets/{petId} showPetById"}},
	{"api.github.com.json", "74a329543c6c2454423151da7ba7ddd656e485ce771d21752b9164c68175fa73", 767, 0, 0, "3.0.3",
		[]string{"GET /repos/{owner}/{repo}/issues issues/list-for-repo", "GET /repos/{owner}/{repo}/contents/{path} repos/get-content"}},
	{"openai_openapi.yaml", "db5d7478feae10b4d331834c60d9765a8aa042e38419f9b1694288c11aa8ebc8", 0, 0, 0, "3.1.0",
		[]string{"POST /chat/completions createChatCompletion"}},
}

func corpusFile(t testing.TB, name, sum string) string {
	t.Helper()
	dir := corpusDir
	if env := os.Getenv("KIT_OPENAPI_CORPUS"); env != "" {
		dir = env // another place, for a checkout that is not beside it
	}
	path := filepath.Join(dir, name)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("the OpenAPI corpus is not beside this clone (%s): skipping", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := sha256.Sum256(data); hex.EncodeToString(got[:]) != sum {
		t.Fatalf("%s: sha256 %x, want %s (see the corpus's SOURCES.md)", name, got, sum)
	}
	return path
}

func TestCorpus(t *testing.T) {
	for _, c := range corpus {
		t.Run(c.file, func(t *testing.T) {
			d, err := Load(corpusFile(t, c.file, c.sha256))
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, op := range d.Ops {
				ids = append(ids, op.Method+" "+op.Path+" "+op.ID)
			}
			for _, want := range c.wantOperations {
				if !slices.Contains(ids, want) {
					t.Errorf("operation %q not read", want)
				}
			}
			for _, s := range d.Skipped {
				t.Logf("skipped %s %s at %s: %s", s.Method, s.Path, s.Pos, s.Reason)
			}
			t.Logf("%s (OpenAPI %s): %d operations, %d skipped, %d schemas", c.file, d.Version, len(d.Ops), len(d.Skipped), len(d.Schemas))
			if d.Version != c.version {
				t.Errorf("version %s, want %s", d.Version, c.version)
			}
			if c.ops != 0 && len(d.Ops) != c.ops {
				t.Errorf("%d operations, want %d", len(d.Ops), c.ops)
			}
			if len(d.Skipped) != c.skipped {
				t.Errorf("%d operations skipped, want %d", len(d.Skipped), c.skipped)
			}
			_ = fmt.Sprint
			_ = strings.Cut
		})
	}
}
