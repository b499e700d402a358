package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// rtSlowServer never finishes its response (headersFirst: it sends the
// headers and part of the body first) until the request's context ends.
func rtSlowServer(t *testing.T, headersFirst bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if headersFirst {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "1000")
			fmt.Fprint(w, `{"id":1,`)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	return srv, &n
}

// rtSlowGet's timeout must pass after the server has the request (the test
// counts the requests it saw), so it is long enough for a loaded machine to
// send it: the server never answers, so the wait changes no outcome.
var (
	rtSlowGet = kit.Get[kit.NoParams, rtItem]("/slow", kit.WithTimeout(2*time.Second))
)

func TestWithTimeoutSlowHandler(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			for _, headersFirst := range []bool{false, true} {
				t.Run(fmt.Sprintf("headersFirst=%v", headersFirst), func(t *testing.T) {
					t.Parallel()
					srv, n := rtSlowServer(t, headersFirst)
					// Retrying is on: a timeout of the endpoint is not retried.
					c := tw.client(t, srv.URL, kit.WithRetry(rtFastRetry(4)))
					_, err := twinCall(t.Context(), tw, rtSlowGet, c, kit.NoParams{})
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Errorf("headersFirst=%v: err = %v, want DeadlineExceeded", headersFirst, err)
					}
					if err != nil && !strings.Contains(err.Error(), "GET "+srv.URL+"/slow") {
						t.Errorf("headersFirst=%v: err = %v, want it to name the request", headersFirst, err)
					}
					if n.Load() != 1 {
						t.Errorf("headersFirst=%v: server saw %d requests, want 1", headersFirst, n.Load())
					}
				})
			}
		})
	}
}

func TestWithTimeoutCallerContextStillWins(t *testing.T) {
	t.Parallel()
	srv, _ := rtSlowServer(t, false)
	c := newClient(t, srv.URL)
	ep := kit.Get[kit.NoParams, rtItem]("/slow", kit.WithTimeout(time.Hour))
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err := ep.Call(ctx, c, kit.NoParams{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestWithTimeoutFastCallUnaffected(t *testing.T) {
	t.Parallel()
	s := newRTServer(t)
	c := newClient(t, s.URL)
	ep := kit.Get[kit.NoParams, rtItem]("/item", kit.WithTimeout(time.Minute))
	if got, err := ep.Call(t.Context(), c, kit.NoParams{}); err != nil || got.ID != 1 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestWithTimeoutDeclarationErrors(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		_, err := kit.NewEndpoint[kit.NoParams, rtItem]("GET", "/x", kit.WithTimeout(d))
		var de *kit.DeclarationError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "WithTimeout") {
			t.Errorf("WithTimeout(%v): err = %v", d, err)
		}
	}
}
