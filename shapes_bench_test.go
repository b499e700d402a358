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

// BenchmarkWalkCursorShapes walks 1,000 records in pages of 100 with a
// plain cursor (NextKey) and with Stripe's shape (RecordKey and
// HasMoreKey), against the same loopback server in the same run: the
// has-more flag and the last record's id are read in the pass that decodes
// the page, so the second costs what the first does.
//
//	go test -run '^$' -bench WalkCursorShapes -benchmem .
func BenchmarkWalkCursorShapes(b *testing.B) {
	const total, size = 1000, 100
	pages := map[string][]byte{}
	for p := 0; p*size < total; p++ {
		recs := make([]iterRecord, 0, size)
		for i := p * size; i < (p+1)*size; i++ {
			recs = append(recs, iterRecord{ID: i + 1, Name: "user " + strconv.Itoa(i+1), Email: "u@example.com", Tags: []string{"a"}})
		}
		last := (p + 1) * size
		next := any(strconv.Itoa(last))
		if last >= total {
			next = nil
		}
		body, _ := json.Marshal(map[string]any{"data": recs, "next_cursor": next, "has_more": last < total})
		key := ""
		if p > 0 {
			key = strconv.Itoa(p * size)
		}
		pages[key] = body
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		body, ok := pages[q.Get("cursor")+q.Get("starting_after")]
		if !ok {
			http.Error(w, "bad cursor", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	for _, bc := range []struct {
		name string
		p    kit.Paginator
	}{
		{"NextKey", kit.Cursor{}},
		{"RecordKey+HasMoreKey", kit.Cursor{CursorParam: "starting_after", RecordKey: "id", HasMoreKey: "has_more"}},
	} {
		ep := kit.Paged[kit.NoParams, iterRecord]("/records", kit.WithPaginator(bc.p))
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, err := range ep.Iterate(context.Background(), c, kit.NoParams{}) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != total {
					b.Fatalf("%d records", n)
				}
			}
		})
	}
}
