package kitredis_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitredis"
)

// The benchmarks compare, in one run against the test Redis, one round
// trip (PING), a kit GET served from NewCache (a GET of the entry), a
// limiter's Wait (one script) and the same GET through the loopback
// network:
//
//	KITREDIS_ADDR=127.0.0.1:6379 go test -run '^$' -bench . -benchmem
//
// A hit should be within 2x of a round trip.

func BenchmarkRedisRoundTrip(b *testing.B) {
	rdb := newRedis(b)
	ctx := context.Background()
	for b.Loop() {
		if err := rdb.Ping(ctx).Err(); err != nil {
			b.Fatal(err)
		}
	}
}

func benchClient(b *testing.B, opts ...kit.Option) *kit.Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprint(w, `{"id":42,"login":"octo"}`)
	}))
	b.Cleanup(srv.Close)
	c, err := kit.NewClient(srv.URL, opts...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

var benchGet = kit.Get[kit.NoParams, *kit.Response]("/users/octo")

func BenchmarkRedisCacheHit(b *testing.B) {
	rdb := newRedis(b)
	c := benchClient(b, kit.WithCache(kitredis.NewCache(rdb, uniqueKey(b)+":")))
	ctx := context.Background()
	benchGet.Call(ctx, c, kit.NoParams{})
	b.ReportAllocs()
	for b.Loop() {
		r, err := benchGet.Call(ctx, c, kit.NoParams{})
		if err != nil || !r.FromCache() {
			b.Fatal(r, err)
		}
	}
}

func BenchmarkRedisLimiterWait(b *testing.B) {
	rdb := newRedis(b)
	l := kitredis.NewLimiter(rdb, uniqueKey(b), kitredis.PerSecond(1e9))
	ctx := context.Background()
	for b.Loop() {
		if err := l.Wait(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRedisNetwork(b *testing.B) {
	newRedis(b) // the same conditions: skipped without Redis
	c := benchClient(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := benchGet.Call(ctx, c, kit.NoParams{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRedisHitVsRoundTrip interleaves a kit GET served from NewCache
// and one PING in each iteration, so that both meet the same load, and
// reports their mean times and the ratio (hit/round trip, which should be
// at most 2).
func BenchmarkRedisHitVsRoundTrip(b *testing.B) {
	rdb := newRedis(b)
	c := benchClient(b, kit.WithCache(kitredis.NewCache(rdb, uniqueKey(b)+":")))
	ctx := context.Background()
	benchGet.Call(ctx, c, kit.NoParams{})
	var hit, rtt time.Duration
	for b.Loop() {
		t0 := time.Now()
		r, err := benchGet.Call(ctx, c, kit.NoParams{})
		t1 := time.Now()
		if err != nil || !r.FromCache() {
			b.Fatal(r, err)
		}
		if err := rdb.Ping(ctx).Err(); err != nil {
			b.Fatal(err)
		}
		hit, rtt = hit+t1.Sub(t0), rtt+time.Since(t1)
	}
	b.ReportMetric(float64(hit.Nanoseconds())/float64(b.N), "hit-ns/op")
	b.ReportMetric(float64(rtt.Nanoseconds())/float64(b.N), "roundtrip-ns/op")
	b.ReportMetric(float64(hit)/float64(rtt), "hit/roundtrip")
}
