package kit_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// The tests of this file are a server's hostile or broken answers to a
// client made WithCache: dates centuries away, huge ages and lifetimes, a
// 304 for another representation, and callers that change what a hit
// returns.

// checkAge fails unless r's Age is a number of seconds in [0, 2^31].
func checkAge(t *testing.T, r *kit.Response) {
	t.Helper()
	if !r.FromCache() {
		return
	}
	age, err := strconv.ParseInt(r.Header.Get("Age"), 10, 64)
	if err != nil || age < 0 || age > 1<<31 {
		t.Errorf("Age %q, want seconds in [0, 2^31]", r.Header.Get("Age"))
	}
}

func TestCacheExtremeDatesAndAges(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC()
	past := time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	future := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	year1 := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		header map[string]string
		fresh  bool // the second call is served without a request
	}{
		{"Date in 1700", map[string]string{"Date": past, "Cache-Control": "max-age=60"}, false},
		{"Date in 1700, Expires far", map[string]string{"Date": past, "Expires": future}, false},
		{"Date in 1700, heuristic", map[string]string{"Date": past, "Last-Modified": year1}, false},
		{"Date in 9999", map[string]string{"Date": future, "Cache-Control": "max-age=60"}, true},
		{"Date in 9999, heuristic", map[string]string{"Date": future, "Last-Modified": now.Format(http.TimeFormat)}, true},
		{"huge Age", map[string]string{"Age": "99999999999999999999", "Cache-Control": "max-age=60"}, false},
		{"huge Age and max-age", map[string]string{"Age": "9223372036854775807", "Cache-Control": "max-age=9223372036854775808"}, false},
		{"max-age 2^63", map[string]string{"Cache-Control": "max-age=9223372036854775808"}, true},
		{"negative max-age", map[string]string{"Cache-Control": "max-age=-60"}, false},
		{"negative Age", map[string]string{"Age": "-9999999", "Cache-Control": "max-age=0"}, false},
		{"Expires in year 1", map[string]string{"Expires": year1}, false},
		{"Expires in 9999", map[string]string{"Expires": future}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Etag", `"v1"`) // always stored; always a 200
				fmt.Fprint(w, "doc")
			}, kit.WithCache(kit.NewMemoryCache(0)))
			getDoc(t, c)
			second := getDoc(t, c)
			checkAge(t, second)
			if second.FromCache() != tc.fresh {
				t.Errorf("second call FromCache = %v, want %v (Age %q)", second.FromCache(), tc.fresh, second.Header.Get("Age"))
			}
			want := int64(2)
			if tc.fresh {
				want = 1
			}
			if n := s.hits.Load(); n != want {
				t.Errorf("server saw %d requests, want %d", n, want)
			}
		})
	}
}

// RFC 9111 §4.3.4: a 304 updates the stored response only when its
// validator selects it. A 304 that names another representation is not
// the stored one's: the request is sent again, unconditionally.
func TestCache304ForAnotherValidatorDoesNotUpdate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		first, notMod     map[string]string
		wantBody, wantTag string
	}{
		{"another strong ETag",
			map[string]string{"Etag": `"v1"`}, map[string]string{"Etag": `"v2"`}, "two", `"v2"`},
		{"strong ETag against a weak one",
			map[string]string{"Etag": `W/"v1"`}, map[string]string{"Etag": `"v2"`}, "two", `"v2"`},
		{"another Last-Modified, no ETag",
			map[string]string{"Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"},
			map[string]string{"Last-Modified": "Tue, 02 Jan 2024 00:00:00 GMT"}, "two", ""},
		{"the same strong ETag", map[string]string{"Etag": `"v1"`}, map[string]string{"Etag": `"v1"`}, "one", `"v1"`},
		{"the same weak ETag", map[string]string{"Etag": `W/"v1"`}, map[string]string{"Etag": `W/"v1"`}, "one", `W/"v1"`},
		{"no validator in the 304", map[string]string{"Etag": `"v1"`}, map[string]string{}, "one", `"v1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=0")
				if n.Add(1) == 1 {
					for k, v := range tc.first {
						w.Header().Set(k, v)
					}
					fmt.Fprint(w, "one")
					return
				}
				for k, v := range tc.notMod {
					w.Header().Set(k, v)
				}
				if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, "two")
			}, kit.WithCache(kit.NewMemoryCache(0)))
			getDoc(t, c)
			second := getDoc(t, c)
			if got := string(second.Bytes()); got != tc.wantBody || second.Header.Get("Etag") != tc.wantTag {
				t.Errorf("second call: body %q ETag %q, want %q %q", got, second.Header.Get("Etag"), tc.wantBody, tc.wantTag)
			}
			if tc.wantBody == "two" {
				if second.FromCache() || s.hits.Load() != 3 {
					t.Errorf("FromCache %v after %d requests, want false after 3 (304, then unconditional)", second.FromCache(), s.hits.Load())
				}
				// What is stored now is the second representation.
				if got := string(getDoc(t, c).Bytes()); got != "two" {
					t.Errorf("third call: body %q, want two", got)
				}
			}
		})
	}
}

// A caller may change the headers of a hit, in the map or a value in
// place: later hits see the stored ones.
func TestCacheHitHeadersAreTheCallers(t *testing.T) {
	t.Parallel()
	for _, revalidate := range []bool{false, true} {
		t.Run(fmt.Sprintf("revalidate=%v", revalidate), func(t *testing.T) {
			t.Parallel()
			_, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Etag", `"v1"`)
				if revalidate {
					w.Header().Set("Cache-Control", "no-cache")
				} else {
					w.Header().Set("Cache-Control", "max-age=60")
				}
				w.Header()["X-Multi"] = []string{"a", "b"}
				if r.Header.Get("If-None-Match") == `"v1"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, "doc")
			}, kit.WithCache(kit.NewMemoryCache(0)))
			getDoc(t, c)
			for i := range 3 {
				hit := getDoc(t, c)
				if !hit.FromCache() {
					t.Fatalf("call %d not from the cache", i+2)
				}
				if got := hit.Header["X-Multi"]; !slices.Equal(got, []string{"a", "b"}) {
					t.Errorf("call %d: X-Multi %q, want [a b]", i+2, got)
				}
				if got := hit.Header.Get("Etag"); got != `"v1"` {
					t.Errorf("call %d: ETag %q", i+2, got)
				}
				hit.Header["X-Multi"][0] = "changed in place"
				hit.Header["X-Multi"] = append(hit.Header["X-Multi"][:1], "appended")
				hit.Header["Etag"][0] = `"forged"`
				hit.Header.Set("Cache-Control", "max-age=999")
				hit.Header.Add("X-Multi", "added")
				delete(hit.Header, "Content-Type")
			}
		})
	}
}
