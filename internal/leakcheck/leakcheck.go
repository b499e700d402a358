// Package leakcheck finds goroutines that outlive a test or a whole test
// binary. It uses only the standard library: it reads the stacks of all
// goroutines with runtime.Stack, leaves out those of the runtime, of package
// testing and of the caller, and retries with a growing pause (up to
// Timeout) before calling anything left over a leak, because goroutines that
// were told to stop may need a moment to return.
//
// Use Main from TestMain to check the whole binary after all tests ran:
//
//	func TestMain(m *testing.M) { leakcheck.Main(m) }
//
// and Check as the first statement of a test to check just that test:
//
//	func TestX(t *testing.T) {
//		leakcheck.Check(t)
//		...
//	}
//
// Check compares with the goroutines running when it was called, so it must
// not be used in a test that runs in parallel with others (t.Parallel), whose
// goroutines it would report. The functions are safe for concurrent use.
package leakcheck

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Timeout is how long Check, Verify and Main wait for goroutines to end
// before reporting them.
const Timeout = 5 * time.Second

// Goroutine is one goroutine as runtime.Stack prints it.
type Goroutine struct {
	ID    uint64
	State string // "chan receive", "select", "IO wait, 2 minutes", ...
	Entry string // the function the goroutine was started with, "" if unknown
	Stack string // the full text, header line included
}

// Interesting returns the goroutines running now, except the caller's and
// those of the runtime and package testing.
func Interesting() []Goroutine {
	self := currentID()
	var out []Goroutine
	for _, g := range all() {
		if g.ID != self && !ignored(g) {
			out = append(out, g)
		}
	}
	return out
}

// TB is the part of testing.TB that Check uses.
type TB interface {
	Helper()
	Cleanup(func())
	Errorf(format string, args ...any)
}

// Check records the goroutines running now and registers a cleanup that
// fails t if goroutines started since then are still running when the test
// ends (after waiting up to Timeout for them). Call it first in the test, so
// that its cleanup runs after the test's other cleanups (servers, clients)
// have run. Not for parallel tests; see the package documentation.
func Check(t TB) {
	t.Helper()
	before := make(map[uint64]bool)
	for _, g := range Interesting() {
		before[g.ID] = true
	}
	t.Cleanup(func() {
		leaked := wait(checkTimeout, func(g Goroutine) bool { return before[g.ID] })
		if len(leaked) > 0 {
			t.Errorf("leakcheck: %s", report(leaked))
		}
	})
}

// Verify waits up to Timeout for every goroutine but the caller and those of
// the runtime and package testing to end. It returns nil when they did, and
// otherwise an error whose text lists the stacks of those still running.
func Verify() error {
	leaked := wait(Timeout, nil)
	if len(leaked) == 0 {
		return nil
	}
	return fmt.Errorf("leakcheck: %s", report(leaked))
}

// Main runs the tests (m is a *testing.M) and, when they passed, Verify. On
// a leak it prints the stacks to standard error and the binary exits with
// status 1. It does not return.
func Main(m interface{ Run() int }) {
	code := m.Run()
	if code == 0 {
		if err := Verify(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			fmt.Fprintln(os.Stderr, "FAIL: goroutines outlived the tests (see above)")
			code = 1
		}
	}
	os.Exit(code)
}

// Private implementation past this point.

// checkTimeout is Check's wait; tests of this package shorten it.
var checkTimeout = Timeout

// wait retries until no interesting goroutine is left (skip filters out
// those to ignore), pausing 1 ms, then twice as long each time up to 100 ms,
// for at most timeout. It returns the goroutines left.
func wait(timeout time.Duration, skip func(Goroutine) bool) []Goroutine {
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for {
		var left []Goroutine
		for _, g := range Interesting() {
			if skip == nil || !skip(g) {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

func report(leaked []Goroutine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d goroutine(s) still running after waiting:\n", len(leaked))
	for _, g := range leaked {
		b.WriteString("\n")
		b.WriteString(g.Stack)
		b.WriteString("\n")
	}
	return b.String()
}

// ignoredEntries are the packages whose goroutines are not the tests' own:
// the runtime's (main, signal handling), the testing framework's (test
// runners, parallel tests waiting to run, the alarm) and os/signal's.
var ignoredEntries = []string{"runtime.", "testing.", "os/signal.", "main.main"}

func ignored(g Goroutine) bool {
	for _, p := range ignoredEntries {
		if strings.HasPrefix(g.Entry, p) {
			return true
		}
	}
	return false
}

// all returns every goroutine's stack.
func all() []Goroutine {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return parse(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

func currentID() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	id, _, _ := parseHeader(string(buf[:n]))
	return id
}

// parse splits runtime.Stack output into goroutines. Each block is
//
//	goroutine 7 [chan receive]:
//	pkg.fn(...)
//		/path/file.go:12 +0x1d
//	...
//	created by pkg.starter in goroutine 1
//		/path/file.go:30 +0x5a
func parse(text []byte) []Goroutine {
	var out []Goroutine
	for _, block := range bytes.Split(text, []byte("\n\n")) {
		s := strings.TrimSpace(string(block))
		if !strings.HasPrefix(s, "goroutine ") {
			continue
		}
		id, state, ok := parseHeader(s)
		if !ok {
			continue
		}
		out = append(out, Goroutine{ID: id, State: state, Entry: entry(s), Stack: s})
	}
	return out
}

// parseHeader reads "goroutine 7 [chan receive]:".
func parseHeader(s string) (id uint64, state string, ok bool) {
	line, _, _ := strings.Cut(s, "\n")
	rest, found := strings.CutPrefix(line, "goroutine ")
	if !found {
		return 0, "", false
	}
	num, rest, found := strings.Cut(rest, " ")
	if !found {
		return 0, "", false
	}
	id, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, "", false
	}
	state = strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]:")
	return id, state, true
}

// entry returns the outermost function of the stack: the last function line
// before "created by", or the last one at all. runtime.goexit, listed below
// the entry of a goroutine that has not started running yet, is skipped.
func entry(s string) string {
	lines := strings.Split(s, "\n")[1:]
	last := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "created by ") {
			break
		}
		if l == "" || l[0] == '\t' || strings.HasPrefix(l, "...") {
			continue
		}
		if f := funcName(l); f != "runtime.goexit" {
			last = f
		}
	}
	return last
}

// funcName strips the argument list: "pkg.(*T).m(0x1, 0x2)" → "pkg.(*T).m".
func funcName(line string) string {
	if i := strings.LastIndex(line, "("); i > 0 && strings.HasSuffix(line, ")") {
		return line[:i]
	}
	return line
}
