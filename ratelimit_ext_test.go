package kit_test

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

func TestRateLimitOptionErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rate  float64
		burst int
	}{{0, 1}, {-1, 1}, {math.NaN(), 1}, {math.Inf(1), 1}, {1, 0}, {1, -3}} {
		_, err := kit.NewClient("http://127.0.0.1:1", kit.WithRateLimit(tc.rate, tc.burst))
		if err == nil || !strings.Contains(err.Error(), "WithRateLimit") {
			t.Errorf("WithRateLimit(%v, %d): err = %v", tc.rate, tc.burst, err)
		}
		_, err = kit.NewAsyncClient("http://127.0.0.1:1", kit.WithRateLimit(tc.rate, tc.burst))
		if err == nil {
			t.Errorf("NewAsyncClient WithRateLimit(%v, %d): no error", tc.rate, tc.burst)
		}
	}
}

// With a burst of 1 and a rate of one token a day, the first request takes
// the only token; every later one would wait far past a short deadline, so
// it fails at once with DeadlineExceeded and sends nothing.
func TestRateLimitSharedByResourcesAndEndpoints(t *testing.T) {
	t.Parallel()
	s := newRTServer(t)
	c := newClient(t, s.URL, kit.WithRateLimit(1.0/86400, 1))
	a := kit.NewResource[rtItem](c, "/a")
	b := kit.NewResource[rtItem](c, "/b")

	if _, err := a.Get(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	calls := map[string]func(ctx context.Context) error{
		"other resource": func(ctx context.Context) error { _, err := b.Get(ctx, 1); return err },
		"same resource":  func(ctx context.Context) error { _, err := a.List(ctx, nil); return err },
		"endpoint":       func(ctx context.Context) error { _, err := rtGet.Call(ctx, c, kit.NoParams{}); return err },
		"iteration": func(ctx context.Context) error {
			for _, err := range b.All(ctx) {
				return err
			}
			return nil
		},
	}
	for name, call := range calls {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		err := call(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want DeadlineExceeded", name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "rate limit") {
			t.Errorf("%s: err = %v, want it to name the rate limit", name, err)
		}
	}
	if n := s.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestRateLimitCancelledWhileWaiting(t *testing.T) {
	t.Parallel()
	s := newRTServer(t)
	c := newClient(t, s.URL, kit.WithRateLimit(1.0/86400, 1))
	if _, err := rtGet.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := rtGet.Call(ctx, c, kit.NoParams{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := s.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestRateLimitSharedByAsyncCalls(t *testing.T) {
	t.Parallel()
	s := newRTServer(t)
	ac := newAsyncClient(t, s.URL, kit.WithRateLimit(1.0/86400, 2))
	res := kit.NewAsyncResource[rtItem](ac, "/items")
	if _, err := rtGet.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := res.Get(t.Context(), 1).Await(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := rtGet.Go(ctx, ac, kit.NoParams{}).Await(t.Context())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("third call: err = %v, want DeadlineExceeded", err)
	}
	_, err = res.Get(ctx, 2).Await(t.Context())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("fourth call: err = %v, want DeadlineExceeded", err)
	}
	if n := s.count(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

// Each attempt of a retried call takes a token: with a burst of 2, the
// third attempt cannot be made before the deadline.
func TestRateLimitCountsRetryAttempts(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 503, 503)
	c := newClient(t, s.URL, kit.WithRateLimit(1.0/86400, 2), kit.WithRetry(rtFastRetry(4)))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err := rtGet.Call(ctx, c, kit.NoParams{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want DeadlineExceeded from the rate limit", err)
	}
	if n := s.count(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

// ---------------------------------------------------------------------------
// Defect 7: pipelined walks take rate-limit tokens out of page order: a
// page ahead may get the first token, so the first record comes late, and
// under a deadline the walk fails where a sync walk succeeds. Tokens are
// reserved in page order.
//
// The limiter here has one token now and the next in an hour, and the
// walk's context a deadline of seconds: whichever page takes the token is
// sent, every other one fails at once. A call interceptor holds page 1
// back until the pages ahead of it have been answered, so that, without
// the reservation in page order, one of them takes the token.

func TestHostileSecPipelinedRateLimitOrder(t *testing.T) { // defect 7
	for _, hw := range hsWalkers {
		t.Run(hw.name, func(t *testing.T) {
			srv := hxServer(t, hxPagesHandler(func(r *http.Request) (string, string) {
				return `[{"id":` + r.URL.Query().Get("page") + `}]`, ""
			}))
			var ahead atomic.Int32
			aheadDone := make(chan struct{})
			window := int32(0)
			if len(hw.opts) > 0 {
				window = 3 // pages 2, 3 and 4 are named ahead with WithPrefetch(4)
			}
			hold := func(next kit.Sender) kit.Sender {
				return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
					if req.URL.Query().Get("page") == "1" && window > 0 {
						select {
						case <-aheadDone:
						case <-ctx.Done():
							return nil, ctx.Err()
						}
						return next(ctx, req)
					}
					resp, err := next(ctx, req)
					if ahead.Add(1) == window {
						close(aheadDone)
					}
					return resp, err
				}
			}
			copts := []kit.Option{kit.WithRateLimit(1.0/3600, 1), kit.WithInterceptors(hold)}
			ids, err := hw.walk(t, srv.URL, "/recs", copts, kit.WithPaginator(kit.PageNumber{PageSize: 1}))
			if !slices.Equal(ids, []int{1}) {
				t.Errorf("records %v before %v; want [1]: page 1 gets the first token", ids, err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("walk ended with %v; want page 2 to fail with context.DeadlineExceeded", err)
			}
		})
	}
}
