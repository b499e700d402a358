package kit_test

import (
	"context"
	"io"
	"net/http"
	"sync"
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
					var served sync.WaitGroup
					h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						served.Add(1)
						defer served.Done()
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
					served.Wait() // each connection was closed
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
