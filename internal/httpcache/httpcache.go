// Package httpcache reads what RFC 9111 asks a private cache to read: the
// Cache-Control directives of requests and responses, the Freshness of a
// stored response (§4.2) and which stored response a 304 selects (§4.3.4).
// It is standard-library only and knows nothing of kit's types.
package httpcache

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// CacheControl is the parsed Cache-Control of a request or a response.
// Directives a private cache does not act on are skipped.
type CacheControl struct {
	NoStore        bool
	NoCache        bool // unqualified or qualified: always revalidate
	MustRevalidate bool
	Public         bool
	MaxAge         time.Duration
	HasMaxAge      bool
	MinFresh       time.Duration
}

// maxDelta bounds delta-seconds: RFC 9111 §1.2.2 says a larger value is
// taken as 2^31 seconds.
const maxDelta = int64(1 << 31)

// MaxAge is maxDelta seconds: the bound of every age and lifetime a cache
// works out, far enough from time.Duration's limit (about 292 years) that
// the sum of two never overflows.
const MaxAge = time.Duration(maxDelta) * time.Second

// ClampAge bounds d, an age or a lifetime, to [0, MaxAge].
func ClampAge(d time.Duration) time.Duration { return min(max(d, 0), MaxAge) }

// Parse reads the directives of every Cache-Control line of h.
// A malformed directive is skipped; a malformed max-age is taken as 0 (stale,
// as RFC 9111 §4.2.1 asks of an invalid freshness value).
func Parse(h http.Header) CacheControl {
	var cc CacheControl
	for _, line := range h["Cache-Control"] {
		for line != "" {
			var d string
			d, line = NextDirective(line)
			name, val, _ := strings.Cut(d, "=")
			name = strings.TrimSpace(name)
			val = strings.Trim(strings.TrimSpace(val), `"`)
			switch strings.ToLower(name) {
			case "no-store":
				cc.NoStore = true
			case "no-cache":
				cc.NoCache = true
			case "must-revalidate", "proxy-revalidate":
				cc.MustRevalidate = true
			case "public":
				cc.Public = true
			case "max-age":
				cc.MaxAge, cc.HasMaxAge = DeltaSeconds(val), true
			case "min-fresh":
				cc.MinFresh = DeltaSeconds(val)
			}
		}
	}
	return cc
}

// NextDirective splits off the first comma-separated directive of s,
// leaving commas inside a quoted string alone.
func NextDirective(s string) (string, string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case '\\':
			if quoted {
				i++
			}
		case ',':
			if !quoted {
				return s[:i], s[i+1:]
			}
		}
	}
	return s, ""
}

// DeltaSeconds reads delta-seconds: 0 for anything that is not a
// non-negative integer, and at most 2^31 seconds.
func DeltaSeconds(s string) time.Duration {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// All digits but too large: the largest value.
		if s != "" && strings.Trim(s, "0123456789") == "" {
			return MaxAge
		}
		return 0
	}
	if n < 0 {
		return 0
	}
	return time.Duration(min(n, maxDelta)) * time.Second // at most MaxAge
}

// HeuristicStatus are the statuses RFC 9110 §15.1 defines as heuristically
// cacheable, among those a cache of 2xx responses stores.
func HeuristicStatus(code int) bool {
	return code == http.StatusOK || code == http.StatusNonAuthoritativeInfo || code == http.StatusNoContent
}

// maxHeuristic caps a freshness lifetime worked out from Last-Modified.
const maxHeuristic = 24 * time.Hour

// Freshness is what RFC 9111 §4.2 works out for a response received at
// respTime to a request sent at reqTime: its freshness lifetime and its
// corrected initial age.
func Freshness(status int, h http.Header, cc CacheControl, reqTime, respTime time.Time) (lifetime, initialAge time.Duration) {
	date, dateErr := http.ParseTime(h.Get("Date"))
	if dateErr != nil {
		date = respTime
	}
	switch {
	case cc.HasMaxAge:
		lifetime = cc.MaxAge
	case h.Get("Expires") != "":
		if exp, err := http.ParseTime(h.Get("Expires")); err == nil {
			lifetime = max(exp.Sub(date), 0)
		} // an invalid Expires is in the past: stale
	case HeuristicStatus(status) || cc.Public:
		// §4.2.2: no explicit expiration, so a heuristic is allowed: a
		// tenth of the time since the last modification.
		if lm, err := http.ParseTime(h.Get("Last-Modified")); err == nil && lm.Before(date) {
			lifetime = min(date.Sub(lm)/10, maxHeuristic)
		}
	}
	// An Expires centuries away, a Date centuries ago: time.Time.Sub
	// saturates at about 292 years; every value here is kept to MaxAge
	// before it is added to another.
	lifetime = ClampAge(lifetime)
	// §4.2.3: the corrected initial age.
	apparent := ClampAge(respTime.Sub(date))
	ageValue := DeltaSeconds(strings.TrimSpace(h.Get("Age")))
	corrected := min(ageValue+ClampAge(respTime.Sub(reqTime)), MaxAge)
	return lifetime, max(apparent, corrected)
}

// HasExplicitFreshness reports whether a response says how long it is
// fresh (max-age or Expires).
func HasExplicitFreshness(h http.Header, cc CacheControl) bool {
	return cc.HasMaxAge || h.Get("Expires") != ""
}

// Selects reports whether a 304 with header notMod is for the stored
// response with header stored, the selection of RFC 9111 §4.3.4: a strong
// ETag selects the stored response with the same strong ETag; a weak one,
// the stored response whose ETag it matches weakly; with no ETag, a
// Last-Modified selects the stored response modified at that time; a 304
// without any validator selects the stored response (kit keeps one per
// key).
func Selects(notMod, stored http.Header) bool {
	if tag := notMod.Get("Etag"); tag != "" {
		have := stored.Get("Etag")
		if !strings.HasPrefix(tag, "W/") {
			return tag == have // strong comparison: have must be strong too
		}
		return strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(have, "W/")
	}
	if lm := notMod.Get("Last-Modified"); lm != "" {
		have := stored.Get("Last-Modified")
		if lm == have {
			return true
		}
		t1, err1 := http.ParseTime(lm)
		t2, err2 := http.ParseTime(have)
		return err1 == nil && err2 == nil && t1.Equal(t2)
	}
	return true
}
