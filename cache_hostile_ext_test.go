package kit_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// The tests of this file are a server's hostile or broken answers to a
// client made WithCache: dates centuries away, huge ages and lifetimes.

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
