package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// limitServer answers /doc with the headers its script gives for the n-th
// request (counting from 1), and counts the requests.
type limitServer struct {
	n      atomic.Int64
	script func(n int64, h http.Header) int // sets headers, returns the status
}

func (s *limitServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	status := s.script(s.n.Add(1), w.Header())
	w.WriteHeader(status)
	fmt.Fprint(w, `{}`)
}

func newLimitServer(t *testing.T, script func(n int64, h http.Header) int, opts ...kit.Option) (*limitServer, *kit.Client) {
	t.Helper()
	s := &limitServer{script: script}
	srv := serve(t, s)
	return s, newClient(t, srv.URL, opts...)
}

func TestServerRateLimitFailsPastMaxWait(t *testing.T) {
	t.Parallel()
	for name, set := range map[string]func(h http.Header){
		"ietf": func(h http.Header) {
			h.Set("RateLimit", `"burst";r=7;t=1, "hour";r=0;t=3600`)
			h.Set("RateLimit-Policy", `"burst";q=10;w=1, "hour";q=100;w=3600`)
		},
		"github": func(h http.Header) {
			h.Set("X-RateLimit-Limit", "100")
			h.Set("X-RateLimit-Remaining", "0")
			h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
		},
		"delta seconds": func(h http.Header) {
			h.Set("X-RateLimit-Limit", "100")
			h.Set("X-RateLimit-Remaining", "0")
			h.Set("X-RateLimit-Reset", "3600")
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, c := newLimitServer(t, func(n int64, h http.Header) int { set(h); return 200 },
				kit.WithServerRateLimit(time.Minute), kit.WithRetry(kit.RetryPolicy{}))
			getDoc(t, c)
			_, err := cacheGet.Call(t.Context(), c, kit.NoParams{})
			var rle *kit.RateLimitError
			if !errors.As(err, &rle) {
				t.Fatalf("err = %v, want a *RateLimitError", err)
			}
			if rle.Limit != 100 || rle.Remaining != 0 || rle.Err != nil {
				t.Errorf("RateLimitError = %+v", rle)
			}
			if d := time.Until(rle.Reset); d < 58*time.Minute || d > 61*time.Minute {
				t.Errorf("Reset in %v, want about an hour", d)
			}
			if !strings.Contains(err.Error(), "rate limit") || !strings.Contains(err.Error(), "GET") {
				t.Errorf("err = %q", err)
			}
			if n := s.n.Load(); n != 1 {
				t.Errorf("server saw %d requests, want 1 (nothing sent)", n)
			}
		})
	}
}

// The request after "none left" waits for the reset, then goes.
func TestServerRateLimitWaitsForTheReset(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var reset time.Time
	var early []time.Time
	s, c := newLimitServer(t, func(n int64, h http.Header) int {
		mu.Lock()
		defer mu.Unlock()
		if n > 1 && time.Now().Before(reset) {
			early = append(early, time.Now())
		}
		// A reset one second ahead, as a Unix time, against the Date sent.
		now := time.Now()
		reset = now.Truncate(time.Second).Add(time.Second)
		h.Set("Date", now.UTC().Format(http.TimeFormat))
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
		return 200
	}, kit.WithServerRateLimit(time.Minute))
	getDoc(t, c)
	getDoc(t, c)
	mu.Lock()
	defer mu.Unlock()
	if len(early) != 0 || s.n.Load() != 2 {
		t.Errorf("%d requests, %d before the announced reset", s.n.Load(), len(early))
	}
}

func TestServerRateLimitContextBeforeReset(t *testing.T) {
	t.Parallel()
	_, c := newLimitServer(t, func(n int64, h http.Header) int {
		h.Set("RateLimit", `"default";r=0;t=3600`)
		return 200
	}, kit.WithServerRateLimit(2*time.Hour))
	getDoc(t, c)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := cacheGet.Call(ctx, c, kit.NoParams{})
	var rle *kit.RateLimitError
	if !errors.As(err, &rle) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a *RateLimitError matching DeadlineExceeded", err)
	}
}

// A 429 that announces the limit updates it; later calls are not sent.
func TestServerRateLimitFrom429(t *testing.T) {
	t.Parallel()
	s, c := newLimitServer(t, func(n int64, h http.Header) int {
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset", "7200")
		return http.StatusTooManyRequests
	}, kit.WithServerRateLimit(time.Minute))
	_, err := cacheGet.Call(t.Context(), c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 429 {
		t.Fatalf("err = %v", err)
	}
	_, err = cacheGet.Call(t.Context(), c, kit.NoParams{})
	var rle *kit.RateLimitError
	if !errors.As(err, &rle) || s.n.Load() != 1 {
		t.Errorf("err = %v, %d requests", err, s.n.Load())
	}
}

// Requests sent count against the remaining number between responses.
func TestServerRateLimitCountsDown(t *testing.T) {
	t.Parallel()
	s, c := newLimitServer(t, func(n int64, h http.Header) int {
		if n == 1 {
			h.Set("X-RateLimit-Remaining", "2")
			h.Set("X-RateLimit-Reset", "3600")
		}
		return 200
	}, kit.WithServerRateLimit(time.Minute))
	getDoc(t, c) // says 2 left
	getDoc(t, c) // says nothing: 1 left
	getDoc(t, c) // 0 left
	if _, err := cacheGet.Call(t.Context(), c, kit.NoParams{}); !errors.As(err, new(*kit.RateLimitError)) {
		t.Errorf("fourth call: err = %v", err)
	}
	if n := s.n.Load(); n != 3 {
		t.Errorf("server saw %d requests, want 3", n)
	}
}

// Headers that lie are not believed: the next request is sent.
func TestServerRateLimitIgnoresLies(t *testing.T) {
	t.Parallel()
	for name, hdr := range map[string][2]string{
		"negative remaining": {"-1", "60"},
		"negative reset":     {"0", "-60"},
		"garbage remaining":  {"none", "60"},
		"garbage reset":      {"0", "soon"},
		"NaN reset":          {"0", "NaN"},
		"reset in the past":  {"0", strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)},
		"reset in 3000":      {"0", strconv.FormatInt(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), 10)},
		"reset overflows":    {"0", "99999999999999999999999999"},
		"zero reset":         {"0", "0"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, c := newLimitServer(t, func(n int64, h http.Header) int {
				h.Set("X-RateLimit-Remaining", hdr[0])
				h.Set("X-RateLimit-Reset", hdr[1])
				h.Set("RateLimit", `"x";r=-1;t=60, garbage;;;, "y";r=0;t=99999999999`)
				return 200
			}, kit.WithServerRateLimit(time.Minute))
			getDoc(t, c)
			getDoc(t, c)
			if n := s.n.Load(); n != 2 {
				t.Errorf("server saw %d requests, want 2", n)
			}
		})
	}
}

func TestServerRateLimitOptionErrors(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithServerRateLimit(d)); err == nil || !strings.Contains(err.Error(), "WithServerRateLimit") {
			t.Errorf("WithServerRateLimit(%v): err = %v", d, err)
		}
	}
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithLimiter(nil)); err == nil || !strings.Contains(err.Error(), "WithLimiter(nil)") {
		t.Errorf("WithLimiter(nil): err = %v", err)
	}
}

// countingLimiter lets every request through, counting them, or fails.
type countingLimiter struct {
	n   atomic.Int64
	err error
}

func (l *countingLimiter) Wait(ctx context.Context) error {
	l.n.Add(1)
	return l.err
}

func TestWithLimiterSharedByClients(t *testing.T) {
	t.Parallel()
	l := &countingLimiter{}
	srv := serve(t, replyJSON(200, `{}`))
	a := newClient(t, srv.URL, kit.WithLimiter(l))
	b := newClient(t, srv.URL, kit.WithLimiter(l))
	getDoc(t, a)
	getDoc(t, b)
	getDoc(t, a)
	if n := l.n.Load(); n != 3 {
		t.Errorf("Wait called %d times, want 3", n)
	}
	failing := &countingLimiter{err: errors.New("quota store unreachable")}
	s, c := newLimitServer(t, func(int64, http.Header) int { return 200 }, kit.WithLimiter(failing))
	_, err := cacheGet.Call(t.Context(), c, kit.NoParams{})
	if err == nil || !strings.Contains(err.Error(), "quota store unreachable") || !strings.Contains(err.Error(), "rate limit") {
		t.Errorf("err = %v", err)
	}
	if s.n.Load() != 0 {
		t.Error("a request was sent although the limiter failed")
	}
}

// The rate limit a response announces is its origin's: the origin that
// answered, after redirects, not the one the request was first sent to. A
// CDN the API redirects to says nothing of the API's own limit.

var (
	redirectedFile     = kit.Get[kit.NoParams, *kit.Response]("/file")
	redirectedDownload = kit.Get[kit.NoParams, io.ReadCloser]("/file")
)

func TestServerRateLimitOfARedirectTarget(t *testing.T) {
	for _, c := range []struct {
		status   int
		streamed bool
	}{{http.StatusOK, false}, {http.StatusOK, true}, {http.StatusTooManyRequests, false}} {
		status := c.status
		for _, tw := range twins {
			t.Run(fmt.Sprint(status, "/streamed=", c.streamed, "/", tw.name), func(t *testing.T) {
				var cdnHits, apiHits atomic.Int64
				cdn := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					cdnHits.Add(1)
					w.Header().Set("X-RateLimit-Limit", "100")
					w.Header().Set("X-RateLimit-Remaining", "0")
					w.Header().Set("X-RateLimit-Reset", "3600") // an hour
					w.WriteHeader(status)
					fmt.Fprint(w, `{}`)
				}))
				mux := http.NewServeMux()
				mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, cdn.URL+"/file", http.StatusFound)
				})
				mux.HandleFunc("/doc", func(w http.ResponseWriter, r *http.Request) {
					apiHits.Add(1)
					fmt.Fprint(w, `{}`)
				})
				api := serve(t, mux)
				b := tw.client(t, api.URL, kit.WithServerRateLimit(time.Minute), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 1}))

				var err error
				if c.streamed {
					var rc io.ReadCloser
					if rc, err = twinCall(t.Context(), tw, redirectedDownload, b, kit.NoParams{}); err == nil {
						rc.Close()
					}
				} else {
					_, err = twinCall(t.Context(), tw, redirectedFile, b, kit.NoParams{})
				}
				if status == http.StatusOK && err != nil {
					t.Fatal(err)
				}
				if he, ok := errors.AsType[*kit.HTTPError](err); status != http.StatusOK && (!ok || he.StatusCode != status) {
					t.Fatalf("err = %v, want the CDN's %d", err, status)
				}
				// The API itself is not limited: the call is sent at once.
				if _, err := twinCall(t.Context(), tw, cacheGet, b, kit.NoParams{}); err != nil {
					t.Fatalf("a call to the API after the CDN's limit: %v", err)
				}
				if n := apiHits.Load(); n != 1 {
					t.Errorf("the API saw %d requests, want 1", n)
				}
				if n := cdnHits.Load(); n != 1 {
					t.Errorf("the CDN saw %d requests, want 1", n)
				}
			})
		}
	}
}
