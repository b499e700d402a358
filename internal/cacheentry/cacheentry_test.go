package cacheentry

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/kithttp/kit/internal/httpcache"
)

// Ages and lifetimes stay in [0, 2^31 s] whatever the headers, the entry
// or the clock say (RFC 9111 §1.2.2, §4.2.3): no sum of them overflows.
func TestCacheAgeSaturates(t *testing.T) {
	now := time.Now()
	for _, e := range []Entry{
		{InitialAge: math.MaxInt64, RespTime: now},
		{InitialAge: math.MaxInt64, RespTime: time.Unix(0, math.MinInt64)},
		{InitialAge: math.MinInt64, RespTime: now},
		{InitialAge: httpcache.MaxAge, RespTime: now.Add(-httpcache.MaxAge)},
		{RespTime: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{RespTime: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if a := e.Age(now); a < 0 || a > httpcache.MaxAge {
			t.Errorf("age of %+v = %v, want in [0, %v]", e, a, httpcache.MaxAge)
		}
	}
	// An entry a store hands back with such values decodes to bounded ones.
	for _, d := range []time.Duration{math.MaxInt64, math.MinInt64, -1} {
		b := (&Entry{Status: 200, RespTime: now, InitialAge: d, Lifetime: d, Header: http.Header{}}).Encode()
		e, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if e.InitialAge < 0 || e.InitialAge > httpcache.MaxAge || e.Lifetime < 0 || e.Lifetime > httpcache.MaxAge {
			t.Errorf("decoded initialAge %v, lifetime %v from %v", e.InitialAge, e.Lifetime, d)
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
		lifetime, initialAge := httpcache.Freshness(200, h, httpcache.Parse(h), time.Unix(0, math.MinInt64), now)
		if lifetime < 0 || lifetime > httpcache.MaxAge || initialAge < 0 || initialAge > httpcache.MaxAge {
			t.Errorf("freshness(%v) = %v, %v", h, lifetime, initialAge)
		}
	}
}

// FuzzCacheEntry decodes arbitrary bytes as a stored cache entry (a store
// another version wrote, or corrupted): never a panic, and an entry that
// decodes encodes back to a decodable one with the same contents. Seeds are
// in testdata/fuzz/FuzzCacheEntry.
func FuzzCacheEntry(f *testing.F) {
	e := &Entry{
		Status: 200, RespTime: time.Unix(1700000000, 0), InitialAge: time.Second, Lifetime: time.Minute,
		Vary:   []string{"Accept-Language", "en"},
		Header: http.Header{"Etag": {`"v1"`}, "Content-Type": {"application/json"}},
		Body:   []byte(`{"id":1}`),
	}
	f.Add(e.Encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decode(data)
		if err != nil {
			return
		}
		again, err := Decode(d.Encode())
		if err != nil {
			t.Fatalf("re-encoded entry does not decode: %v", err)
		}
		if again.Status != d.Status || string(again.Body) != string(d.Body) || len(again.Header) != len(d.Header) || len(again.Vary) != len(d.Vary) {
			t.Errorf("round trip changed the entry: %+v != %+v", again, d)
		}
	})
}
