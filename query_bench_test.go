package kit_test

import (
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// BenchmarkQueryObject builds and sends (to a kittest.RecordingEngine, no
// network) a GET with four query values, as four plain fields and as a
// struct tagged `kit:"created,query"` plus a map tagged
// `kit:"metadata,query"` (created[gt]=...&metadata[k]=...), in the same
// run. The bracketed form walks a plan cached per type; what it adds is
// the bracketed keys it builds and the map's iteration: measured on a
// loaded 2-core machine, 14–20 µs against 9–15 µs for the whole call
// (about 1.5 times), 68 allocations against 53.
//
//	go test -run '^$' -bench QueryObject -benchmem .
func BenchmarkQueryObject(b *testing.B) {
	rec := &kittest.RecordingEngine{}
	c, err := kit.NewClient("https://api.example.com", kit.WithEngine(rec))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	type flat struct {
		CreatedGT int64  `kit:"created_gt"`
		CreatedLT int64  `kit:"created_lt"`
		Order     string `kit:"order"`
		Team      string `kit:"team"`
	}
	type span struct {
		GT int64 `json:"gt"`
		LT int64 `json:"lt"`
	}
	type deep struct {
		Created  span              `kit:"created,query"`
		Metadata map[string]string `kit:"metadata,query"`
	}
	flatEP := kit.Get[flat, *kit.Response]("/logs")
	deepEP := kit.Get[deep, *kit.Response]("/logs")
	meta := map[string]string{"order": "6735", "team": "a"}
	b.Run("flat", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec.Reset()
			if _, err := flatEP.Call(b.Context(), c, flat{1700000000, 1800000000, "6735", "a"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("brackets", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rec.Reset()
			if _, err := deepEP.Call(b.Context(), c, deep{span{1700000000, 1800000000}, meta}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
