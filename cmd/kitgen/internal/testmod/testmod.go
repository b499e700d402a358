// Package testmod writes the test modules of kitgen's tests: txtar
// archives whose go.mod replaces kit by this repository.
package testmod

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// GoMod is the go.mod of a test module named path, with kit replaced by
// this repository. In archives, "KITROOT" stands for the repository root.
func GoMod(path string) string {
	return "module " + path + "\n\ngo 1.26.0\n\nrequire github.com/kithttp/kit v0.0.0\n\nreplace github.com/kithttp/kit => KITROOT\n"
}

// Root is the root of the kit repository.
func Root(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("testmod: no caller information")
	}
	// This file is cmd/kitgen/internal/testmod/testmod.go.
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", "..", ".."))
}

// Env is the environment of go commands run on test modules: go list and go
// test may complete a bare go.mod's requirements (from kit's go.sum, which
// Extract copies), and no go.work applies.
func Env() []string {
	return append(os.Environ(), "GOFLAGS="+strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"), "GOWORK=off")
}

// SetEnv sets Env in the test process, for go commands that go/packages
// runs. Call it from TestMain.
func SetEnv() {
	os.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod"))
	os.Setenv("GOWORK", "off")
}

// Extract writes the files of an archive under dir, except those named
// "want*" (expectations). "KITROOT" in a go.mod stands for the repository
// root; a module without a go.sum gets kit's.
func Extract(t testing.TB, ar *txtar.Archive, dir string) {
	t.Helper()
	root := Root(t)
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
		WriteFile(t, filepath.Join(dir, f.Name), data)
	}
	if !hasSum {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
			if err != nil {
				t.Fatal(err)
			}
			WriteFile(t, filepath.Join(dir, "go.sum"), sum)
		}
	}
}

// WriteFile writes a file, making its directory.
func WriteFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// File returns the contents of the named file of an archive.
func File(ar *txtar.Archive, name string) ([]byte, bool) {
	for _, f := range ar.Files {
		if f.Name == name {
			return f.Data, true
		}
	}
	return nil, false
}

// SetFile sets (or adds) a file of an archive.
func SetFile(ar *txtar.Archive, name string, data []byte) {
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			ar.Files[i].Data = data
			return
		}
	}
	ar.Files = append(ar.Files, txtar.File{Name: name, Data: data})
}

// Cases returns the txtar files of a directory.
func Cases(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no test cases in %s: %v", dir, err)
	}
	return files
}
