package kit_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// The benchmarks in this file compare 100 sequential Calls with 100 calls
// started with Go and then awaited, against a loopback server that adds
// 2 ms of latency to every request (as a nearby API would). The goal is
// futures at least 10× faster. Run with:
//
//	go test -run '^$' -bench 'Calls100|Futures100' -benchtime 20x -count 3 .

const benchLatency = 2 * time.Millisecond

type latencyParams struct{ ID int }

var latencyGet = kit.Get[latencyParams, asyncUser]("/users/{id}")

func latencyServer(b *testing.B) *httptest.Server {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(benchLatency)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":1,"name":"octo"}`)
	}))
	b.Cleanup(srv.Close)
	return srv
}

func BenchmarkSequentialCalls100(b *testing.B) {
	srv := latencyServer(b)
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	ctx := b.Context()
	b.ReportAllocs()
	for b.Loop() {
		for i := range 100 {
			if _, err := latencyGet.Call(ctx, c, latencyParams{i}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkFutures100(b *testing.B) {
	srv := latencyServer(b)
	ac, err := kit.NewAsyncClient(srv.URL) // DefaultMaxInFlight
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ac.Close(context.Background()) })
	ctx := b.Context()
	futures := make([]*kit.Future[asyncUser], 100)
	b.ReportAllocs()
	for b.Loop() {
		for i := range futures {
			futures[i] = latencyGet.Go(ctx, ac, latencyParams{i})
		}
		for _, f := range futures {
			if _, err := f.Await(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
}
