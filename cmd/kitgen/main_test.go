package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/kithttp/kit/cmd/kitgen/internal/testmod"
	"golang.org/x/tools/txtar"
)

// TestMain runs the test binary as kitgen when asked to (stringer's
// pattern), so the tests run the command exactly as users do without
// building it first.
func TestMain(m *testing.M) {
	if os.Getenv("KITGEN_TEST_AS_KITGEN") == "1" {
		os.Exit(run(os.Args[1:]))
	}
	if file := os.Getenv("KITGEN_TEST_ECHO_ARGS"); file != "" {
		// A stand-in for a go:generate command: it writes its arguments.
		b, _ := json.Marshal(os.Args[1:])
		if err := os.WriteFile(file, b, 0o644); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	testmod.SetEnv()
	os.Exit(m.Run())
}

// kitgen runs the test binary as kitgen in dir and returns its exit code
// and output.
func kitgen(t *testing.T, dir string, args ...string) (code int, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(testmod.Env(), "KITGEN_TEST_AS_KITGEN=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String()
}

// newModule writes an empty test module (kit replaced by this repository)
// into a temporary directory.
func newModule(t *testing.T, path string) string {
	t.Helper()
	dir := t.TempDir()
	testmod.Extract(t, &txtar.Archive{Files: []txtar.File{{Name: "go.mod", Data: []byte(testmod.GoMod(path))}}}, dir)
	return dir
}
