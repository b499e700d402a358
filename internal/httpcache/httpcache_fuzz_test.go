package httpcache

import (
	"net/http"
	"testing"
	"time"
)

// FuzzCacheControl feeds arbitrary response headers to the freshness rules
// (Cache-Control, Expires, Date, Age, Last-Modified): never a panic, never
// a negative lifetime or age. Seeds are in testdata/fuzz/FuzzCacheControl.
func FuzzCacheControl(f *testing.F) {
	f.Add("max-age=60, no-cache", "Thu, 01 Jan 2026 00:00:00 GMT", "Thu, 01 Jan 2026 00:00:00 GMT", "5", "Mon, 01 Dec 2025 00:00:00 GMT", 200)
	f.Fuzz(func(t *testing.T, cc, expires, date, age, lastModified string, status int) {
		h := http.Header{"Cache-Control": {cc}, "Expires": {expires}, "Date": {date}, "Age": {age}, "Last-Modified": {lastModified}}
		parsed := Parse(h)
		now := time.Now()
		lifetime, initialAge := Freshness(status, h, parsed, now.Add(-time.Second), now)
		if lifetime < 0 || initialAge < 0 {
			t.Errorf("lifetime %v, initial age %v", lifetime, initialAge)
		}
		if parsed.MaxAge < 0 || parsed.MinFresh < 0 {
			t.Errorf("parsed %+v", parsed)
		}
	})
}
