package kit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"

	"github.com/kithttp/kit"
)

// The benchmarks in this file walk a collection of 100,000 records served
// by a loopback server in pages of 100 (~10 fields each): kit's
// Resource.All against a hand-written net/http + encoding/json loop. They
// report ns/record, B/record and the peak live heap seen during the walk,
// which stays bounded by a page, not by the collection. Run with:
//
//	go test -run '^$' -bench 'Iterate' -benchmem -count 6 .

const (
	iterRecords  = 100_000
	iterPageSize = 100
)

type iterRecord struct {
	ID        int      `json:"id"`
	Name      string   `json:"name"`
	Email     string   `json:"email"`
	Team      string   `json:"team"`
	Active    bool     `json:"active"`
	Score     float64  `json:"score"`
	Logins    int      `json:"logins"`
	Country   string   `json:"country"`
	CreatedAt string   `json:"created_at"`
	Tags      []string `json:"tags"`
}

// iterServer serves the pre-encoded pages at /records?page=N&page_size=100.
func iterServer(b *testing.B) *httptest.Server {
	b.Helper()
	pages := make([][]byte, iterRecords/iterPageSize+1)
	for p := range pages {
		recs := make([]iterRecord, 0, iterPageSize)
		for i := p * iterPageSize; i < min((p+1)*iterPageSize, iterRecords); i++ {
			recs = append(recs, iterRecord{
				ID: i + 1, Name: "user " + strconv.Itoa(i+1), Email: fmt.Sprintf("u%d@example.com", i+1),
				Team: "platform", Active: i%3 != 0, Score: float64(i%1000) / 10, Logins: i % 97,
				Country: "DE", CreatedAt: "2024-05-01T12:00:00Z", Tags: []string{"a", "b"},
			})
		}
		pages[p], _ = json.Marshal(map[string]any{"data": recs, "total": iterRecords})
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, err := strconv.Atoi(r.URL.Query().Get("page"))
		if err != nil || page < 1 || page > len(pages) || r.URL.Query().Get("page_size") != strconv.Itoa(iterPageSize) {
			http.Error(w, "bad page", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(pages[page-1])))
		w.Write(pages[page-1])
	}))
	b.Cleanup(srv.Close)
	return srv
}

// heapPeak samples the heap that the last GC found live, every 50 pages,
// and reports its peak above what was live before the walk (the server's
// pre-encoded pages).
type heapPeak struct {
	sample []metrics.Sample
	start  uint64
	peak   uint64
	allocs uint64 // bytes allocated before the walk
}

func newHeapPeak() *heapPeak {
	h := &heapPeak{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/allocs:bytes"}}}
	runtime.GC()
	metrics.Read(h.sample)
	h.start, h.allocs = h.sample[0].Value.Uint64(), h.sample[1].Value.Uint64()
	return h
}

func (h *heapPeak) observe() {
	metrics.Read(h.sample)
	if v := h.sample[0].Value.Uint64(); v > h.peak {
		h.peak = v
	}
}

func (h *heapPeak) report(b *testing.B) {
	b.ReportMetric(float64(h.peak-min(h.peak, h.start))/(1<<10), "peak-live-KiB")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*iterRecords), "ns/record")
	metrics.Read(h.sample)
	b.ReportMetric(float64(h.sample[1].Value.Uint64()-h.allocs)/float64(b.N*iterRecords), "B/record")

}

func BenchmarkIterateKit(b *testing.B) {
	srv := iterServer(b)
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	res := kit.NewResource[iterRecord](c, "/records", kit.WithPaginator(kit.PageNumber{PageSize: iterPageSize}))
	ctx := context.Background()
	hp := newHeapPeak()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for rec, err := range res.All(ctx) {
			if err != nil {
				b.Fatal(err)
			}
			n++
			if rec.ID != n {
				b.Fatalf("record %d at position %d", rec.ID, n)
			}
			if n%(50*iterPageSize) == 0 {
				hp.observe()
			}
		}
		if n != iterRecords {
			b.Fatalf("walked %d records", n)
		}
	}
	hp.report(b)
}

func BenchmarkIterateBaseline(b *testing.B) {
	srv := iterServer(b)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	ctx := context.Background()
	hp := newHeapPeak()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for page := 1; ; page++ {
			q := url.Values{"page": {strconv.Itoa(page)}, "page_size": {strconv.Itoa(iterPageSize)}}
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
				if rec.ID != n {
					b.Fatalf("record %d at position %d", rec.ID, n)
				}
				if n%(50*iterPageSize) == 0 {
					hp.observe()
				}
			}
			if len(body.Data) < iterPageSize {
				break
			}
		}
		if n != iterRecords {
			b.Fatalf("walked %d records", n)
		}
	}
	hp.report(b)
}
