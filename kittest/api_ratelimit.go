package kittest

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// WithRateQuota sets the quota of the /limited routes: n requests per
// window, windows aligned on the clock (default 60 a minute). A 304 Not
// Modified does not count, as on GitHub. n below 1 or a window under a
// second means the default.
func WithRateQuota(n int, window time.Duration) APIOption {
	return apiOptionFunc(func(c *apiConfig) {
		if n >= 1 && window >= time.Second {
			c.quota, c.quotaWindow = n, window
		}
	})
}

// Private implementation past this point.
//
// The /limited routes behave like GitHub's REST API under its rate limit:
// every response carries X-RateLimit-Limit, -Remaining, -Used, -Reset (a
// Unix time, in seconds) and -Resource, and Cache-Control: private,
// max-age=N (?max_age=N, default 60); a request past the quota is a 403
// {"message":"API rate limit exceeded ..."} with the same headers, counted
// in Stats.RateLimited; a 304 is counted in Stats.NotModified and not
// against the quota.

// limited wraps h with the quota of the /limited routes.
func (a *API) limited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		limit, window := a.cfg.quota, a.cfg.quotaWindow
		if limit == 0 {
			limit, window = 60, time.Minute
		}
		now := a.now()
		start := now.Truncate(window)
		reset := start.Add(window)
		a.mu.Lock()
		if !a.quotaStart.Equal(start) {
			a.quotaStart, a.quotaUsed = start, 0
		}
		over := a.quotaUsed >= limit
		if !over {
			a.quotaUsed++
		} else {
			a.stats.RateLimited++
		}
		used := a.quotaUsed
		a.mu.Unlock()
		hdr := w.Header()
		hdr.Set("X-RateLimit-Limit", strconv.Itoa(limit))
		hdr.Set("X-RateLimit-Remaining", strconv.Itoa(limit-used))
		hdr.Set("X-RateLimit-Used", strconv.Itoa(used))
		hdr.Set("X-RateLimit-Reset", strconv.FormatInt((reset.UnixNano()+int64(time.Second)-1)/int64(time.Second), 10))
		hdr.Set("X-RateLimit-Resource", "core")
		if over {
			apiWriteError(w, http.StatusForbidden, "rate_limited",
				fmt.Sprintf("API rate limit exceeded: %d requests per %v; it resets at %s", limit, window, reset.UTC().Format(time.RFC3339)))
			return
		}
		maxAge := 60
		if v := r.URL.Query().Get("max_age"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				apiWriteError(w, http.StatusBadRequest, "bad_request", "max_age must be a non-negative integer")
				a.refund(start)
				return
			}
			maxAge = n
		}
		hdr.Set("Cache-Control", "private, max-age="+strconv.Itoa(maxAge))
		sw := &statusWriter{ResponseWriter: w, before: func(code int) {
			if code == http.StatusNotModified {
				// Not counted: the request is given back, and the
				// headers say so.
				a.refund(start)
				hdr.Set("X-RateLimit-Remaining", strconv.Itoa(limit-used+1))
				hdr.Set("X-RateLimit-Used", strconv.Itoa(used-1))
			}
		}}
		h(sw, r)
	}
}

// refund gives back a request of the window that started at start.
func (a *API) refund(start time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.quotaStart.Equal(start) && a.quotaUsed > 0 {
		a.quotaUsed--
	}
}

// statusWriter calls before with the status a handler writes, before the
// header goes out.
type statusWriter struct {
	http.ResponseWriter
	before func(code int)
	done   bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		w.before(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}
