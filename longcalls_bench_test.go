package kit_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
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

// What a resumable download costs per call (a 64 KiB download read
// whole, no stall): "plain" has no idle timeout, "IdleTimeout" one without
// a retry policy (not resumable), "Retry" a retry policy alone,
// "Resumable" both, against a server that offers ranges under an ETag:
// compare it with IdleTimeout and Retry.
func BenchmarkDownloadResumable(b *testing.B) {
	dl := kit.Get[struct {
		Bytes int `kit:"bytes"`
	}, io.ReadCloser]("/download")
	for _, bc := range []struct {
		name string
		opts []kit.Option
	}{
		{"plain", nil},
		{"IdleTimeout", []kit.Option{kit.WithIdleTimeout(time.Minute)}},
		{"Retry", []kit.Option{kit.WithRetry(kit.RetryPolicy{})}},
		{"Resumable", []kit.Option{kit.WithIdleTimeout(time.Minute), kit.WithRetry(kit.RetryPolicy{})}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := serve(b, kittest.NewAPI())
			c, err := kit.NewClient(srv.URL, bc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			p := struct {
				Bytes int `kit:"bytes"`
			}{64 << 10}
			b.ReportAllocs()
			for b.Loop() {
				body, err := dl.Call(ctx, c, p)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, body)
				body.Close()
				if err != nil || n != 64<<10 {
					b.Fatal(n, err)
				}
			}
		})
	}
}
