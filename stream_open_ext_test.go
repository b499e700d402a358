package kit_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
)

// Streams whose context ends while they open: the stream is registered to
// close on the context's end while the response is being turned into it,
// and whatever order the two happen in, the stream is released once (its
// connection closed, its in-flight slot and async call given back, its
// observer's StreamEnd and CallEnd called once each). Run with -race.

// cancelKey is the context key of the func that cancelAfterResponse calls.
type cancelKey struct{}

// cancelAfterResponse is a transport that ends the request's call (the
// func under cancelKey in its context) once the response's headers have
// arrived: the call's context ends while kit opens the stream.
type cancelAfterResponse struct{ base http.RoundTripper }

func (c cancelAfterResponse) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if cancel, ok := r.Context().Value(cancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
	return resp, err
}

// openCounts counts the ends an observer sees.
type openCounts struct {
	callEnds, streamEnds atomic.Int64
	ended                chan struct{} // one per CallEnd
}

func (o *openCounts) observer() kit.Observer {
	return kit.Observer{
		CallEnd:   func(context.Context, kit.CallResult) { o.callEnds.Add(1); o.ended <- struct{}{} },
		StreamEnd: func(context.Context, kit.StreamResult) { o.streamEnds.Add(1) },
	}
}

var streamOpenBody = kit.Get[kit.NoParams, io.ReadCloser]("/s")

func TestStreamContextEndsAsItOpens(t *testing.T) {
	leakcheck.Check(t)
	const iterations = 50
	for _, kind := range []string{"Stream", "ReadCloser"} {
		for _, tw := range twins {
			for _, how := range []string{"after the response", "concurrently"} {
				t.Run(kind+"/"+tw.name+"/"+how, func(t *testing.T) {
					var entered atomic.Int64
					exited := make(chan struct{}, 4*iterations) // room for every request
					h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						entered.Add(1)
						defer func() { exited <- struct{}{} }()
						w.Header().Set("Content-Type", "application/x-ndjson")
						io.WriteString(w, "{\"n\":1}\n")
						w.(http.Flusher).Flush()
						<-r.Context().Done() // until the client closes the connection
					})
					counts := &openCounts{ended: make(chan struct{}, iterations)}
					hc := &http.Client{Transport: cancelAfterResponse{http.DefaultTransport.(*http.Transport).Clone()}}
					defer hc.CloseIdleConnections()
					_, b := tw.setup(t, h, kit.WithHTTPClient(hc), kit.WithMaxInFlight(1), kit.WithObserver(counts.observer()))
					for i := range iterations {
						ctx, cancel := context.WithCancel(t.Context())
						if how == "after the response" {
							ctx = context.WithValue(ctx, cancelKey{}, context.CancelFunc(cancel))
						} else {
							go cancel()
						}
						opened := openOnce(t, tw, kind, ctx, b)
						// Released: by the end of the context, or by Close
						// once opened. A slot held by a stream never released
						// (WithMaxInFlight(1)) blocks the next iteration's call.
						select {
						case <-counts.ended:
						case <-time.After(5 * time.Second):
							t.Fatalf("iteration %d: the call never ended (the stream was not released)", i)
						}
						cancel()
						if opened != nil {
							if err := opened.Close(); err != nil {
								t.Errorf("iteration %d: Close: %v", i, err)
							}
						}
					}
					for n := int64(0); n < entered.Load(); n++ {
						waitClosed(t, exited) // each connection was closed
					}
					if c, s := counts.callEnds.Load(), counts.streamEnds.Load(); c != iterations || (kind == "Stream" && s > iterations) || (kind == "ReadCloser" && s != 0) {
						t.Errorf("CallEnd called %d times, StreamEnd %d, for %d calls", c, s, iterations)
					}
				})
			}
		}
	}
}

// openOnce makes one call of the kind of the test with ctx and returns the
// stream or body it opened (nil when the call failed), after reading it
// when it opened.
func openOnce(t *testing.T, tw twin, kind string, ctx context.Context, b kit.Binding) io.Closer {
	t.Helper()
	switch kind {
	case "Stream":
		var s *kit.Stream[streamRec]
		var err error
		if tw.async {
			s, err = streamRecs.Go(ctx, b, kit.NoParams{}).Await(t.Context())
		} else {
			s, err = streamRecs.Call(ctx, b, kit.NoParams{})
		}
		if err != nil {
			return nil
		}
		for range s.All() {
		}
		return s
	default:
		var rc io.ReadCloser
		var err error
		if tw.async {
			rc, err = streamOpenBody.Go(ctx, b, kit.NoParams{}).Await(t.Context())
		} else {
			rc, err = streamOpenBody.Call(ctx, b, kit.NoParams{})
		}
		if err != nil {
			return nil
		}
		io.Copy(io.Discard, rc)
		return rc
	}
}

// TestStreamObserverPanicsOnContextEnd: the observer's StreamEnd and CallEnd
// of a stream (or an io.ReadCloser) that its context ends run on a
// goroutine of the context's. A panic there would end the process; kit
// recovers it and reports it, once, as an error matching *PanicError: the
// range's (or Read's) error, or Close's when nothing was read since.
func TestStreamObserverPanicsOnContextEnd(t *testing.T) {
	leakcheck.Check(t)
	type hookCase struct{ kind, hook, report string }
	var cases []hookCase
	for _, kind := range []string{"Stream", "ReadCloser"} {
		for _, hook := range []string{"StreamEnd", "CallEnd"} {
			if kind == "ReadCloser" && hook == "StreamEnd" {
				continue
			}
			for _, report := range []string{"read", "Close"} {
				cases = append(cases, hookCase{kind, hook, report})
			}
		}
	}
	for _, c := range cases {
		for _, tw := range twins {
			t.Run(c.kind+"/"+c.hook+"/"+c.report+"/"+tw.name, func(t *testing.T) {
				closed := make(chan struct{})
				var o kit.Observer
				entered := make(chan struct{}, 1)
				boom := func() {
					entered <- struct{}{}
					panic("observer boom")
				}
				if c.hook == "StreamEnd" {
					o.StreamEnd = func(context.Context, kit.StreamResult) { boom() }
				} else {
					o.CallEnd = func(_ context.Context, r kit.CallResult) {
						if r.Streamed {
							boom()
						}
					}
				}
				_, b := tw.setup(t, stall(streamFormats[1], closed), kit.WithObserver(o))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				var (
					closer  io.Closer
					readErr func() error // reads on until an error
				)
				if c.kind == "Stream" {
					s, err := twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
					if err != nil {
						t.Fatal(err)
					}
					closer = s
					readErr = func() error {
						var errs []error
						for _, err := range s.All() {
							if err != nil {
								errs = append(errs, err)
							}
							cancel()
						}
						if len(errs) != 1 {
							t.Fatalf("errors %v, want one", errs)
						}
						return errs[0]
					}
				} else {
					rc, err := twinCall(ctx, tw, streamOpenBody, b, kit.NoParams{})
					if err != nil {
						t.Fatal(err)
					}
					closer = rc
					readErr = func() error {
						line := make([]byte, len("{\"n\":1}\n"))
						if _, err := io.ReadFull(rc, line); err != nil {
							t.Fatal(err)
						}
						cancel()
						_, err := io.ReadAll(rc)
						return err
					}
				}
				var got error
				if c.report == "read" {
					got = readErr()
					if !errors.Is(got, context.Canceled) {
						t.Errorf("read error %v, want one matching context.Canceled", got)
					}
					if err := closer.Close(); err != nil {
						t.Errorf("Close after the error reported the panic: %v", err)
					}
				} else {
					cancel()
					waitClosed(t, entered) // the end of the context is closing it
					got = closer.Close()
					if err := closer.Close(); err != nil {
						t.Errorf("second Close: %v", err)
					}
				}
				pe, ok := errors.AsType[*kit.PanicError](got)
				if !ok || pe.Value != "observer boom" {
					t.Fatalf("error %v, want one matching *kit.PanicError with the observer's panic", got)
				}
				if !strings.Contains(got.Error(), "panic: observer boom") {
					t.Errorf("error %q does not say what panicked", got)
				}
				waitClosed(t, closed)
			})
		}
	}
}

// TestStreamObserverPanicsOnClose: a panic of the observer in a Close by
// the caller is the caller's, and everything is released all the same: the
// connection, the in-flight slot (WithMaxInFlight(1): the next call gets
// it) and the async call (the client's Close returns).
func TestStreamObserverPanicsOnClose(t *testing.T) {
	leakcheck.Check(t)
	for _, kind := range []string{"Stream", "ReadCloser"} {
		for _, hook := range []string{"StreamEnd", "CallEnd"} {
			if kind == "ReadCloser" && hook == "StreamEnd" {
				continue
			}
			for _, tw := range twins {
				t.Run(kind+"/"+hook+"/"+tw.name, func(t *testing.T) {
					closed := make(chan struct{}, 2)
					h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						done := make(chan struct{})
						defer func() { <-done; closed <- struct{}{} }()
						stall(streamFormats[1], done)(w, r)
					})
					var panicked atomic.Bool
					boom := func() {
						if panicked.CompareAndSwap(false, true) {
							panic("observer boom")
						}
					}
					var o kit.Observer
					if hook == "StreamEnd" {
						o.StreamEnd = func(context.Context, kit.StreamResult) { boom() }
					} else {
						o.CallEnd = func(context.Context, kit.CallResult) { boom() }
					}
					_, b := tw.setup(t, h, kit.WithObserver(o), kit.WithMaxInFlight(1))
					open := func(ctx context.Context) io.Closer {
						var (
							c   io.Closer
							err error
						)
						if kind == "Stream" {
							c, err = twinCall(ctx, tw, streamRecs, b, kit.NoParams{})
						} else {
							c, err = twinCall(ctx, tw, streamOpenBody, b, kit.NoParams{})
						}
						if err != nil {
							t.Fatal(err)
						}
						return c
					}
					c := open(t.Context())
					func() {
						defer func() {
							if r := recover(); r != "observer boom" {
								t.Errorf("Close panicked with %v, want the observer's panic", r)
							}
						}()
						c.Close()
					}()
					waitClosed(t, closed)
					// The slot was given back: the next call gets it (a
					// guard ends the wait for a slot never given back).
					ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
					defer cancel()
					c = open(ctx)
					if err := c.Close(); err != nil {
						t.Error(err)
					}
					waitClosed(t, closed)
				})
			}
		}
	}
}
