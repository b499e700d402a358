package kit

import (
	"net/http"
	"testing"
	"time"
)

// FuzzParseRateLimit feeds arbitrary rate-limit headers to the parser of
// WithServerRateLimit: it never panics, and what it believes is a reset in
// (now, now+a year] with counts in [0, 2^31-1]. Seeds are in
// testdata/fuzz/FuzzParseRateLimit.
func FuzzParseRateLimit(f *testing.F) {
	f.Add("100", "0", "1700000000", `"default";r=0;t=30`, `"default";q=100;w=60`, "Mon, 02 Jan 2006 15:04:05 GMT")
	f.Fuzz(func(t *testing.T, limit, remaining, reset, ietf, policy, date string) {
		h := http.Header{}
		for k, v := range map[string]string{
			"X-Ratelimit-Limit": limit, "X-Ratelimit-Remaining": remaining, "X-Ratelimit-Reset": reset,
			"Ratelimit": ietf, "Ratelimit-Policy": policy, "Date": date,
		} {
			if v != "" {
				h[k] = []string{v}
			}
		}
		now := time.Now()
		l, ok := parseRateLimit(h, now)
		if !ok {
			return
		}
		if !l.reset.After(now) || l.reset.Sub(now) > maxReset {
			t.Errorf("reset %v from now", l.reset.Sub(now))
		}
		if l.remaining < 0 || l.remaining > maxAnnounced || l.limit < 0 || l.limit > maxAnnounced {
			t.Errorf("counts %+v", l)
		}
	})
}
