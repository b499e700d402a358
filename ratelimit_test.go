package kit

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"
)

// The bucket starts full: burst tokens go at once, and the next one, a day
// away, fails a short deadline at once without taking a token.
func TestLimiterBurstThenDeadline(t *testing.T) {
	l := newLimiter(1.0/86400, 3)
	for i := range 3 {
		if err := l.Wait(t.Context()); err != nil {
			t.Fatalf("token %d of the burst: %v", i+1, err)
		}
	}
	before := l.full.Load()
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	if err := l.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("past the burst: err = %v, want DeadlineExceeded", err)
	}
	if got := l.full.Load(); got != before {
		t.Errorf("a refused wait took a token: full %d, was %d", got, before)
	}
}

// 64 goroutines share a bucket of 40 tokens that refills once a day:
// exactly 40 get one, the others fail their deadline, whatever the
// interleaving of their compare-and-swaps.
func TestLimiterConcurrentTakesExactlyTheBurst(t *testing.T) {
	const burst, callers = 40, 64
	l := newLimiter(1.0/86400, burst)
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		ok, late int
	)
	for range callers {
		wg.Go(func() {
			err := l.Wait(ctx)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, context.DeadlineExceeded):
				late++
			default:
				t.Errorf("err = %v", err)
			}
		})
	}
	wg.Wait()
	if ok != burst || late != callers-burst {
		t.Errorf("%d got a token and %d were refused; want %d and %d", ok, late, burst, callers-burst)
	}
}

// A wait that its context ends takes no token in the end: either it ends
// before reserving one, or it gives the reserved one back.
func TestLimiterCancelledWaitGivesTheTokenBack(t *testing.T) {
	l := newLimiter(1.0/86400, 1)
	if err := l.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := l.full.Load()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- l.Wait(ctx) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
	if got := l.full.Load(); got != before {
		t.Errorf("the cancelled wait kept its token: full %d, was %d", got, before)
	}
	if err := l.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("an ended context: err = %v", err)
	}
}

// Extreme rates and bursts neither overflow nor hand out extra tokens.
func TestLimiterExtremes(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	for _, tc := range []struct {
		rate  float64
		burst int
	}{
		{math.SmallestNonzeroFloat64, 1},
		{math.SmallestNonzeroFloat64, math.MaxInt},
		{1e-9, 3},
		{1e-9, math.MaxInt},
	} {
		l := newLimiter(tc.rate, tc.burst)
		if err := l.Wait(ctx); err != nil {
			t.Errorf("%v/s, burst %d: the first token: %v", tc.rate, tc.burst, err)
			continue
		}
		n := 1
		for ; n < 100; n++ {
			if err := l.Wait(ctx); err != nil {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%v/s, burst %d: err = %v", tc.rate, tc.burst, err)
				}
				break
			}
		}
		if want := min(tc.burst, 9); n > want {
			t.Errorf("%v/s, burst %d: %d tokens at once, want at most %d", tc.rate, tc.burst, n, want)
		}
	}
	// A rate past one a nanosecond is one a nanosecond.
	if l := newLimiter(1e12, 5); l.interval != 1 || l.tolerance != 5 {
		t.Errorf("1e12/s: interval %d, tolerance %d", l.interval, l.tolerance)
	}
}

// BenchmarkRateLimitParallel is the limiter alone, taken by 64 goroutines
// from a bucket that never runs dry: the cost of WithRateLimit when tokens
// are plentiful. Run with -mutexprofile to see that it takes no lock.
func BenchmarkRateLimitParallel(b *testing.B) {
	l := newLimiter(1e9, 1e6)
	b.SetParallelism((64 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if err := l.Wait(ctx); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
