package kittest

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestLimitedRoutes(t *testing.T) {
	api, srv, clock := apiTStartClock(t, WithRateQuota(2, time.Hour))
	get := func(etag string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/limited/users/1", nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	wantReset := strconv.FormatInt(time.Date(2026, 5, 6, 8, 0, 0, 0, time.UTC).Unix(), 10)
	first := get("")
	if first.StatusCode != 200 || first.Header.Get("X-RateLimit-Remaining") != "1" || first.Header.Get("X-RateLimit-Limit") != "2" ||
		first.Header.Get("X-RateLimit-Reset") != wantReset || first.Header.Get("Cache-Control") != "private, max-age=60" {
		t.Errorf("first: %d %v", first.StatusCode, first.Header)
	}
	if r := get(first.Header.Get("Etag")); r.StatusCode != http.StatusNotModified {
		t.Errorf("conditional: %d", r.StatusCode)
	}
	if r := get(""); r.StatusCode != 200 || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Errorf("second 200 (the 304 did not count): %d, remaining %s", r.StatusCode, r.Header.Get("X-RateLimit-Remaining"))
	}
	if r := get(""); r.StatusCode != http.StatusForbidden || r.Header.Get("X-RateLimit-Remaining") != "0" || r.Header.Get("X-RateLimit-Reset") != wantReset {
		t.Errorf("over the quota: %d %v", r.StatusCode, r.Header)
	}
	s := api.Stats()
	if s.NotModified != 1 || s.RateLimited != 1 {
		t.Errorf("stats: %d not modified, %d rate limited", s.NotModified, s.RateLimited)
	}
	clock.Advance(time.Hour)
	if r := get(""); r.StatusCode != 200 || r.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Errorf("next window: %d, remaining %s", r.StatusCode, r.Header.Get("X-RateLimit-Remaining"))
	}
	resp, err := http.Get(srv.URL + "/limited/users?page=1&max_age=0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "private, max-age=0" {
		t.Errorf("listing: %d %v", resp.StatusCode, resp.Header)
	}
}
