package kit_test

import (
	"context"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// BenchmarkResilience is BenchmarkCallGet through a client with each of
// the resilience and compression options, against the same call without
// them (base), in the same run: what each costs when used. Hedging's delay
// is longer than a loopback answer, so no hedge goes (the common case);
// the compression case asks for encodings the server does not use.
func BenchmarkResilience(b *testing.B) {
	srv := benchServer(b)
	cases := []struct {
		name string
		opts []kit.Option
	}{
		{"base", nil},
		{"breaker", []kit.Option{kit.WithCircuitBreaker(kit.CircuitBreaker{})}},
		{"hedging", []kit.Option{kit.WithHedging(time.Second, 1)}},
		{"compression", []kit.Option{kit.WithResponseCompression()}},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			c, err := kit.NewClient(srv.URL+"/api", bc.opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
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
