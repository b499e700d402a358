package kit_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// What the long-call and debugging features cost a call when used;
// compare with BenchmarkCallGet in the same run (each feature pays
// nothing when unused: BenchmarkCallGet's allocations do not change).
func BenchmarkCallGetLongCalls(b *testing.B) {
	for _, bc := range []struct {
		name string
		opts []kit.Option
	}{
		{"none", nil},
		{"AttemptTimeout", []kit.Option{kit.WithAttemptTimeout(time.Minute)}},
		{"IdleTimeout", []kit.Option{kit.WithIdleTimeout(time.Minute)}}, // buffered: not applied
		{"Dump", []kit.Option{kit.WithDump(io.Discard, 1<<10)}},
		{"MeasureTimings", []kit.Option{kit.WithObserver(kit.Observer{MeasureTimings: true, CallEnd: func(context.Context, kit.CallResult) {}})}},
		{"ObserverNoTimings", []kit.Option{kit.WithObserver(kit.Observer{CallEnd: func(context.Context, kit.CallResult) {}})}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := benchServer(b)
			c, err := kit.NewClient(srv.URL+"/api", bc.opts...)
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
		})
	}
}
