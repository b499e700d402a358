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

// FuzzCacheControl feeds arbitrary response headers to the freshness rules
// of WithCache (Cache-Control, Expires, Date, Age, Last-Modified): never a
// panic, never a negative lifetime or age. Seeds are in
// testdata/fuzz/FuzzCacheControl.
func FuzzCacheControl(f *testing.F) {
	f.Add("max-age=60, no-cache", "Thu, 01 Jan 2026 00:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 GMT", "5", "Mon, 01 Dec 2025 00:00:00 GMT", 200)
	f.Fuzz(func(t *testing.T, cc, expires, date, age, lastModified string, status int) {
		h := http.Header{"Cache-Control": {cc}, "Expires": {expires}, "Date": {date}, "Age": {age}, "Last-Modified": {lastModified}}
		parsed := parseCacheControl(h)
		now := time.Now()
		lifetime, initialAge := freshness(status, h, parsed, now.Add(-time.Second), now)
		if lifetime < 0 || initialAge < 0 {
			t.Errorf("lifetime %v, initial age %v", lifetime, initialAge)
		}
		if parsed.maxAge < 0 || parsed.minFresh < 0 {
			t.Errorf("parsed %+v", parsed)
		}
	})
}
