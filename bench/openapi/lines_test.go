package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCountLines(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go":     "package p\n\n// A is.\nconst A = 1\n",
		"b.go":     "package p\n  \t\nvar b = 2", // no final newline
		"c.txt":    "not Go\n",
		"d_gen.go": "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := countLines(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := lineCount{files: 3, total: 7, nonBlank: 5, bytes: int64(len(files["a.go"]) + len(files["b.go"]))}
	if c != want {
		t.Errorf("countLines = %+v, want %+v", c, want)
	}
}
