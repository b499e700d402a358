package kit

import (
	"net/http"
	"testing"
	"time"
)

// FuzzCacheEntry decodes arbitrary bytes as a stored cache entry (a store
// another version wrote, or corrupted): never a panic, and an entry that
// decodes encodes back to a decodable one with the same contents. Seeds are
// in testdata/fuzz/FuzzCacheEntry.
func FuzzCacheEntry(f *testing.F) {
	e := &cacheEntry{
		status: 200, respTime: time.Unix(1700000000, 0), initialAge: time.Second, lifetime: time.Minute,
		vary:   []string{"Accept-Language", "en"},
		header: http.Header{"Etag": {`"v1"`}, "Content-Type": {"application/json"}},
		body:   []byte(`{"id":1}`),
	}
	f.Add(e.encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := decodeEntry(data)
		if err != nil {
			return
		}
		again, err := decodeEntry(d.encode())
		if err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		if again.status != d.status || string(again.body) != string(d.body) || len(again.header) != len(d.header) || len(again.vary) != len(d.vary) {
			t.Errorf("round trip changed the entry: %+v != %+v", again, d)
		}
	})
}
