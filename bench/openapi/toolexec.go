package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The command doubles as the -toolexec wrapper of the builds it times: the
// go command runs every compile and link as `wrapper tool args...`, and
// with toolexecLogEnv set the command runs the tool, waits for it and
// appends what the tool cost (CPU, peak RSS) to the log as one JSON line.
// That measures the compiler itself, apart from the go command that runs
// it.
const (
	toolexecLogEnv     = "KIT_OPENAPI_TOOLEXEC_LOG"     // the log, a file of JSON lines
	toolexecPkgEnv     = "KIT_OPENAPI_TOOLEXEC_PKG"     // the import path whose compile is recorded
	toolexecArchiveEnv = "KIT_OPENAPI_TOOLEXEC_ARCHIVE" // where that compile's archive is copied, "" for nowhere
	toolexecMaxRSSEnv  = "KIT_OPENAPI_TOOLEXEC_MAXRSS"  // a peak RSS, in bytes, above which the tool is stopped
)

// toolRun is one recorded run of a tool: the compile of the measured
// package, a link or a vet (go vet runs the vet tool on the dependencies
// first, the package itself last).
type toolRun struct {
	Tool   string        `json:"tool"`             // "compile", "link" or "vet"
	Pkg    string        `json:"pkg,omitempty"`    // the compiled package's import path
	Wall   time.Duration `json:"wall"`             // wall time
	CPU    time.Duration `json:"cpu"`              // user+system time
	MaxRSS int64         `json:"maxrss"`           // peak resident set, bytes; 0 where not measured
	Exit   int           `json:"exit"`             // the tool's exit status; -1 when a signal ended it
	Killed string        `json:"killed,omitempty"` // why the wrapper stopped it, if it did
}

// toolexecMain runs args (a tool and its arguments) as the go command's
// -toolexec wrapper would and records the run when it is one the
// environment asks for. It returns the exit status to leave with.
func toolexecMain(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "openapi toolexec: no tool to run")
		return 2
	}
	tool := strings.TrimSuffix(filepath.Base(args[0]), ".exe")
	pkg := flagValue(args[1:], "-p")
	record := !isVersionQuery(args[1:]) &&
		(tool == "link" || tool == "vet" || tool == "compile" && pkg != "" && pkg == os.Getenv(toolexecPkgEnv))

	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	if err := c.Start(); err != nil {
		fmt.Fprintf(stderr, "openapi toolexec: starting %s: %v\n", tool, err)
		return 1
	}
	// A stop of the build (the comparison's -timeout) reaches the whole
	// process group; pass it on and still record what the tool had cost.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, os.Interrupt)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	killed := make(chan string, 1)
	go watchTool(c.Process, sigs, done, killed)
	err := c.Wait()
	close(done)
	run := toolRun{Tool: tool, Pkg: pkg, Wall: time.Since(start), Exit: c.ProcessState.ExitCode()}
	run.CPU = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	run.MaxRSS = maxRSS(c.ProcessState)
	select {
	case run.Killed = <-killed:
	default:
	}
	if record {
		if err := appendRun(os.Getenv(toolexecLogEnv), run); err != nil {
			fmt.Fprintf(stderr, "openapi toolexec: %v\n", err)
			return 1
		}
		if dst := os.Getenv(toolexecArchiveEnv); tool == "compile" && err == nil && dst != "" {
			if err := copyFile(flagValue(args[1:], "-o"), dst); err != nil {
				fmt.Fprintf(stderr, "openapi toolexec: keeping the archive: %v\n", err)
				return 1
			}
		}
	}
	if run.Killed != "" {
		fmt.Fprintf(stderr, "openapi toolexec: %s stopped: %s\n", tool, run.Killed)
	}
	if err != nil {
		if run.Exit > 0 {
			return run.Exit
		}
		return 1
	}
	return 0
}

// watchTool stops the tool when a signal arrives (passing it on) or when
// its peak RSS passes the environment's limit, saying why on killed.
func watchTool(p *os.Process, sigs <-chan os.Signal, done <-chan struct{}, killed chan<- string) {
	limit, _ := strconv.ParseInt(os.Getenv(toolexecMaxRSSEnv), 10, 64)
	var tick <-chan time.Time
	if limit > 0 {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-done:
			return
		case s := <-sigs:
			killed <- "stopped by " + s.String() + " (the comparison's -timeout or an interrupt)"
			_ = p.Signal(s)
			return
		case <-tick:
			if hwm, ok := peakRSS(p.Pid); ok && hwm > limit {
				killed <- fmt.Sprintf("its peak RSS passed the limit of %s (-maxrss)", megabytes(limit))
				_ = p.Kill()
				return
			}
		}
	}
}

// isVersionQuery reports whether the go command is only asking the tool
// for its version (`compile -V=full`), which it does to key its cache.
func isVersionQuery(args []string) bool {
	return len(args) == 1 && strings.HasPrefix(args[0], "-V")
}

// flagValue is the value of a tool's flag given as "-name value" or
// "-name=value"; "" when it is absent.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// appendRun appends one run to the log.
func appendRun(log string, run toolRun) error {
	if log == "" {
		return errors.New(toolexecLogEnv + " is not set")
	}
	line, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("recording the %s run: %w", run.Tool, err)
	}
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("recording the %s run: %w", run.Tool, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("recording the %s run: %w", run.Tool, err)
	}
	return f.Close()
}

// readRuns reads the runs a log holds, in order; an absent log holds none.
func readRuns(log string) ([]toolRun, error) {
	f, err := os.Open(log)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the tool runs: %w", err)
	}
	defer f.Close()
	var runs []toolRun
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var r toolRun
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("reading the tool runs: line %d: %w", n, err)
		}
		runs = append(runs, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the tool runs: %w", err)
	}
	return runs, nil
}

// lastRun is the last run of tool in runs.
func lastRun(runs []toolRun, tool string) (toolRun, bool) {
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].Tool == tool {
			return runs[i], true
		}
	}
	return toolRun{}, false
}

// copyFile copies src to dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
