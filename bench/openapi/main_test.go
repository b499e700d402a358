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
	for _, args := range [][]string{{"-n", "0"}, {"-docs", "swagger.json", "-corpus", "."}, {"-tools", "x", "-corpus", "."}} {
		var stdout, stderr bytes.Buffer
		if err := run(args, &stdout, &stderr); err == nil {
			t.Errorf("run(%q): no error", args)
		}
	}
}
