package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunWithoutCorpus checks that the comparison says so and succeeds
// when the corpus is absent, as in a user's clone.
func TestRunWithoutCorpus(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-corpus", filepath.Join(t.TempDir(), "absent")}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), "the OpenAPI corpus is not beside this clone") {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

func TestRunFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run([]string{"-help"}, &stdout, &stderr); err != nil || !strings.Contains(stderr.String(), "-docs") {
		t.Errorf("-help: %v, usage %q", err, stderr.String())
	}
	for _, args := range [][]string{{"-n", "0"}, {"-docs", "swagger.json", "-corpus", "."}, {"-tools", "x", "-corpus", "."}, {"-kit", "."}, {"-growth", "ten"}, {"-graph", "-directory", "."}, {"-beta"}, {"-graph", "-beta", "-directory", "."}} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err == nil {
			t.Errorf("run(%q): no error", args)
		}
	}
}

func TestParseCounts(t *testing.T) {
	if got, err := parseCounts(" 100,200, 400 ,"); err != nil || len(got) != 3 || got[0] != 100 || got[2] != 400 {
		t.Errorf("parseCounts = %v, %v", got, err)
	}
	if got, err := parseCounts(""); err != nil || len(got) != 0 {
		t.Errorf("parseCounts of nothing = %v, %v", got, err)
	}
	for _, bad := range []string{"0", "-5", "ten", "100,x"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q): no error", bad)
		}
	}
}

func TestGeneratedOps(t *testing.T) {
	for _, tc := range [][3]int{{767, 28, 739}, {767, 0, 767}, {767, -1, 767}, {0, 3, 0}, {-1, -1, 0}} {
		if got := generatedOps(tc[0], tc[1]); got != tc[2] {
			t.Errorf("generatedOps(%d, %d) = %d, want %d", tc[0], tc[1], got, tc[2])
		}
	}
}

func TestCheckKitRoot(t *testing.T) {
	root, err := checkKitRoot(filepath.Join("..", ".."))
	if err != nil || !filepath.IsAbs(root) {
		t.Errorf("checkKitRoot of this repository = %q, %v", root, err)
	}
	for _, bad := range []string{".", t.TempDir()} {
		if _, err := checkKitRoot(bad); err == nil {
			t.Errorf("checkKitRoot(%q): no error", bad)
		}
	}
}
