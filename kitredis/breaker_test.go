package kitredis_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitredis"
)

func TestBreakerStoreTripAndOpenUntil(t *testing.T) {
	rdb := newRedis(t)
	prefix := uniqueKey(t) + ":"
	s := kitredis.NewBreakerStore(rdb, prefix)
	ctx := t.Context()
	if u, err := s.OpenUntil(ctx, "https://a:443"); err != nil || !u.IsZero() {
		t.Fatalf("a circuit never tripped: %v, %v", u, err)
	}
	until := time.Now().Add(time.Hour)
	if err := s.Trip(ctx, "https://a:443", until); err != nil {
		t.Fatal(err)
	}
	if err := s.Trip(ctx, "https://a:443", time.Now().Add(time.Minute)); err != nil { // never shortens
		t.Fatal(err)
	}
	u, err := s.OpenUntil(ctx, "https://a:443")
	if err != nil || u.Before(until.Add(-5*time.Second)) || u.After(until.Add(5*time.Second)) {
		t.Fatalf("OpenUntil %v (%v), want about %v", u, err, until)
	}
	if u, _ := s.OpenUntil(ctx, "https://b:443"); !u.IsZero() {
		t.Fatalf("another origin is open until %v", u)
	}
	if ttl := rdb.PTTL(ctx, prefix+"https://a:443").Val(); ttl <= 0 {
		t.Fatalf("the key does not expire: %v", ttl)
	}
}

// Two clients (two processes of a fleet) share a circuit through Redis:
// the second fails fast once the first has opened it.
func TestBreakerStoreSharedByClients(t *testing.T) {
	rdb := newRedis(t)
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	cb := kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 2, CoolDown: time.Minute,
		Store: kitredis.NewBreakerStore(rdb, uniqueKey(t)+":")})
	a, err := kit.NewClient(srv.URL, cb)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := kit.NewClient(srv.URL, cb)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	get := kit.Get[struct{}, map[string]any]("/")
	ctx := context.Background()
	get.Call(ctx, a, struct{}{})
	get.Call(ctx, a, struct{}{})
	if _, err := get.Call(ctx, b, struct{}{}); !errors.Is(err, kit.ErrCircuitOpen) {
		t.Fatalf("the second client: %v, want ErrCircuitOpen", err)
	}
	if n.Load() != 2 {
		t.Fatalf("the server saw %d requests, want 2", n.Load())
	}
}
