package kit_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

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
