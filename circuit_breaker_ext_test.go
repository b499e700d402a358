package kit_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// memBreakerStore is a BreakerStore in memory, shared by the clients of a
// test as Redis is by a fleet.
type memBreakerStore struct {
	mu    sync.Mutex
	until map[string]time.Time
	now   func() time.Time
}

func (s *memBreakerStore) Trip(_ context.Context, origin string, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if until.After(s.until[origin]) {
		s.until[origin] = until
	}
	return nil
}

func (s *memBreakerStore) OpenUntil(_ context.Context, origin string) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.until[origin]; u.After(s.now()) {
		return u, nil
	}
	return time.Time{}, nil
}

var breakerGet = kit.Get[struct{}, faultUser]("/users/7")

// The circuit opens after ConsecutiveFailures 5xx, refuses at once (the
// server sees nothing), lets a probe through after the cool-down, and
// closes on its success; the observer sees each change. Sync and async.
func TestCircuitBreakerOpensAndCloses(t *testing.T) {
	for _, async := range []bool{false, true} {
		name := "sync"
		if async {
			name = "async"
		}
		t.Run(name, func(t *testing.T) {
			fs := kittest.NewFaultServer(t, nil)
			fs.Script(503, 503, 503)
			clock := newFakeClock()
			var mu sync.Mutex
			var changes []string
			obs := kit.WithObserver(kit.Observer{Circuit: func(_ context.Context, c kit.CircuitInfo) {
				mu.Lock()
				changes = append(changes, c.From.String()+">"+c.To.String())
				mu.Unlock()
			}})
			opts := []kit.Option{kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 3, CoolDown: time.Minute}), obs}
			ctx := context.Background()
			var call func() error
			if async {
				ac, err := kit.NewAsyncClient(fs.URL(), opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer ac.Close(ctx)
				kit.SetAsyncBreakerClock(ac, clock.Now)
				call = func() error { _, err := breakerGet.Go(ctx, ac, struct{}{}).Await(ctx); return err }
			} else {
				c, err := kit.NewClient(fs.URL(), opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				kit.SetBreakerClock(c, clock.Now)
				call = func() error { _, err := breakerGet.Call(ctx, c, struct{}{}); return err }
			}
			for i := range 3 {
				var he *kit.HTTPError
				if err := call(); !errors.As(err, &he) || he.StatusCode != 503 {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			err := call()
			var open *kit.CircuitOpenError
			if !errors.Is(err, kit.ErrCircuitOpen) || !errors.As(err, &open) || !open.Until.Equal(clock.Now().Add(time.Minute)) {
				t.Fatalf("the 4th call: %v", err)
			}
			if fs.Requests() != 3 {
				t.Fatalf("the server saw %d requests, want 3", fs.Requests())
			}
			clock.Advance(time.Minute)
			if err := call(); err != nil {
				t.Fatalf("the probe: %v", err)
			}
			if err := call(); err != nil {
				t.Fatalf("after the probe: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			want := []string{"closed>open", "open>half-open", "half-open>closed"}
			if len(changes) != 3 || changes[0] != want[0] || changes[1] != want[1] || changes[2] != want[2] {
				t.Fatalf("observer saw %v, want %v", changes, want)
			}
		})
	}
}

// A refused connection is a failure, a 4xx is not, a failed probe opens
// the circuit again, and an open circuit's error is not retried.
func TestCircuitBreakerOutcomes(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	clock := newFakeClock()
	c, err := kit.NewClient(url, kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 2, CoolDown: time.Second}),
		kit.WithRetry(kit.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	kit.SetBreakerClock(c, clock.Now)
	ctx := context.Background()
	for range 3 {
		var he *kit.HTTPError
		if _, err := breakerGet.Call(ctx, c, struct{}{}); !errors.As(err, &he) || he.StatusCode != 404 {
			t.Fatalf("a 404: %v", err)
		}
	}
	srv.Close() // from now on, connections are refused
	_, err = breakerGet.Call(ctx, c, struct{}{})
	if !errors.Is(err, kit.ErrCircuitOpen) {
		t.Fatalf("2 refused attempts, then the 3rd: %v, want ErrCircuitOpen", err)
	}
	_, err = breakerGet.Call(ctx, c, struct{}{})
	var open *kit.CircuitOpenError
	if !errors.As(err, &open) {
		t.Fatalf("%v", err)
	}
	clock.Advance(time.Second)
	_, err = breakerGet.Call(ctx, c, struct{}{}) // the probe is refused, then the circuit is open again
	if !errors.Is(err, kit.ErrCircuitOpen) {
		t.Fatalf("after a failed probe: %v", err)
	}
	if _, err := breakerGet.Call(ctx, c, struct{}{}); !errors.As(err, &open) || !open.Until.Equal(clock.Now().Add(time.Second)) {
		t.Fatalf("reopened: %v", err)
	}
}

// A circuit one client opens is open for another sharing its store: the
// second fails fast without sending anything.
func TestCircuitBreakerSharedStore(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.Script(500, 500)
	clock := newFakeClock()
	store := &memBreakerStore{until: map[string]time.Time{}, now: clock.Now}
	var shared atomic.Bool
	cb := kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 2, CoolDown: 10 * time.Second, Store: store})
	a, err := kit.NewClient(fs.URL(), cb)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := kit.NewAsyncClient(fs.URL(), cb, kit.WithObserver(kit.Observer{Circuit: func(_ context.Context, c kit.CircuitInfo) {
		if c.Shared && c.To == kit.CircuitOpen {
			shared.Store(true)
		}
	}}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	defer b.Close(ctx)
	kit.SetBreakerClock(a, clock.Now)
	kit.SetAsyncBreakerClock(b, clock.Now)
	breakerGet.Call(ctx, a, struct{}{})
	breakerGet.Call(ctx, a, struct{}{})
	if _, err := breakerGet.Go(ctx, b, struct{}{}).Await(ctx); !errors.Is(err, kit.ErrCircuitOpen) || !shared.Load() {
		t.Fatalf("the other client: %v (shared %v)", err, shared.Load())
	}
	if fs.Requests() != 2 {
		t.Fatalf("the server saw %d requests", fs.Requests())
	}
	clock.Advance(10 * time.Second)
	if _, err := breakerGet.Go(ctx, b, struct{}{}).Await(ctx); err != nil {
		t.Fatalf("after the cool-down: %v", err)
	}
}

func TestCircuitBreakerBadSettings(t *testing.T) {
	for _, cb := range []kit.CircuitBreaker{{FailureRatio: 1.5}, {ConsecutiveFailures: -1}, {CoolDown: -time.Second}} {
		if _, err := kit.NewClient("http://127.0.0.1", kit.WithCircuitBreaker(cb)); err == nil {
			t.Errorf("%+v accepted", cb)
		}
	}
	if s := kit.WithCircuitBreaker(kit.CircuitBreaker{FailureRatio: 0.5, CoolDown: time.Second}); s.(interface{ String() string }).String() !=
		"kit.WithCircuitBreaker(kit.CircuitBreaker{FailureRatio: 0.5, CoolDown: 1s})" {
		t.Errorf("String: %v", s)
	}
}

// The walk's pages each go through the breaker.
func TestCircuitBreakerWalk(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.SetFallback(500)
	c, err := kit.NewClient(fs.URL(), kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 1, CoolDown: time.Hour}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := kit.NewResource[faultUser](c, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 2}))
	for _, err := range r.All(context.Background()) {
		var he *kit.HTTPError
		if !errors.As(err, &he) {
			t.Fatalf("first walk: %v", err)
		}
		break
	}
	for _, err := range r.All(context.Background()) {
		if !errors.Is(err, kit.ErrCircuitOpen) {
			t.Fatalf("second walk: %v", err)
		}
		break
	}
}
