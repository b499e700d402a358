package kit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit/internal/leakcheck"
)

// Internal tests of the default async engine and of the async work
// tracking that AsyncResource builds on. Not parallel: each checks for
// leaked goroutines on its own.

func TestDefaultAsyncEngineHasOnlyAsyncProtocol(t *testing.T) {
	leakcheck.Check(t)
	var eng any = newAsyncEngine(http.DefaultClient)
	if _, ok := eng.(Engine); ok {
		t.Error("default async engine implements Engine")
	}
	if _, ok := eng.(AsyncEngine); !ok {
		t.Error("default async engine does not implement AsyncEngine")
	}
	ac, err := NewAsyncClient("http://h")
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(t.Context())
	if ac.st.syncEng != nil || ac.st.asyncEng == nil {
		t.Errorf("AsyncClient protocols: sync %T, async %T", ac.st.syncEng, ac.st.asyncEng)
	}
	if got := ac.st.limits.slots.max; got != DefaultMaxInFlight {
		t.Errorf("default max in flight %d, want %d", got, DefaultMaxInFlight)
	}
}

// TestDefaultEnginesKeepWhatTheyOpen checks the rule of both default
// engines: as many idle connections per host as may be open, so that a
// burst of calls does not dial again; a caller's transport is left alone.
func TestDefaultEnginesKeepWhatTheyOpen(t *testing.T) {
	leakcheck.Check(t)
	check := func(name string, tr *http.Transport) {
		t.Helper()
		if tr.MaxConnsPerHost != defaultMaxConnsPerHost || tr.MaxIdleConnsPerHost != tr.MaxConnsPerHost ||
			tr.MaxIdleConns < tr.MaxIdleConnsPerHost {
			t.Errorf("%s: MaxConnsPerHost %d, MaxIdleConnsPerHost %d, MaxIdleConns %d; want %d for each",
				name, tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost, tr.MaxIdleConns, defaultMaxConnsPerHost)
		}
	}
	c, err := NewClient("http://h")
	if err != nil {
		t.Fatal(err)
	}
	check("NewClient", c.st.engine.(*http.Client).Transport.(*http.Transport))
	for _, opts := range [][]Option{nil, {WithMaxInFlight(8)}, {WithMaxInFlight(5000)}} {
		ac, err := NewAsyncClient("http://h", opts...)
		if err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprint("NewAsyncClient", opts), ac.st.asyncEng.(*asyncEngine).hc.Transport.(*http.Transport))
		ac.Close(t.Context())
	}
	mine := &http.Transport{MaxIdleConnsPerHost: 3}
	ac, err := NewAsyncClient("http://h", WithHTTPClient(&http.Client{Transport: mine}), WithMaxInFlight(100))
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(t.Context())
	if got := ac.st.asyncEng.(*asyncEngine).hc.Transport.(*http.Transport); got != mine || mine.MaxIdleConnsPerHost != 3 || mine.MaxConnsPerHost != 0 {
		t.Errorf("the caller's transport was changed: %+v", mine)
	}
}

func TestAsyncEngineGoAndClose(t *testing.T) {
	leakcheck.Check(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	eng := newAsyncEngine(newDefaultHTTPClient())
	ctx := t.Context()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := eng.Go(req).Await(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := eng.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Go(req).Await(ctx); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "GET "+srv.URL) {
		t.Errorf("Go after Close: %v", err)
	}
	if _, err := eng.roundTrip(req); !errors.Is(err, ErrClosed) {
		t.Errorf("roundTrip after Close: %v", err)
	}
	if _, err := eng.Go(nil).Await(ctx); err == nil {
		t.Error("nil request accepted")
	}
	if hits.Load() != 1 {
		t.Errorf("server saw %d requests, want 1", hits.Load())
	}
}

func TestTracker(t *testing.T) {
	leakcheck.Check(t)
	var tr tracker
	if err := tr.wait(t.Context()); err != nil {
		t.Fatalf("wait with nothing begun: %v", err)
	}
	life, ok := tr.begin()
	if !ok || life == nil {
		t.Fatal("begin refused on an open tracker")
	}
	cctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := tr.wait(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("wait with work and an ended context: %v", err)
	}
	first, finished := tr.close()
	if !first || finished == nil {
		t.Fatal("first close not reported")
	}
	if again, ch := tr.close(); again || ch != finished {
		t.Fatal("second close reported as first")
	}
	if _, ok := tr.begin(); ok {
		t.Fatal("begin after close accepted")
	}
	tr.cancelAll(errCloseCancelled)
	if !errors.Is(context.Cause(life), ErrClosed) {
		t.Errorf("life cause %v", context.Cause(life))
	}
	tr.end()
	if err := tr.wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(finished)
}

func TestGoFutureAndTasks(t *testing.T) {
	leakcheck.Check(t)
	ac, err := NewAsyncClient("http://h")
	if err != nil {
		t.Fatal(err)
	}
	st := ac.st
	ctx := t.Context()

	v, err := goFuture(st, ctx, "op", func(ctx context.Context) (int, error) { return 7, nil }).Await(ctx)
	if v != 7 || err != nil {
		t.Fatalf("goFuture: %v, %v", v, err)
	}

	// Work that runs until cancelled: Close gives up, cancels it, and the
	// error says so.
	started := make(chan struct{})
	f := goFuture(st, ctx, "op", func(ctx context.Context) (int, error) {
		close(started)
		<-ctx.Done()
		return 0, ctx.Err()
	})
	<-started
	// Work of one's own, tracked by hand: it honours its context and ends
	// the task when that is done.
	task, err := st.beginAsync(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ownDone := make(chan struct{})
	go func() {
		defer close(ownDone)
		<-task.ctx.Done()
		task.end()
		task.end() // a second end does nothing
	}()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := st.closeAsync(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("closeAsync: %v", err)
	}
	_, err = f.Await(ctx)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrClosed) {
		t.Errorf("cancelled work: %v", err)
	}
	if !errors.Is(context.Cause(task.ctx), ErrClosed) {
		t.Errorf("task cancelled with cause %v", context.Cause(task.ctx))
	}
	<-ownDone

	_, err = goFuture(st, ctx, "List /users", func(ctx context.Context) (int, error) {
		t.Error("fn ran after Close")
		return 0, nil
	}).Await(ctx)
	if !errors.Is(err, ErrClosed) || !strings.HasPrefix(err.Error(), "kit: List /users: ") {
		t.Errorf("after Close: %v", err)
	}
	if _, err := st.beginAsync(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("beginAsync after Close: %v", err)
	}
	var nilCtx context.Context
	if _, err := st.beginAsync(nilCtx); err == nil {
		t.Error("nil context accepted")
	}
}
