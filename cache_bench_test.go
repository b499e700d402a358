package kit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// The cache benchmarks compare, in one run, a GET through the network (a
// loopback server, no cache), a cache miss (sent, then stored) and a cache
// hit from NewMemoryCache, all decoding the same record:
//
//	go test -run '^$' -bench 'Cache' -benchmem -count 6 .
//
// A hit must be at least 20x faster than the network and allocate no more
// than a miss. The plain ones return the *kit.Response undecoded; the JSON
// ones decode the record too, work that a hit and a miss share.

func cacheBenchServer(b *testing.B) *httptest.Server {
	b.Helper()
	body, _ := json.Marshal(benchRecord)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Etag", `"v1"`)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchGetRaw is benchGet returning the response undecoded: what the
// network and the cache each cost, without the JSON decoding they share.
var benchGetRaw = kit.Get[getUserParams, *kit.Response]("/users/{login}")

func cacheBench(b *testing.B, cache, vary, raw bool) {
	srv := cacheBenchServer(b)
	opts := []kit.Option{kit.WithAuth(kit.Bearer("bench-token"))}
	if cache {
		opts = append(opts, kit.WithCache(kit.NewMemoryCache(1<<20)))
	}
	c, err := kit.NewClient(srv.URL+"/api", opts...)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	fields := make([]string, 1024)
	for i := range fields {
		fields[i] = "f" + strconv.Itoa(i)
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		p := getUserParams{Login: "octo", Fields: "all"}
		if vary {
			i++
			p.Fields = fields[i%len(fields)] + strconv.Itoa(i/len(fields)) // a new URL: always a miss
		}
		if raw {
			r, err := benchGetRaw.Call(ctx, c, p)
			if err != nil || len(r.Bytes()) == 0 {
				b.Fatal(r, err)
			}
			continue
		}
		u, err := benchGet.Call(ctx, c, p)
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}

func BenchmarkCacheNetwork(b *testing.B)     { cacheBench(b, false, false, true) }
func BenchmarkCacheMiss(b *testing.B)        { cacheBench(b, true, true, true) }
func BenchmarkCacheHit(b *testing.B)         { cacheBench(b, true, false, true) }
func BenchmarkCacheNetworkJSON(b *testing.B) { cacheBench(b, false, false, false) }
func BenchmarkCacheMissJSON(b *testing.B)    { cacheBench(b, true, true, false) }
func BenchmarkCacheHitJSON(b *testing.B)     { cacheBench(b, true, false, false) }

// BenchmarkCacheHitVsNetwork alternates, in each iteration, a block of
// hits and a block of network calls of the same request, so that both
// meet the same load on a shared machine while each runs as it would in a
// program that makes it again and again (one hit squeezed between two
// network calls pays for their cold caches and garbage), and reports their
// mean times and the ratio (network/hit, which must be at least 20).
func BenchmarkCacheHitVsNetwork(b *testing.B) {
	srv := cacheBenchServer(b)
	cached, err := kit.NewClient(srv.URL+"/api", kit.WithAuth(kit.Bearer("bench-token")), kit.WithCache(kit.NewMemoryCache(1<<20)))
	if err != nil {
		b.Fatal(err)
	}
	defer cached.Close()
	plain, err := kit.NewClient(srv.URL+"/api", kit.WithAuth(kit.Bearer("bench-token")))
	if err != nil {
		b.Fatal(err)
	}
	defer plain.Close()
	ctx := context.Background()
	p := getUserParams{Login: "octo", Fields: "all"}
	if _, err := benchGetRaw.Call(ctx, cached, p); err != nil {
		b.Fatal(err)
	}
	const block = 16
	var hit, network time.Duration
	for b.Loop() {
		t0 := time.Now()
		for range block {
			r, err := benchGetRaw.Call(ctx, cached, p)
			if err != nil || !r.FromCache() {
				b.Fatal(r, err)
			}
		}
		t1 := time.Now()
		for range block {
			if _, err := benchGetRaw.Call(ctx, plain, p); err != nil {
				b.Fatal(err)
			}
		}
		hit, network = hit+t1.Sub(t0), network+time.Since(t1)
	}
	calls := float64(b.N * block)
	b.ReportMetric(float64(hit.Nanoseconds())/calls, "hit-ns/op")
	b.ReportMetric(float64(network.Nanoseconds())/calls, "network-ns/op")
	b.ReportMetric(float64(network)/float64(hit), "x-faster")
}
