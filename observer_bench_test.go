package kit_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
)

// BenchmarkCallGetObserver is BenchmarkCallGet through a client with an
// observer whose CallStart, CallEnd and Retry count calls: what the
// observer API costs a call (compare with BenchmarkCallGet, which has
// none and pays nothing for it).
func BenchmarkCallGetObserver(b *testing.B) {
	srv := benchServer(b)
	var calls, ended atomic.Int64
	c, err := kit.NewClient(srv.URL+"/api", kit.WithObserver(kit.Observer{
		CallStart: func(ctx context.Context, _ kit.CallInfo) context.Context { calls.Add(1); return ctx },
		CallEnd:   func(context.Context, kit.CallResult) { ended.Add(1) },
		Retry:     func(context.Context, kit.RetryInfo) {},
	}))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		u, err := benchGet.Call(ctx, c, getUserParams{Login: "octo", Fields: "all"})
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
	if calls.Load() != ended.Load() {
		b.Fatalf("%d calls started, %d ended", calls.Load(), ended.Load())
	}
}
