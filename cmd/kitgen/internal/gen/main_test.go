package gen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want files of golden tests")

func TestMain(m *testing.M) {
	// Test modules are written with a bare go.mod (kit replaced by this
	// repository) and kit's go.sum: let go list complete the requirements.
	os.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	os.Setenv("GOWORK", "off")
	os.Exit(m.Run())
}

// repoRoot is the root of the kit repository.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// extract writes the files of an archive into a new temporary directory
// and returns it. "KITROOT" in a go.mod stands for the repository root, and
// a module without a go.sum gets kit's.
func extract(t testing.TB, ar *txtar.Archive) string {
	t.Helper()
	dir := t.TempDir()
	root := repoRoot(t)
	hasSum := false
	for _, f := range ar.Files {
		if strings.HasPrefix(f.Name, "want") {
			continue
		}
		data := f.Data
		if filepath.Base(f.Name) == "go.mod" {
			data = bytes.ReplaceAll(data, []byte("KITROOT"), []byte(filepath.ToSlash(root)))
		}
		hasSum = hasSum || f.Name == "go.sum"
		writeTestFile(t, filepath.Join(dir, f.Name), data)
	}
	if !hasSum {
		sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
		if err != nil {
			t.Fatal(err)
		}
		writeTestFile(t, filepath.Join(dir, "go.sum"), sum)
	}
	return dir
}

func writeTestFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// archiveFile returns the contents of the named file of an archive.
func archiveFile(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// setArchiveFile sets (or adds) a file of an archive.
func setArchiveFile(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

// cases returns the txtar files of a testdata directory.
func cases(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test cases in testdata/%s: %v", dir, err)
	}
	return files
}
