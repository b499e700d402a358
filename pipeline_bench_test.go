package kit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// BenchmarkPipelinedWalk walks 1,000 pages of 100 records (iterRecord, ~10
// fields each) from a loopback server that takes 2 ms to answer each page,
// as an API across a network would. Its sub-benchmarks run in this order,
// in the same process:
//
//	handwritten   a sync loop written with net/http and encoding/json: the baseline
//	kit-sync      kit.Resource.All
//	prefetch=N    kit.AsyncResource.All with WithPrefetch(N), N = 2, 8, 32
//
// Each reports records/s, and the kit ones x-handwritten: their time over
// the baseline's, measured in the same run (so a slow or busy machine
// slows both). Targets: prefetch=2 at most 0.55, prefetch=8 at most 0.2.
// Run with:
//
//	go test -run '^$' -bench PipelinedWalk -benchtime 3x .
func BenchmarkPipelinedWalk(b *testing.B) {
	const (
		pages    = 1000
		pageSize = 100
		latency  = 2 * time.Millisecond
		total    = pages * pageSize
	)
	body := make([][]byte, pages+1) // the last one is the empty page that ends the walk
	for p := range body {
		recs := make([]iterRecord, 0, pageSize)
		for i := p * pageSize; i < min((p+1)*pageSize, total); i++ {
			recs = append(recs, iterRecord{
				ID: i + 1, Name: "user " + strconv.Itoa(i+1), Email: fmt.Sprintf("u%d@example.com", i+1),
				Team: "platform", Active: i%3 != 0, Score: float64(i%1000) / 10, Logins: i % 97,
				Country: "DE", CreatedAt: "2024-05-01T12:00:00Z", Tags: []string{"a", "b"},
			})
		}
		body[p], _ = json.Marshal(map[string]any{"data": recs})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(latency)
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil || page < 1 {
			http.Error(w, "bad page", http.StatusBadRequest)
			return
		}
		b := body[min(page, len(body))-1]
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	}))
	b.Cleanup(srv.Close)

	var baseline float64 // ns per walk of the handwritten loop
	report := func(b *testing.B, isBaseline bool) {
		perWalk := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(total/(perWalk/1e9), "records/s")
		if isBaseline {
			baseline = perWalk
		} else if baseline > 0 {
			b.ReportMetric(perWalk/baseline, "x-handwritten")
		}
	}
	check := func(b *testing.B, n int, rec iterRecord) {
		if rec.ID != n {
			b.Fatalf("record %d at position %d", rec.ID, n)
		}
	}
	paginator := kit.WithPaginator(kit.PageNumber{PageSize: pageSize})

	b.Run("handwritten", func(b *testing.B) {
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
		defer hc.CloseIdleConnections()
		ctx := context.Background()
		for b.Loop() {
			n := 0
			for page := 1; ; page++ {
				q := url.Values{"page": {strconv.Itoa(page)}, "page_size": {strconv.Itoa(pageSize)}}
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/records?"+q.Encode(), nil)
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("Accept", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				var body struct {
					Data []iterRecord `json:"data"`
				}
				err = json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatal(resp.StatusCode, err)
				}
				for _, rec := range body.Data {
					n++
					check(b, n, rec)
				}
				if len(body.Data) < pageSize {
					break
				}
			}
			if n != total {
				b.Fatalf("walked %d records", n)
			}
		}
		report(b, true)
	})

	b.Run("kit-sync", func(b *testing.B) {
		c, err := kit.NewClient(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		res := kit.NewResource[iterRecord](c, "/records", paginator)
		for b.Loop() {
			n := 0
			for rec, err := range res.All(context.Background()) {
				if err != nil {
					b.Fatal(err)
				}
				n++
				check(b, n, rec)
			}
			if n != total {
				b.Fatalf("walked %d records", n)
			}
		}
		report(b, false)
	})

	for _, prefetch := range []int{2, 8, 32} {
		b.Run("prefetch="+strconv.Itoa(prefetch), func(b *testing.B) {
			ac, err := kit.NewAsyncClient(srv.URL)
			if err != nil {
				b.Fatal(err)
			}
			defer ac.Close(context.Background())
			res := kit.NewAsyncResource[iterRecord](ac, "/records", paginator, kit.WithPrefetch(prefetch))
			for b.Loop() {
				n := 0
				for rec, err := range res.All(context.Background()) {
					if err != nil {
						b.Fatal(err)
					}
					n++
					check(b, n, rec)
				}
				if n != total {
					b.Fatalf("walked %d records", n)
				}
			}
			report(b, false)
		})
	}
}
