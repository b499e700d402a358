package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// runner runs the comparison's commands.
type runner struct {
	ctx      context.Context
	log      io.Writer
	timeout  time.Duration
	bench    string // the bench module's directory
	root     string // the kit repository's root
	work     string // the run's temporary directory
	gocache  string // the build cache of the compile measurements
	bins     map[string]string
	self     string // this command, the builds' -toolexec wrapper
	maxRSS   int64  // the compiler's peak RSS above which it is stopped, bytes; 0 for no limit
	versions versions
	loads    []float64 // load averages sampled while timing
}

// timing is one command's wall and CPU (user+system, children included)
// time.
type timing struct{ wall, cpu time.Duration }

// findDirs finds the bench module's directory (from the go command's view
// of the current directory) and the repository root, its parent.
func findDirs(ctx context.Context) (bench, root string, err error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", "", fmt.Errorf("finding the bench module (go env GOMOD): %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	data, err := os.ReadFile(gomod)
	if err != nil || !bytes.HasPrefix(data, []byte("module github.com/kithttp/kit/bench\n")) {
		return "", "", fmt.Errorf("run this from kit's bench module (cd bench && go run ./openapi); the current module is %q", gomod)
	}
	bench = filepath.Dir(gomod)
	root = filepath.Dir(bench)
	if data, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !bytes.HasPrefix(data, []byte("module github.com/kithttp/kit\n")) {
		return "", "", fmt.Errorf("the bench module's parent is not kit's repository root (%v)", err)
	}
	return bench, root, nil
}

// cmd runs a command in dir with env added to the environment, returning
// its combined output and times.
func (r *runner) cmd(dir string, env []string, name string, args ...string) (string, timing, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.timeout)
	defer cancel()
	c := exec.CommandContext(ctx, name, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	inGroup(c)
	start := time.Now()
	err := c.Run()
	t := timing{wall: time.Since(start)}
	if c.ProcessState != nil {
		t.cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	}
	if err != nil {
		err = fmt.Errorf("%s %s: %w", filepath.Base(name), strings.Join(args, " "), err)
	}
	return out.String(), t, err
}

// kitVersion reads kit.Version from the tree's version.go.
func kitVersion(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "version.go"))
	if err != nil {
		return "v?"
	}
	const decl = "const Version = \""
	_, rest, ok := strings.Cut(string(data), decl)
	if !ok {
		return "v?"
	}
	version, _, _ := strings.Cut(rest, "\"")
	return "v" + version
}

// loadAverage is the one-minute load average; ok is false where
// /proc/loadavg is not there.
func loadAverage() (load float64, ok bool) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, false
	}
	load, err = strconv.ParseFloat(f[0], 64)
	return load, err == nil
}

// sampleLoad records the load average; the runner samples it before
// every timed command.
func (r *runner) sampleLoad() {
	if l, ok := loadAverage(); ok {
		r.loads = append(r.loads, l)
	}
}

// machine describes the machine and the load it had while the commands
// were timed.
func (r *runner) machine() string {
	s := fmt.Sprintf("%s, %s/%s, %d CPUs", r.versions.goVersion, runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if len(r.loads) > 0 {
		s += fmt.Sprintf(" shared with other work: one-minute load average %.1f to %.1f while timing", slices.Min(r.loads), slices.Max(r.loads))
	}
	return s
}

// moduleEnv is the environment of go commands in a generated module: no
// go.work, go.mod completed as needed. Compile measurements add the run's
// build cache.
func moduleEnv() []string {
	return []string{"GOWORK=off", "GOFLAGS=" + strings.TrimSpace(os.Getenv("GOFLAGS")+" -mod=mod")}
}

// prepare builds the generators and reads the versions compared.
func (r *runner) prepare(tools []tool) error {
	r.bins = map[string]string{}
	bin := filepath.Join(r.work, "bin")
	fmt.Fprintf(r.log, "openapi: building the generators\n")
	for _, t := range tools {
		dir, pkg := r.bench, t.command
		if t.name == "kitgen" {
			dir, pkg = r.root, "./cmd/kitgen"
		}
		exe := filepath.Join(bin, t.name)
		if out, _, err := r.cmd(dir, []string{"GOWORK=off"}, "go", "build", "-o", exe, pkg); err != nil {
			return fmt.Errorf("building %s: %w\n%s", t.name, err, out)
		}
		r.bins[t.name] = exe
	}
	v := versions{kitRoot: r.root, kit: kitVersion(r.root), runtime: oapiRuntimeVersion}
	if out, _, err := r.cmd(r.root, nil, "git", "rev-parse", "--short", "HEAD"); err == nil {
		v.kit += " at " + strings.TrimSpace(out)
	}
	out, _, err := r.cmd(r.bench, nil, "go", "list", "-m", "-f", "{{.Path}} {{.Version}}", "github.com/ogen-go/ogen", "github.com/oapi-codegen/oapi-codegen/v2")
	if err != nil {
		return fmt.Errorf("reading the generators' versions from bench's go.mod: %w\n%s", err, out)
	}
	for line := range strings.Lines(out) {
		path, version, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch path {
		case "github.com/ogen-go/ogen":
			v.ogen = version
		case "github.com/oapi-codegen/oapi-codegen/v2":
			v.oapi = version
		}
	}
	if out, _, err := r.cmd(r.bench, nil, "go", "env", "GOVERSION"); err == nil {
		v.goVersion = strings.TrimSpace(out)
	}
	r.versions = v
	return nil
}

// measure generates d with t, counts the lines, times the compile,
// counts the compiled functions and links the one-call program.
func (r *runner) measure(d doc, t tool, spec string, repeats int) result {
	res := result{doc: d.name(), tool: t.name, skipped: -1}
	mod := filepath.Join(r.work, d.module(t.name))
	if err := os.MkdirAll(mod, 0o755); err != nil {
		res.err = err.Error()
		return res
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(t.gomod(r.versions)), 0o644); err != nil {
		res.err = err.Error()
		return res
	}
	if t.name == "kitgen" {
		// kitgen type-checks its output: the module needs kit's go.sum.
		sum, err := os.ReadFile(filepath.Join(r.versions.kitRoot, "go.sum"))
		if err == nil {
			err = os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644)
		}
		if err != nil {
			res.err = err.Error()
			return res
		}
	}
	pkgDir := filepath.Join(mod, d.pkg)

	// Generate: attempts in order until one succeeds, then again up to
	// repeats times for the timing.
	var out string
	ok := false
	for i, a := range t.attempts {
		if err := os.RemoveAll(pkgDir); err != nil {
			res.err = err.Error()
			return res
		}
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			res.err = err.Error()
			return res
		}
		config := ""
		if a.config != "" {
			config = filepath.Join(mod, t.name+".yaml")
			if err := os.WriteFile(config, []byte(strings.ReplaceAll(a.config, "PKG", d.pkg)), 0o644); err != nil {
				res.err = err.Error()
				return res
			}
		}
		args := a.args(spec, d.pkg, config)
		r.sampleLoad()
		o, tm, err := r.cmd(mod, moduleEnv(), r.bins[t.name], args...)
		if err != nil {
			res.failures = append(res.failures, failure{option: a.option, text: errorSummary(o, err, 1, r.work, filepath.Dir(spec))})
			if i == len(t.attempts)-1 {
				return res
			}
			continue
		}
		res.option, res.generate = a.option, tm
		for range repeats - 1 {
			r.sampleLoad()
			_, tm, err := r.cmd(mod, moduleEnv(), r.bins[t.name], args...)
			if err != nil {
				break
			}
			res.generate = fastest(res.generate, tm)
		}
		out, ok = o, true
		break
	}
	if !ok {
		return res
	}
	res.generated = true
	if n, reasons, ok := t.skipped(out); ok {
		res.skipped, res.reasons = n, reasons
	}
	lines, err := countLines(pkgDir)
	if err != nil {
		res.err = err.Error()
		return res
	}
	res.lines = lines

	// Compile, with this command as the compiler's -toolexec wrapper,
	// recording the compile of the package alone.
	if o, _, err := r.cmd(mod, moduleEnv(), "go", "mod", "tidy"); err != nil {
		res.err = "go mod tidy: " + errorSummary(o, err, 4, r.work, filepath.Dir(spec))
		return res
	}
	importPath := "example.com/compare/" + d.pkg
	log := filepath.Join(mod, "toolexec.log")
	archive := filepath.Join(mod, d.pkg+".a")
	env := append(moduleEnv(), "GOCACHE="+r.gocache,
		toolexecLogEnv+"="+log, toolexecPkgEnv+"="+importPath, toolexecArchiveEnv+"="+archive,
		toolexecMaxRSSEnv+"="+strconv.FormatInt(r.maxRSS, 10))
	toolexec := "-toolexec=" + r.self
	o, _, err := r.cmd(mod, env, "go", "list", "-deps", "./"+d.pkg)
	if err != nil {
		res.err = "go list -deps: " + errorSummary(o, err, 4, r.work, filepath.Dir(spec))
		return res
	}
	deps := strings.Fields(o)
	if len(deps) == 0 || deps[len(deps)-1] != importPath {
		res.err = fmt.Sprintf("go list -deps ./%s does not end with the package itself", d.pkg)
		return res
	}
	if o, _, err := r.cmd(mod, env, "go", append([]string{"build", toolexec}, deps[:len(deps)-1]...)...); err != nil {
		res.err = "building the dependencies: " + errorSummary(o, err, 4, r.work, filepath.Dir(spec))
		return res
	}
	nonce := filepath.Join(pkgDir, "zz_compare_nonce.go")
	defer os.Remove(nonce)
	for i := range repeats {
		src := fmt.Sprintf("package %s\n\nconst compareNonce = %q\n", d.pkg, strconv.FormatInt(time.Now().UnixNano(), 36)+"-"+strconv.Itoa(i))
		if err := os.WriteFile(nonce, []byte(src), 0o644); err != nil {
			res.err = err.Error()
			return res
		}
		if err := os.Remove(log); err != nil && !errors.Is(err, os.ErrNotExist) {
			res.err = err.Error()
			return res
		}
		r.sampleLoad()
		o, tm, buildErr := r.cmd(mod, env, "go", "build", toolexec, "./"+d.pkg)
		run, found, err := r.compileRun(log, buildErr != nil)
		if err != nil {
			res.err = err.Error()
			return res
		}
		if found {
			res.compiler = append(res.compiler, run)
		}
		if buildErr != nil {
			res.err = "go build: " + errorSummary(o, buildErr, 6, r.work, filepath.Dir(spec))
			if found && run.Killed != "" {
				res.err = fmt.Sprintf("the compile was stopped after %s of CPU at a peak RSS of %s: %s", seconds(run.CPU), megabytes(run.MaxRSS), run.Killed)
			}
			return res
		}
		if !found {
			res.err = "go build: the compile of " + importPath + " was not recorded (was it compiled?)"
			return res
		}
		res.compiles = append(res.compiles, tm)
	}

	// Functions of the package's archive.
	if o, _, err := r.cmd(mod, nil, "go", "tool", "nm", archive); err != nil {
		res.err = "go tool nm: " + errorSummary(o, err, 2, r.work)
		return res
	} else {
		res.funcs = countFuncs(o)
	}

	// The one-call program, linked stripped.
	call := d.calls[t.name]
	if call == "" {
		return res
	}
	mainDir := filepath.Join(mod, "cmd", "onecall")
	if err := os.MkdirAll(mainDir, 0o755); err != nil {
		res.err = err.Error()
		return res
	}
	if err := os.WriteFile(filepath.Join(mainDir, "main.go"), []byte(oneCallProgram(importPath, t.newClient, call)), 0o644); err != nil {
		res.err = err.Error()
		return res
	}
	if err := os.Remove(log); err != nil && !errors.Is(err, os.ErrNotExist) {
		res.err = err.Error()
		return res
	}
	exe := filepath.Join(mod, "onecall")
	r.sampleLoad()
	if o, _, err := r.cmd(mod, env, "go", "build", toolexec, "-ldflags=-s -w", "-o", exe, "./cmd/onecall"); err != nil {
		res.err = "linking the one-call program: " + errorSummary(o, err, 4, r.work, filepath.Dir(spec))
		return res
	}
	fi, err := os.Stat(exe)
	if err != nil {
		res.err = err.Error()
		return res
	}
	res.binary = fi.Size()
	runs, err := readRuns(log)
	if err != nil {
		res.err = err.Error()
		return res
	}
	res.link, _ = lastRun(runs, "link")
	return res
}

// vet runs go vet on d's package generated by t (measure has built it),
// with this command as the vet tool's -toolexec wrapper, and returns the
// vet tool's run on the package itself: the last one go vet starts.
func (r *runner) vet(d doc, t tool) (toolRun, error) {
	mod := filepath.Join(r.work, d.module(t.name))
	log := filepath.Join(mod, "toolexec.log")
	if err := os.Remove(log); err != nil && !errors.Is(err, os.ErrNotExist) {
		return toolRun{}, err
	}
	env := append(moduleEnv(), "GOCACHE="+r.gocache, toolexecLogEnv+"="+log,
		toolexecMaxRSSEnv+"="+strconv.FormatInt(r.maxRSS, 10))
	r.sampleLoad()
	if o, _, err := r.cmd(mod, env, "go", "vet", "-toolexec="+r.self, "./"+d.pkg); err != nil {
		return toolRun{}, fmt.Errorf("%s", errorSummary(o, err, 6, r.work))
	}
	runs, err := readRuns(log)
	if err != nil {
		return toolRun{}, err
	}
	run, ok := lastRun(runs, "vet")
	if !ok {
		return toolRun{}, errors.New("the vet tool's run was not recorded")
	}
	return run, nil
}

// compileRun reads the compile's record from the wrapper's log. After a
// failed build it waits up to 30 s for it: a stopped go command returns
// before the wrapper has seen the compiler it passed the stop to end.
func (r *runner) compileRun(log string, failed bool) (toolRun, bool, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		runs, err := readRuns(log)
		if err != nil {
			return toolRun{}, false, err
		}
		run, found := lastRun(runs, "compile")
		if found || !failed || time.Now().After(deadline) {
			return run, found, nil
		}
		select {
		case <-r.ctx.Done():
			return run, found, nil
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// fastest is the timing with the shorter wall time.
func fastest(a, b timing) timing {
	if b.wall < a.wall {
		return b
	}
	return a
}

// errorSummary is the first n lines of a failed command's output that say
// what went wrong: log lines (INFO, WARN, DEBUG), quoted source lines,
// stack frames and blank lines are left out, and the run's directories are
// removed from paths. With no such line, it is the command's error.
func errorSummary(out string, err error, n int, dirs ...string) string {
	var kept []string
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, " \t\r\n")
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case strings.HasPrefix(line, "INFO\t"), strings.HasPrefix(line, "WARN\t"), strings.HasPrefix(line, "DEBUG\t"):
			continue
		case isSourceLine(trimmed):
			continue
		case trimmed == "generation failed:", strings.HasPrefix(line, "    "), strings.HasPrefix(line, "\t"):
			// Stack frames (ogen's "generation failed:" trace) and
			// indented continuation text.
			continue
		}
		for _, d := range dirs {
			if d != "" {
				trimmed = strings.ReplaceAll(trimmed, d+string(filepath.Separator), "")
			}
		}
		kept = append(kept, trimmed)
		if len(kept) == n {
			break
		}
	}
	if len(kept) == 0 {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Sprintf("exit status %d, no output", ee.ExitCode())
		}
		return err.Error()
	}
	return strings.Join(kept, " / ")
}

// isSourceLine reports whether a line quotes a document's source as ogen's
// errors do: "→ 27796 |   text" or "27795 |   text".
func isSourceLine(s string) bool {
	s = strings.TrimSpace(strings.TrimPrefix(s, "→"))
	num, rest, ok := strings.Cut(s, " |")
	if !ok {
		return false
	}
	_, err := strconv.Atoi(num)
	return err == nil && (rest == "" || rest[0] == ' ' || rest[0] == '\t')
}

// checkKitRoot checks that dir is a kit repository (its go.mod declares
// github.com/kithttp/kit and it has cmd/kitgen) and returns its absolute
// path.
func checkKitRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("-kit %s: %w", dir, err)
	}
	data, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil || !bytes.HasPrefix(data, []byte("module github.com/kithttp/kit\n")) {
		return "", fmt.Errorf("-kit %s: not the root of a kit repository (its go.mod does not declare github.com/kithttp/kit)", dir)
	}
	if _, err := os.Stat(filepath.Join(abs, "cmd", "kitgen")); err != nil {
		return "", fmt.Errorf("-kit %s: no cmd/kitgen: %w", dir, err)
	}
	return abs, nil
}
