package kit_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// hxTotalAlloc returns the bytes allocated so far by the process.
func hxTotalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

// ---------------------------------------------------------------------------
// Defect 4: the body buffer is sized by the announced Content-Length, not
// by the bytes received.

func TestHostileContentLengthLie(t *testing.T) { // defect 4
	const announced = 30 << 20
	body := `{"id":1}` + "\n" // 9 bytes
	srv := hxRawServer(t, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nConnection: close\r\n\r\n%s", announced, body))
	c := hxClient(t, srv.URL)
	call := func() {
		if _, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{}); err == nil {
			t.Fatal("a body cut short of its announced length gave no error")
		}
	}
	call() // warm up
	const calls = 4
	before := hxTotalAlloc()
	for range calls {
		call()
	}
	perCall := (hxTotalAlloc() - before) / calls
	if perCall > 4<<20 {
		t.Fatalf("%d bytes received, %d MiB announced: %.1f MiB allocated per call; want < 4 MiB",
			len(body), announced>>20, float64(perCall)/(1<<20))
	}
}

// ---------------------------------------------------------------------------
// Defect 6: an HTTP/2 stream reset (RST_STREAM) is not retried, while the
// same abort over HTTP/1.1 is.

func TestHostileHTTP2StreamReset(t *testing.T) { // defect 6
	for _, tc := range []struct {
		name  string
		http2 bool
		// partial: the first answer sends headers and part of the body
		// before the reset; otherwise it resets before any header.
		partial bool
	}{
		{"HTTP2_mid_body", true, true},
		{"HTTP2_before_headers", true, false},
		{"HTTP1_mid_body_control", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits, wrongProto atomic.Int32
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := hits.Add(1)
				if want := map[bool]int{true: 2, false: 1}[tc.http2]; r.ProtoMajor != want {
					wrongProto.Add(1)
				}
				if n == 1 {
					if tc.partial {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusOK)
						io.WriteString(w, `{"id":`)
						w.(http.Flusher).Flush()
					}
					panic(http.ErrAbortHandler) // HTTP/2: RST_STREAM; HTTP/1.1: connection closed
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":1}`)
			}))
			srv.EnableHTTP2 = tc.http2
			srv.StartTLS()
			t.Cleanup(srv.Close)
			c := hxClient(t, srv.URL, kit.WithHTTPClient(srv.Client()),
				kit.WithRetry(kit.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond}))
			got, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
			if wrongProto.Load() != 0 {
				t.Fatalf("the client did not speak HTTP/%d", map[bool]int{true: 2, false: 1}[tc.http2])
			}
			if err != nil || got.ID != 1 {
				t.Fatalf("Call = %+v, %v after %d attempt(s); want {ID:1} after a retry", got, err, hits.Load())
			}
			if n := hits.Load(); n != 2 {
				t.Errorf("server got %d requests; want 2 (the reset one and its retry)", n)
			}
		})
	}
}
