package kit

import (
	"context"
	"errors"
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

func newTestEngine(t *testing.T, h http.Handler, n int) (*httptest.Server, *asyncEngine) {
	t.Helper()
	srv := httptest.NewServer(h)
	eng := newAsyncEngine(newDefaultHTTPClient(), n)
	t.Cleanup(func() {
		if err := eng.Close(context.Background()); err != nil {
			t.Errorf("engine Close at cleanup: %v", err)
		}
		srv.Close()
	})
	return srv, eng
}

func okHandler(hits *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		io.WriteString(w, `{"ok":true}`)
	})
}

func mustGet(t *testing.T, ctx context.Context, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestDefaultAsyncEngineHasOnlyAsyncProtocol(t *testing.T) {
	leakcheck.Check(t)
	var eng any = newAsyncEngine(http.DefaultClient, 1)
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
	if got := cap(ac.st.asyncEng.(*asyncEngine).slots); got != DefaultMaxInFlight {
		t.Errorf("default max in flight %d, want %d", got, DefaultMaxInFlight)
	}
}

func TestNewAsyncClientTunesOnlyItsOwnTransport(t *testing.T) {
	leakcheck.Check(t)
	idle := func(ac *AsyncClient) int {
		return ac.st.asyncEng.(*asyncEngine).hc.Transport.(*http.Transport).MaxIdleConnsPerHost
	}
	for _, tc := range []struct {
		opts []Option
		want int
	}{
		{nil, DefaultMaxInFlight},
		{[]Option{WithMaxInFlight(8)}, 32}, // never below the sync default
		{[]Option{WithMaxInFlight(100)}, 100},
	} {
		ac, err := NewAsyncClient("http://h", tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := idle(ac); got != tc.want {
			t.Errorf("%v: MaxIdleConnsPerHost %d, want %d", tc.opts, got, tc.want)
		}
		ac.Close(t.Context())
	}
	mine := &http.Transport{MaxIdleConnsPerHost: 3}
	ac, err := NewAsyncClient("http://h", WithHTTPClient(&http.Client{Transport: mine}), WithMaxInFlight(100))
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(t.Context())
	if mine.MaxIdleConnsPerHost != 3 || idle(ac) != 3 {
		t.Errorf("the caller's transport was changed: %d", mine.MaxIdleConnsPerHost)
	}
}

func TestEngineBodyHoldsSlotUntilClosed(t *testing.T) {
	leakcheck.Check(t)
	var firstClosed atomic.Bool
	var sawOpen atomic.Bool
	var hits atomic.Int64
	srv, eng := newTestEngine(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 2 && !firstClosed.Load() {
			sawOpen.Store(true)
		}
		io.WriteString(w, `{"ok":true}`)
	}), 1)
	ctx := t.Context()

	resp, err := eng.Go(mustGet(t, ctx, srv.URL+"/a")).Await(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(eng.slots); n != 1 {
		t.Fatalf("%d slots taken while a response body is open, want 1", n)
	}
	second := eng.Go(mustGet(t, ctx, srv.URL+"/b"))
	firstClosed.Store(true)
	resp.Body.Close()
	resp2, err := second.Await(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Read to the end without Close: that too gives the slot back.
	if b, err := io.ReadAll(resp2.Body); err != nil || string(b) != `{"ok":true}` {
		t.Fatalf("body %q, %v", b, err)
	}
	if n := len(eng.slots); n != 0 {
		t.Fatalf("%d slots taken after the body was read to the end, want 0", n)
	}
	resp3, err := eng.Go(mustGet(t, ctx, srv.URL+"/c")).Await(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp3.Body.Close()
	resp2.Body.Close()
	if n := len(eng.slots); n != 0 {
		t.Fatalf("%d slots taken after every body was closed, want 0", n)
	}
	if sawOpen.Load() {
		t.Error("second request reached the server while the first body was open (max in flight 1)")
	}
}

func TestEngineCloseWaitsForOpenBody(t *testing.T) {
	leakcheck.Check(t)
	var hits atomic.Int64
	srv, eng := newTestEngine(t, okHandler(&hits), 2)
	ctx := t.Context()

	resp, err := eng.Go(mustGet(t, ctx, srv.URL)).Await(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- eng.Close(ctx) }()
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) while a response body was open", err)
	default:
	}
	resp.Body.Close()
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	f := eng.Go(mustGet(t, ctx, srv.URL))
	if _, err := f.Await(ctx); !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "GET "+srv.URL) {
		t.Errorf("Go after Close: %v", err)
	}
	if hits.Load() != 1 {
		t.Errorf("server saw %d requests, want 1", hits.Load())
	}
	if err := eng.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestEngineCloseGivesUp(t *testing.T) {
	leakcheck.Check(t)
	entered := make(chan struct{}, 4)
	srv, eng := newTestEngine(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fast" {
			io.WriteString(w, "done")
			return
		}
		entered <- struct{}{}
		<-r.Context().Done()
	}), 2)
	ctx := t.Context()

	// A response whose body is left open, a request at the server, one
	// waiting for a slot: a cancelled Close deals with all three.
	open, err := eng.Go(mustGet(t, ctx, srv.URL+"/fast")).Await(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Body.Close()
	inFlight := eng.Go(mustGet(t, ctx, srv.URL+"/slow"))
	<-entered
	waiting := eng.Go(mustGet(t, ctx, srv.URL+"/slow"))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := eng.Close(cctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close: got %v, want context.Canceled", err)
	}
	for name, f := range map[string]*Future[*http.Response]{"in flight": inFlight, "waiting": waiting} {
		select {
		case <-f.Done():
		default:
			t.Fatalf("%s: not done when Close returned", name)
		}
		_, err := f.Await(ctx)
		if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrClosed) {
			t.Errorf("%s: got %v, want context.Canceled and ErrClosed", name, err)
		}
	}
}

func TestEngineRequestWithEndedContextIsNotSent(t *testing.T) {
	leakcheck.Check(t)
	var hits atomic.Int64
	srv, eng := newTestEngine(t, okHandler(&hits), 1)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for range 20 {
		if _, err := eng.Go(mustGet(t, ctx, srv.URL)).Await(t.Context()); !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests with an ended context were sent", hits.Load())
	}
	if len(eng.slots) != 0 {
		t.Errorf("%d slots still taken", len(eng.slots))
	}
	if _, err := eng.Go(nil).Await(t.Context()); err == nil {
		t.Error("nil request accepted")
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
	if err := tr.wait(nil); err != nil {
		t.Fatal(err)
	}
	close(finished)
}

func TestGoFutureAndTasks(t *testing.T) {
	leakcheck.Check(t)
	st, err := newClientState("test", "http://h", nil)
	if err != nil {
		t.Fatal(err)
	}
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
