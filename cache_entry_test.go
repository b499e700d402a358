package kit

import (
	"math"
	"net/http"
	"testing"
	"time"
)

// Ages and lifetimes stay in [0, 2^31 s] whatever the headers, the entry
// or the clock say (RFC 9111 §1.2.2, §4.2.3): no sum of them overflows.
func TestCacheAgeSaturates(t *testing.T) {
	now := time.Now()
	for _, e := range []cacheEntry{
		{initialAge: math.MaxInt64, respTime: now},
		{initialAge: math.MaxInt64, respTime: time.Unix(0, math.MinInt64)},
		{initialAge: math.MinInt64, respTime: now},
		{initialAge: maxAge, respTime: now.Add(-maxAge)},
		{respTime: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{respTime: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if a := e.age(now); a < 0 || a > maxAge {
			t.Errorf("age of %+v = %v, want in [0, %v]", e, a, maxAge)
		}
	}
	// An entry a store hands back with such values decodes to bounded ones.
	for _, d := range []time.Duration{math.MaxInt64, math.MinInt64, -1} {
		b := (&cacheEntry{status: 200, respTime: now, initialAge: d, lifetime: d, header: http.Header{}}).encode()
		e, err := decodeEntry(b)
		if err != nil {
			t.Fatal(err)
		}
		if e.initialAge < 0 || e.initialAge > maxAge || e.lifetime < 0 || e.lifetime > maxAge {
			t.Errorf("decoded initialAge %v, lifetime %v from %v", e.initialAge, e.lifetime, d)
		}
	}
	past := time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC)
	future := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, h := range []http.Header{
		{"Date": {past.Format(http.TimeFormat)}, "Expires": {future.Format(http.TimeFormat)}},
		{"Date": {past.Format(http.TimeFormat)}, "Age": {"99999999999999999999"}},
		{"Date": {future.Format(http.TimeFormat)}, "Last-Modified": {past.Format(http.TimeFormat)}},
		{"Cache-Control": {"max-age=99999999999999999999"}, "Age": {"9223372036854775807"}},
	} {
		lifetime, initialAge := freshness(200, h, parseCacheControl(h), time.Unix(0, math.MinInt64), now)
		if lifetime < 0 || lifetime > maxAge || initialAge < 0 || initialAge > maxAge {
			t.Errorf("freshness(%v) = %v, %v", h, lifetime, initialAge)
		}
	}
}
