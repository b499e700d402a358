package kit_test

import (
	"context"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// What call options and idempotency keys cost, beside BenchmarkCallGet and
// BenchmarkCallPost (the same calls without them). Run with:
//
//	go test -run '^$' -bench 'CallGet$|CallGetOptions|CallPost$|CallPostKey' -benchmem .

// BenchmarkCallGetOptions is BenchmarkCallGet with a header and a timeout
// given to the call.
func BenchmarkCallGetOptions(b *testing.B) {
	srv := benchServer(b)
	c, err := kit.NewClient(srv.URL + "/api")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	trace := kit.WithHeader("X-Trace-Id", "4bf92f3577b34da6")
	timeout := kit.WithTimeout(time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		u, err := benchGet.Call(ctx, c, getUserParams{Login: "octo", Fields: "all"}, trace, timeout)
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}

// BenchmarkCallPostKey is BenchmarkCallPost through a client that gives
// every write an idempotency key.
func BenchmarkCallPostKey(b *testing.B) {
	srv := benchServer(b)
	c, err := kit.NewClient(srv.URL+"/api", kit.WithIdempotencyKey(""))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		u, err := benchPost.Call(ctx, c, struct{ User benchUser }{benchRecord})
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}
