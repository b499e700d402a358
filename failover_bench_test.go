package kit_test

import (
	"context"
	"net"
	"testing"

	"github.com/kithttp/kit"
)

// BenchmarkFailover is BenchmarkCallGet without WithFailover (base), with
// it when the base URL answers (standby), when the base URL refuses every
// dial and the fallback answers (refused), and the same with a circuit
// breaker whose open circuit passes the dead base URL over (open): what
// failover costs, in the same run.
func BenchmarkFailover(b *testing.B) {
	srv := benchServer(b)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/api"
	ln.Close()
	live := srv.URL + "/api"
	cases := []struct {
		name string
		base string
		opts []kit.Option
	}{
		{"base", live, nil},
		{"standby", live, []kit.Option{kit.WithFailover(kit.Failover{URLs: []string{dead}})}},
		{"refused", dead, []kit.Option{kit.WithFailover(kit.Failover{URLs: []string{live}})}},
		{"open", dead, []kit.Option{kit.WithFailover(kit.Failover{URLs: []string{live}}),
			kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 1, CoolDown: 1 << 40})}},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			c, err := kit.NewClient(bc.base, bc.opts...)
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
