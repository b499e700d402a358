package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestFlagValue(t *testing.T) {
	args := []string{"-o", "/w/b001/_pkg_.a", "-trimpath", "x", "-p=example.com/compare/github", "-lang=go1.26", "-p"}
	if got := flagValue(args, "-o"); got != "/w/b001/_pkg_.a" {
		t.Errorf("-o = %q", got)
	}
	if got := flagValue(args, "-p"); got != "example.com/compare/github" {
		t.Errorf("-p = %q", got)
	}
	if got := flagValue(args, "-buildid"); got != "" {
		t.Errorf("-buildid = %q, want none", got)
	}
	if !isVersionQuery([]string{"-V=full"}) || isVersionQuery([]string{"-V=full", "x.go"}) || isVersionQuery(nil) {
		t.Error("isVersionQuery")
	}
}

func TestRunLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "runs.log")
	if runs, err := readRuns(log); err != nil || len(runs) != 0 {
		t.Fatalf("readRuns of an absent log = %v, %v", runs, err)
	}
	a := toolRun{Tool: "compile", Pkg: "p", Wall: 2 * time.Second, CPU: 3 * time.Second, MaxRSS: 2_093_000_000}
	b := toolRun{Tool: "link", CPU: time.Second, Exit: -1, Killed: "stopped"}
	c := toolRun{Tool: "compile", Pkg: "p", CPU: 4 * time.Second}
	for _, r := range []toolRun{a, b, c} {
		if err := appendRun(log, r); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := readRuns(log)
	if err != nil || len(runs) != 3 || runs[0] != a || runs[1] != b || runs[2] != c {
		t.Fatalf("readRuns = %+v, %v", runs, err)
	}
	if r, ok := lastRun(runs, "compile"); !ok || r != c {
		t.Errorf("lastRun(compile) = %+v, %v", r, ok)
	}
	if _, ok := lastRun(runs, "asm"); ok {
		t.Error("lastRun(asm): found")
	}
	if err := appendRun("", a); err == nil {
		t.Error("appendRun without a log: no error")
	}
	if err := os.WriteFile(log, []byte("{\"tool\":\"compile\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readRuns(log); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("readRuns of a broken log: %v", err)
	}
}

func TestParseVmHWM(t *testing.T) {
	status := "Name:\tcompile\nVmPeak:\t 9000000 kB\nVmHWM:\t  2044000 kB\nVmRSS:\t 1000 kB\n"
	if n, ok := parseVmHWM(status); !ok || n != 2044000*1024 {
		t.Errorf("parseVmHWM = %d, %v", n, ok)
	}
	for _, s := range []string{"", "VmRSS:\t1 kB\n", "VmHWM:\tmany kB\n", "VmHWM:\t12 MB\n"} {
		if n, ok := parseVmHWM(s); ok {
			t.Errorf("parseVmHWM(%q) = %d, true", s, n)
		}
	}
}

// fakeTool writes an executable shell script named name (as the go command
// names its tools) and returns its path.
func fakeTool(t *testing.T, name, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake tools are shell scripts")
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestToolexecMain(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runs.log")
	archive := filepath.Join(dir, "kept.a")
	t.Setenv(toolexecLogEnv, log)
	t.Setenv(toolexecPkgEnv, "example.com/compare/github")
	t.Setenv(toolexecArchiveEnv, archive)
	t.Setenv(toolexecMaxRSSEnv, "")

	// The measured package's compile: recorded, its archive kept.
	compile := fakeTool(t, "compile", `for a; do [ "$prev" = -o ] && echo archive > "$a"; prev=$a; done`)
	out := filepath.Join(dir, "_pkg_.a")
	var stderr bytes.Buffer
	if code := toolexecMain([]string{compile, "-o", out, "-p", "example.com/compare/github", "a.go"}, &stderr); code != 0 {
		t.Fatalf("compile: exit %d, %s", code, stderr.String())
	}
	// Another package's compile, a version query and a failing link.
	if code := toolexecMain([]string{compile, "-o", out, "-p", "fmt"}, &stderr); code != 0 {
		t.Fatalf("compile of fmt: exit %d", code)
	}
	if code := toolexecMain([]string{compile, "-V=full"}, &stderr); code != 0 {
		t.Fatalf("compile -V=full: exit %d", code)
	}
	link := fakeTool(t, "link", "exit 3")
	if code := toolexecMain([]string{link, "-o", "a.out"}, &stderr); code != 3 {
		t.Errorf("a link that exits with 3: wrapper exits %d", code)
	}
	runs, err := readRuns(log)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Tool != "compile" || runs[0].Pkg != "example.com/compare/github" || runs[0].Exit != 0 ||
		runs[1].Tool != "link" || runs[1].Exit != 3 {
		t.Fatalf("runs = %+v, want the package's compile and the link", runs)
	}
	if runtime.GOOS == "linux" && (runs[0].MaxRSS <= 0 || runs[0].Wall <= 0) {
		t.Errorf("compile run = %+v: no peak RSS or wall time", runs[0])
	}
	if data, err := os.ReadFile(archive); err != nil || string(data) != "archive\n" {
		t.Errorf("kept archive: %q, %v", data, err)
	}
	if code := toolexecMain(nil, &stderr); code == 0 {
		t.Error("no tool: exit 0")
	}
	if code := toolexecMain([]string{filepath.Join(dir, "absent", "compile")}, &stderr); code == 0 {
		t.Error("an absent tool: exit 0")
	}
}

func TestToolexecMaxRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peak RSS is read from Linux's /proc")
	}
	log := filepath.Join(t.TempDir(), "runs.log")
	t.Setenv(toolexecLogEnv, log)
	t.Setenv(toolexecPkgEnv, "")
	t.Setenv(toolexecArchiveEnv, "")
	t.Setenv(toolexecMaxRSSEnv, "1") // one byte: any process passes it
	link := fakeTool(t, "link", "exec sleep 60")
	var stderr bytes.Buffer
	if code := toolexecMain([]string{link}, &stderr); code == 0 {
		t.Errorf("a tool over the limit: exit 0")
	}
	runs, err := readRuns(log)
	if err != nil || len(runs) != 1 || !strings.Contains(runs[0].Killed, "-maxrss") || runs[0].Exit != -1 {
		t.Fatalf("runs = %+v, %v; want one stopped link", runs, err)
	}
	if !strings.Contains(stderr.String(), "link stopped") {
		t.Errorf("stderr %q does not say the tool was stopped", stderr.String())
	}
}

func TestCompileRun(t *testing.T) {
	r := &runner{ctx: t.Context()}
	log := filepath.Join(t.TempDir(), "runs.log")
	if _, found, err := r.compileRun(log, false); found || err != nil {
		t.Errorf("compileRun of a build that did not fail, no record: %v, %v", found, err)
	}
	// A stopped build: the wrapper records the compile after the go
	// command has returned.
	written := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		written <- appendRun(log, toolRun{Tool: "compile", CPU: time.Second, Killed: "stopped"})
	}()
	run, found, err := r.compileRun(log, true)
	if werr := <-written; werr != nil {
		t.Fatal(werr)
	}
	if err != nil || !found || run.Killed != "stopped" {
		t.Errorf("compileRun of a stopped build = %+v, %v, %v", run, found, err)
	}
}
