package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	"golang.org/x/tools/txtar"
)

// TestEndToEnd generates the package of each testdata/e2e archive into one
// temporary module, with one kitgen run over all of them, then runs go test
// -race there: the tests in the archives call the generated clients
// against kittest (RecordingEngine for exact requests, NewAPI for the rest).
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test module")
	}
	mod := newModule(t, "example.com/e2e")
	var dirs []string
	for _, file := range testmod.Cases(t, filepath.Join("testdata", "e2e")) {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		testmod.Extract(t, ar, filepath.Join(mod, name))
		dirs = append(dirs, "./"+name)
	}
	if code, out := kitgen(t, mod, dirs...); code != 0 {
		t.Fatalf("kitgen exited with %d:\n%s", code, out)
	}

	cmd := exec.Command("go", "test", "-race", "-count=1", "-json", "./...")
	cmd.Dir = mod
	cmd.Env = testmod.Env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()

	// One subtest per package, with its output when it failed.
	type pkgResult struct {
		action string
		output strings.Builder
	}
	results := map[string]*pkgResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct{ Action, Package, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Package == "" {
			continue
		}
		r := results[ev.Package]
		if r == nil {
			r = &pkgResult{}
			results[ev.Package] = r
		}
		switch {
		case ev.Action == "output":
			r.output.WriteString(ev.Output)
		case ev.Test == "" && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip"):
			r.action = ev.Action
		}
	}
	var pkgs []string
	for p := range results {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, dir := range dirs {
		pkg := "example.com/e2e/" + strings.TrimPrefix(dir, "./")
		t.Run(strings.TrimPrefix(dir, "./"), func(t *testing.T) {
			r := results[pkg]
			switch {
			case r == nil:
				t.Errorf("no test results for %s", pkg)
			case r.action != "pass":
				t.Errorf("go test %s: %s\n%s", pkg, r.action, r.output.String())
			}
		})
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("go test: %v\n%s", runErr, stderr.String())
	}
}
