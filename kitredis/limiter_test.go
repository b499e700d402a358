package kitredis_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitredis"
)

func TestLimiterSharedByLimiters(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	// A burst of 3 and one more a day: across two limiters on the key,
	// three Waits pass and the fourth would wait a day.
	lim := kitredis.Limit{Rate: 1, Period: 24 * time.Hour, Burst: 3}
	a, b := kitredis.NewLimiter(rdb, key, lim), kitredis.NewLimiter(rdb, key, lim)
	for i, l := range []kit.Limiter{a, b, a} {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatalf("Wait %d: %v", i, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err := b.Wait(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), key) {
		t.Errorf("fourth Wait: %v, want DeadlineExceeded at once", err)
	}
	cctx, ccancel := context.WithCancel(t.Context())
	ccancel()
	if err := a.Wait(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait with a cancelled context: %v", err)
	}
}

func TestLimiterErrors(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	if err := kitredis.NewLimiter(rdb, key, kitredis.Limit{}).Wait(t.Context()); err == nil || !strings.Contains(err.Error(), "bad limit") {
		t.Errorf("zero limit: %v", err)
	}
	rdb.HSet(t.Context(), key, "not", "a rate")
	err := kitredis.NewLimiter(rdb, key, kitredis.PerSecond(10)).Wait(t.Context())
	if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("a hash under the key: %v", err)
	}
}
