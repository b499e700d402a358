package kit_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/kithttp/kit"
)

// A server that fails: after two 503s the circuit opens, and the third
// call fails at once, without reaching the server, until the cool-down
// ends.
func ExampleWithCircuitBreaker() {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()

	c, err := kit.NewClient(srv.URL,
		kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 2, CoolDown: time.Minute}),
		kit.WithObserver(kit.Observer{Circuit: func(_ context.Context, ci kit.CircuitInfo) {
			fmt.Println("circuit:", ci.From, "->", ci.To)
		}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	status := kit.Get[struct{}, map[string]any]("/status")
	for range 3 {
		_, err := status.Call(context.Background(), c, struct{}{})
		var open *kit.CircuitOpenError
		switch {
		case errors.As(err, &open):
			fmt.Println("failed fast: the circuit of the server is open")
		case err != nil:
			fmt.Println("HTTP 503")
		}
	}
	fmt.Println("requests the server saw:", hits.Load())
	// Output:
	// HTTP 503
	// circuit: closed -> open
	// HTTP 503
	// failed fast: the circuit of the server is open
	// requests the server saw: 2
}

// A server whose first answer is slow: the hedge sent after 20 ms answers
// first, and the slow attempt is cancelled.
func ExampleWithHedging() {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-r.Context().Done() // stuck until cancelled
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"name":"kit"}`))
	}))
	defer srv.Close()

	c, err := kit.NewClient(srv.URL, kit.WithHedging(20*time.Millisecond, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	repo, err := getRepo.Call(context.Background(), c, struct{ Name string }{"kit"})
	fmt.Println(repo.Name, err)
	// Output: kit <nil>
}

// A server that answers in zstd: the client asks for zstd, brotli or gzip
// and decodes what comes.
func ExampleWithResponseCompression() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("Accept-Encoding:", r.Header.Get("Accept-Encoding"))
		enc, _ := zstd.NewWriter(nil)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "zstd")
		w.Write(enc.EncodeAll([]byte(`{"name":"kit","stars":42}`), nil))
		enc.Close()
	}))
	defer srv.Close()

	c, err := kit.NewClient(srv.URL, kit.WithResponseCompression())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	repo, err := getRepo.Call(context.Background(), c, struct{ Name string }{"kit"})
	fmt.Println(repo.Name, repo.Stars, err)
	// Output:
	// Accept-Encoding: zstd, br, gzip
	// kit 42 <nil>
}

// A large upload sent gzipped.
func ExampleWithRequestCompression() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		n, _ := io.Copy(io.Discard, zr)
		fmt.Println(r.Header.Get("Content-Encoding"), "body of", n, "bytes")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()

	type Log struct {
		Body struct {
			Lines string `json:"lines"`
		}
	}
	upload := kit.Post[Log, *kit.Response]("/logs")
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var l Log
	l.Body.Lines = string(bytes.Repeat([]byte("GET /health 200\n"), 1000))
	_, err = upload.Call(context.Background(), c, l, kit.WithRequestCompression("gzip"))
	fmt.Println(err)
	// Output:
	// gzip body of 17012 bytes
	// <nil>
}
