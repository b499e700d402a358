package leakcheck

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

// fakeTB records what Check reports.
type fakeTB struct {
	mu       sync.Mutex
	cleanups []func()
	errs     []string
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) finish() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func TestCheckCleanTest(t *testing.T) {
	ft := &fakeTB{}
	Check(ft)
	done := make(chan struct{})
	go func() { close(done) }()
	<-done
	ft.finish()
	if len(ft.errs) != 0 {
		t.Fatalf("clean test reported: %v", ft.errs)
	}
}

func TestCheckWaitsForEndingGoroutine(t *testing.T) {
	ft := &fakeTB{}
	Check(ft)
	stop := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		<-stop
		close(exited)
	}()
	// Told to stop just before the check: the retry must absorb it.
	close(stop)
	ft.finish()
	<-exited
	if len(ft.errs) != 0 {
		t.Fatalf("goroutine that ends was reported: %v", ft.errs)
	}
}

func TestCheckReportsLeak(t *testing.T) {
	defer func(d time.Duration) { checkTimeout = d }(checkTimeout)
	checkTimeout = 50 * time.Millisecond
	ft := &fakeTB{}
	Check(ft)
	stop := make(chan struct{})
	exited := make(chan struct{})
	go leakyWorker(stop, exited)
	ft.finish()
	close(stop)
	<-exited
	if len(ft.errs) != 1 {
		t.Fatalf("got %d reports, want 1: %v", len(ft.errs), ft.errs)
	}
	if !strings.Contains(ft.errs[0], "leakyWorker") || !strings.Contains(ft.errs[0], "1 goroutine(s)") {
		t.Errorf("report does not show the leaked stack:\n%s", ft.errs[0])
	}
}

func leakyWorker(stop, exited chan struct{}) {
	<-stop
	close(exited)
}

func TestParseAndIgnore(t *testing.T) {
	text := `goroutine 1 [chan receive]:
testing.(*T).Run(0xc000102b60, {0x5c1b2e?, 0x0?}, 0x5d7f40)
	/go/src/testing/testing.go:1751 +0x3ab
testing.runTests(...)
	/go/src/testing/testing.go:2168 +0x41
main.main()
	_testmain.go:47 +0x9b
runtime.main()
	/go/src/runtime/proc.go:283 +0x28b

goroutine 7 [select]:
net/http.(*persistConn).readLoop(0xc0001b8000)
	/go/src/net/http/transport.go:2395 +0xc65
created by net/http.(*Transport).dialConn in goroutine 6
	/go/src/net/http/transport.go:1944 +0x174f

goroutine 8 [chan receive]:
testing.(*T).Parallel(0xc000102d00)
	/go/src/testing/testing.go:1577 +0x225
example.TestX(0xc000102d00)
	/x/x_test.go:10 +0x25
testing.tRunner(0xc000102d00, 0x5d7f38)
	/go/src/testing/testing.go:1690 +0xf4
created by testing.(*T).Run in goroutine 1
	/go/src/testing/testing.go:1743 +0x390

goroutine 9 [chan receive, 3 minutes]:
example.leak.func1()
	/x/x.go:5 +0x25
created by example.leak in goroutine 8
	/x/x.go:4 +0x5a

goroutine 10 [runnable]:
example.TestY.gowrap2()
	/x/x_test.go:70
runtime.goexit({})
	/go/src/runtime/asm_amd64.s:1771 +0x1
created by example.TestY in goroutine 8
	/x/x_test.go:70 +0x23d
`
	gs := parse([]byte(text))
	type row struct {
		id      uint64
		state   string
		entry   string
		ignored bool
	}
	want := []row{
		{1, "chan receive", "runtime.main", true},
		{7, "select", "net/http.(*persistConn).readLoop", false},
		{8, "chan receive", "testing.tRunner", true},
		{9, "chan receive, 3 minutes", "example.leak.func1", false},
		{10, "runnable", "example.TestY.gowrap2", false},
	}
	if len(gs) != len(want) {
		t.Fatalf("parsed %d goroutines, want %d", len(gs), len(want))
	}
	for i, w := range want {
		g := gs[i]
		got := row{g.ID, g.State, g.Entry, ignored(g)}
		if got != w {
			t.Errorf("goroutine %d: got %+v, want %+v", i, got, w)
		}
	}
}

func TestInterestingLeavesOutCaller(t *testing.T) {
	self := currentID()
	if self == 0 {
		t.Fatal("no goroutine id for the caller")
	}
	for _, g := range Interesting() {
		if g.ID == self {
			t.Fatalf("caller listed:\n%s", g.Stack)
		}
	}
}
