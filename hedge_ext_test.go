package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// stallFirst answers every request but the first at once; the first waits
// until its context ends, which it reports on cancelled.
func stallFirst(t *testing.T, cancelled chan<- struct{}, keys *sync.Map) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		if keys != nil {
			keys.Store(i, r.Header.Get("Idempotency-Key"))
		}
		io.Copy(io.Discard, r.Body)
		if i == 1 {
			<-r.Context().Done()
			close(cancelled)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%d,"name":"hedge"}`, i)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// A GET whose first attempt stalls is answered by its hedge; the stalled
// attempt is cancelled before the call returns. Sync and async.
func TestHedgingGet(t *testing.T) {
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprint("async=", async), func(t *testing.T) {
			cancelled := make(chan struct{})
			srv, n := stallFirst(t, cancelled, nil)
			var hedges atomic.Int32
			opts := []kit.Option{kit.WithHedging(5*time.Millisecond, 2),
				kit.WithObserver(kit.Observer{Hedge: func(context.Context, kit.HedgeInfo) { hedges.Add(1) }})}
			ctx := context.Background()
			var u faultUser
			var err error
			if async {
				ac, e := kit.NewAsyncClient(srv.URL, opts...)
				if e != nil {
					t.Fatal(e)
				}
				defer ac.Close(ctx)
				u, err = breakerGet.Go(ctx, ac, struct{}{}).Await(ctx)
			} else {
				c, e := kit.NewClient(srv.URL, opts...)
				if e != nil {
					t.Fatal(e)
				}
				defer c.Close()
				u, err = breakerGet.Call(ctx, c, struct{}{})
			}
			if err != nil || u.ID < 2 {
				t.Fatalf("%+v, %v", u, err)
			}
			<-cancelled // the stalled first attempt ended
			// On a loaded machine the second hedge may go before the
			// first answers (and be cancelled before it reaches the
			// server): either is a hedge's answer.
			if h := hedges.Load(); h < 1 || n.Load() < 2 || n.Load() > h+1 {
				t.Fatalf("%d hedges, %d requests", hedges.Load(), n.Load())
			}
		})
	}
}

// A POST is never hedged; a POST with an idempotency key is, and both of
// its attempts carry the same key.
func TestHedgingWrites(t *testing.T) {
	type body struct {
		Body struct {
			Name string `json:"name"`
		}
	}
	create := kit.Post[body, faultUser]("/users")
	var n atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":1}`))
	}))
	defer srv.Close()
	var hedged atomic.Int32
	c, err := kit.NewClient(srv.URL, kit.WithHedging(time.Millisecond, 3),
		kit.WithObserver(kit.Observer{Hedge: func(context.Context, kit.HedgeInfo) { hedged.Add(1) }}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		time.Sleep(150 * time.Millisecond) // 150 hedge delays
		close(release)
	}()
	if _, err := create.Call(context.Background(), c, body{}); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 1 || hedged.Load() != 0 {
		t.Fatalf("a POST without a key: %d requests, %d hedges", n.Load(), hedged.Load())
	}

	cancelled := make(chan struct{})
	var keys sync.Map
	srv2, n2 := stallFirst(t, cancelled, &keys)
	c2, err := kit.NewClient(srv2.URL, kit.WithHedging(time.Millisecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if _, err := create.Call(context.Background(), c2, body{}, kit.IdempotencyKey("k-1")); err != nil {
		t.Fatal(err)
	}
	<-cancelled
	k1, _ := keys.Load(int32(1))
	k2, _ := keys.Load(int32(2))
	if n2.Load() != 2 || k1 != "k-1" || k2 != "k-1" {
		t.Fatalf("%d requests, keys %v %v", n2.Load(), k1, k2)
	}
}

// A streamed winner stays readable after the call returns: only the
// losers are cancelled.
func TestHedgingStream(t *testing.T) {
	cancelled := make(chan struct{})
	srv, _ := stallFirst(t, cancelled, nil)
	stream := kit.Get[struct{}, io.ReadCloser]("/users/7")
	c, err := kit.NewClient(srv.URL, kit.WithHedging(5*time.Millisecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc, err := stream.Call(context.Background(), c, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	<-cancelled
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil || string(b) != `{"id":2,"name":"hedge"}` { // one hedge at most
		t.Fatalf("%q, %v", b, err)
	}
}

// A decisive error (a 404) wins like a response; a call option turns
// hedging off; bad settings fail.
func TestHedgingSettings(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithHedging(time.Hour, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var he *kit.HTTPError
	if _, err := breakerGet.Call(context.Background(), c, struct{}{}); !errors.As(err, &he) || he.StatusCode != 404 || n.Load() != 1 {
		t.Fatalf("%v, %d requests", err, n.Load())
	}
	if _, err := breakerGet.Call(context.Background(), c, struct{}{}, kit.WithHedging(time.Millisecond, 0)); !errors.As(err, &he) {
		t.Fatal(err)
	}
	for _, o := range []kit.RequestOption{kit.WithHedging(0, 1), kit.WithHedging(time.Second, -1), kit.WithHedging(time.Second, 11)} {
		if _, err := kit.NewClient(srv.URL, o); err == nil {
			t.Errorf("%v accepted", o)
		}
	}
}

// Hedges take rate-limit tokens and go through the breaker: a cancelled
// loser counts as neither success nor failure.
func TestHedgingCountsHonestly(t *testing.T) {
	cancelled := make(chan struct{})
	srv, _ := stallFirst(t, cancelled, nil)
	var waits atomic.Int32
	lim := limiterFunc(func(ctx context.Context) error { waits.Add(1); return nil })
	var changes atomic.Int32
	c, err := kit.NewClient(srv.URL, kit.WithHedging(5*time.Millisecond, 1), kit.WithLimits(kit.Limits{Limiter: lim}),
		kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 1}),
		kit.WithObserver(kit.Observer{Circuit: func(context.Context, kit.CircuitInfo) { changes.Add(1) }}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := breakerGet.Call(context.Background(), c, struct{}{}); err != nil {
		t.Fatal(err)
	}
	<-cancelled
	if waits.Load() != 2 || changes.Load() != 0 {
		t.Fatalf("%d rate-limit waits (want 2), %d circuit changes (want 0)", waits.Load(), changes.Load())
	}
}

type limiterFunc func(ctx context.Context) error

func (f limiterFunc) Wait(ctx context.Context) error { return f(ctx) }
