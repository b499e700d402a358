package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
)

// The tests in this file are not parallel: each checks on its own that no
// goroutine outlives it (leakcheck.Check), and TestMain checks the package.
// A stream's connection is released when the server sees it closed: its
// handler's context ends.

// endless serves records of format f until the client goes away, then
// closes closed. Each connection is counted on conns.
func endless(f streamFormat, closed chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer close(closed)
		w.Header().Set("Content-Type", f.ctype)
		io.WriteString(w, f.open)
		for i := 0; r.Context().Err() == nil; i++ {
			if _, err := io.WriteString(w, f.record(i, fmt.Sprintf(`{"n":%d}`, i+1))); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// stall serves one record of format f, then waits until the client goes
// away, and closes closed.
func stall(f streamFormat, closed chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		defer close(closed)
		w.Header().Set("Content-Type", f.ctype)
		io.WriteString(w, f.open+f.record(0, `{"n":1}`))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

func TestStreamBreakReleases(t *testing.T) {
	leakcheck.Check(t)
	for _, f := range streamFormats {
		for _, tw := range twins {
			t.Run(f.name+"/"+tw.name, func(t *testing.T) {
				closed := make(chan struct{})
				_, b := tw.setup(t, endless(f, closed))
				s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				n := 0
				for rec, err := range s.All() {
					if err != nil || rec.N != n+1 {
						t.Fatalf("record %d: %+v, %v", n+1, rec, err)
					}
					if n++; n == 100 {
						break
					}
				}
				waitClosed(t, closed)
				if err := s.Close(); err != nil {
					t.Errorf("Close after break: %v", err)
				}
			})
		}
	}
}

func TestStreamCloseReleases(t *testing.T) {
	leakcheck.Check(t)
	f := streamFormats[0]
	for _, tw := range twins {
		t.Run(tw.name+"/during the range", func(t *testing.T) {
			closed := make(chan struct{})
			_, b := tw.setup(t, stall(f, closed))
			s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			var recs []streamRec
			for rec, err := range s.All() {
				if err != nil {
					t.Fatalf("a range that Close ends yields no error, got %v", err)
				}
				recs = append(recs, rec)
				// The next record never comes: Close from elsewhere ends
				// the wait for it.
				go s.Close()
			}
			if len(recs) != 1 {
				t.Errorf("%d records, want 1", len(recs))
			}
			waitClosed(t, closed)
		})
		t.Run(tw.name+"/never ranged", func(t *testing.T) {
			closed := make(chan struct{})
			_, b := tw.setup(t, stall(f, closed))
			s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			waitClosed(t, closed)
			if s.Close() != nil {
				t.Error("a second Close failed")
			}
			_, errs := collectStream(s)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), "ranging over a closed stream") {
				t.Errorf("ranging after Close: %v", errs)
			}
		})
		t.Run(tw.name+"/abandoned, its context ends", func(t *testing.T) {
			closed := make(chan struct{})
			_, b := tw.setup(t, stall(f, closed))
			ctx, cancel := context.WithCancel(t.Context())
			if _, err := twinCall(ctx, tw, streamRecs, b, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			cancel()
			waitClosed(t, closed)
		})
	}
}

func TestStreamCancelReleases(t *testing.T) {
	leakcheck.Check(t)
	for _, f := range streamFormats {
		for _, tw := range twins {
			t.Run(f.name+"/"+tw.name, func(t *testing.T) {
				closed := make(chan struct{})
				_, b := tw.setup(t, stall(f, closed))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				s, err := twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
				if err != nil {
					t.Fatal(err)
				}
				var errs []error
				for _, err := range s.All() {
					if err != nil {
						errs = append(errs, err)
						continue
					}
					go cancel() // while the range waits for record 2
				}
				if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
					t.Errorf("errors %v, want one matching context.Canceled", errs)
				}
				waitClosed(t, closed)
			})
		}
	}
}

// A stream waiting to resume is released by Close and by its context too.
func TestStreamResumeWaitReleases(t *testing.T) {
	leakcheck.Check(t)
	drop := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "retry: 3600000\nid: 1\ndata: {\"n\":1}\n\n")
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	})
	slow := kit.WithRetry(kit.RetryPolicy{MaxDelay: time.Hour}) // waits the server's hour
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			_, b := tw.setup(t, drop, slow)
			s, err := twinCall(t.Context(), tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range s.All() {
				if err != nil {
					t.Fatalf("Close during the wait yields no error, got %v", err)
				}
				go s.Close()
			}

			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s, err = twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
			if err != nil {
				t.Fatal(err)
			}
			var errs []error
			for _, err := range s.All() {
				if err != nil {
					errs = append(errs, err)
				}
				go cancel()
			}
			if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
				t.Errorf("cancel during the wait: %v", errs)
			}
		})
	}
}

// TestStreamAsyncHolds checks what an open stream holds on an AsyncClient:
// its in-flight slot (WithMaxInFlight), given back when the range ends, and
// the call that Close waits for; Close that gives up ends the range with an
// error matching both context.Canceled and ErrClosed.
func TestStreamAsyncHolds(t *testing.T) {
	leakcheck.Check(t)
	f := streamFormats[0]
	closed := make(chan struct{}, 3)
	var first atomic.Bool
	first.Store(true)
	mux := http.NewServeMux()
	mux.HandleFunc("/s", func(w http.ResponseWriter, r *http.Request) {
		done := make(chan struct{})
		go func() { <-done; closed <- struct{}{} }()
		endless(f, done)(w, r)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		if first.Load() {
			t.Error("a second request was sent while the stream held the only slot")
		}
		serveBody("application/x-ndjson", "{\"n\":9}\n")(w, r)
	})
	srv := serve(t, mux)
	ac, err := kit.NewAsyncClient(srv.URL, kit.WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	s, err := streamRecs.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	other := kit.Get[kit.NoParams, *kit.Stream[streamRec]]("/other").Go(t.Context(), ac, kit.NoParams{})
	n := 0
	for _, err := range s.All() {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 10 {
			first.Store(false) // the slot is given back when the range ends
			break
		}
	}
	<-closed
	s2, err := other.Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if recs, errs := collectStream(s2); len(recs) != 1 || errs != nil {
		t.Errorf("%v, %v", recs, errs)
	}

	// Close waits for an open stream, and when its context ends cancels it.
	s, err = streamRecs.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := ac.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v, want context.Canceled: a stream was open", err)
	}
	var errs []error
	for _, err := range s.All() {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) || !errors.Is(errs[0], kit.ErrClosed) {
		t.Errorf("after Close gave up: %v, want one error matching context.Canceled and ErrClosed", errs)
	}
	<-closed
}

// An AsyncClient's Close returns once open streams are closed.
func TestStreamAsyncCloseWaits(t *testing.T) {
	leakcheck.Check(t)
	closed := make(chan struct{})
	srv := serve(t, stall(streamFormats[1], closed))
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	s, err := streamRecs.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- ac.Close(context.Background()) }()
	select {
	case err := <-done:
		t.Fatalf("Close returned (%v) while a stream was open", err)
	default:
	}
	for rec, err := range s.All() {
		if err != nil || rec.N != 1 {
			t.Fatalf("%+v, %v", rec, err)
		}
		break
	}
	if err := <-done; err != nil {
		t.Errorf("Close = %v", err)
	}
	waitClosed(t, closed)
}
