package kitredis_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitredis"
	"github.com/redis/go-redis/v9"
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

// Eight stores (as eight processes would have) renew once for a stale
// token; the callers that waited take the renewed one.
func TestTokenStoreOneRenewal(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	var renewals atomic.Int64
	renew := func(ctx context.Context, cur kit.Token) (kit.Token, error) {
		n := renewals.Add(1)
		time.Sleep(20 * time.Millisecond) // let the others queue at the lock
		return kit.Token{Value: fmt.Sprintf("t%d", n), Refresh: "r" + cur.Refresh}, nil
	}
	first, err := kitredis.NewTokenStore(rdb, key).Token(t.Context(), kit.Token{}, renew)
	if err != nil || first.Value != "t1" {
		t.Fatalf("first token: %v, %v", first.Value, err)
	}
	var wg sync.WaitGroup
	got := make([]kit.Token, 8)
	for i := range got {
		s := kitredis.NewTokenStore(rdb, key, kitredis.WithLockPoll(5*time.Millisecond))
		wg.Go(func() {
			tok, err := s.Token(t.Context(), first, renew)
			if err != nil {
				t.Error(err)
			}
			got[i] = tok
		})
	}
	wg.Wait()
	for i, tok := range got {
		if tok.Value != "t2" || tok.Refresh != "rr" {
			t.Errorf("caller %d got %v (refresh %q), want t2", i, tok.Value, tok.Refresh)
		}
	}
	if n := renewals.Load(); n != 2 {
		t.Errorf("%d renewals, want 2", n)
	}
}

// A holder whose renewal outlives its lock cannot overwrite the token of
// the holder that came after it.
func TestTokenStoreFencing(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	slowIn, slowOut := make(chan struct{}), make(chan struct{})
	slow := kitredis.NewTokenStore(rdb, key, kitredis.WithLockExpiry(100*time.Millisecond))
	result := make(chan error, 1)
	go func() {
		_, err := slow.Token(context.Background(), kit.Token{}, func(ctx context.Context, _ kit.Token) (kit.Token, error) {
			close(slowIn)
			<-slowOut // ignores its context: wakes after the lock expired
			return kit.Token{Value: "late"}, nil
		})
		result <- err
	}()
	<-slowIn
	fast := kitredis.NewTokenStore(rdb, key, kitredis.WithLockPoll(5*time.Millisecond))
	tok, err := fast.Token(t.Context(), kit.Token{}, func(context.Context, kit.Token) (kit.Token, error) {
		return kit.Token{Value: "newer"}, nil
	})
	if err != nil || tok.Value != "newer" {
		t.Fatalf("second holder: %v, %v", tok.Value, err)
	}
	close(slowOut)
	if err := <-result; err != nil {
		t.Errorf("late holder: %v (it should get the newer token)", err)
	}
	tok, err = fast.Token(t.Context(), kit.Token{}, nil)
	if err != nil || tok.Value != "newer" {
		t.Errorf("stored token: %v, %v; want newer", tok.Value, err)
	}
}

// A renew function that panics releases the lock; through kit the caller
// gets a *kit.PanicError.
func TestTokenStoreRenewPanics(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	s := kitredis.NewTokenStore(rdb, key)
	func() {
		defer func() { recover() }()
		s.Token(t.Context(), kit.Token{}, func(context.Context, kit.Token) (kit.Token, error) { panic("boom") })
	}()
	if n, _ := rdb.Exists(t.Context(), "{"+key+"}:lock").Result(); n != 0 {
		t.Error("the lock is still held after a panic")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `{}`) }))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithAuth(kit.RenewingTokenAuth(func(context.Context, kit.Token) (kit.Token, error) {
		panic("renew broke")
	}, kit.WithTokenStore(s))))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = kit.Get[kit.NoParams, *kit.Response]("/").Call(t.Context(), c, kit.NoParams{})
	var pe *kit.PanicError
	if !errors.As(err, &pe) {
		t.Errorf("err = %v, want a *kit.PanicError", err)
	}
	if n, _ := rdb.Exists(t.Context(), "{"+key+"}:lock").Result(); n != 0 {
		t.Error("the lock is still held after a panic through kit")
	}
}

func TestTokenStoreBadValues(t *testing.T) {
	rdb := newRedis(t)
	key := uniqueKey(t)
	rdb.HSet(t.Context(), "{"+key+"}:token", "token", "not json")
	tok, err := kitredis.NewTokenStore(rdb, key).Token(t.Context(), kit.Token{}, func(context.Context, kit.Token) (kit.Token, error) {
		return kit.Token{Value: "fresh"}, nil
	})
	if err != nil || tok.Value != "fresh" {
		t.Errorf("over a value that does not decode: %v, %v", tok.Value, err)
	}
	key = uniqueKey(t)
	rdb.Set(t.Context(), "{"+key+"}:token", "a string, not a hash", 0)
	_, err = kitredis.NewTokenStore(rdb, key).Token(t.Context(), kit.Token{}, nil)
	if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("a string under the key: %v", err)
	}
}

func TestCacheStore(t *testing.T) {
	rdb := newRedis(t)
	prefix := uniqueKey(t) + ":"
	c := kitredis.NewCache(rdb, prefix)
	ctx := t.Context()
	if _, ok, err := c.Get(ctx, "k"); ok || err != nil {
		t.Errorf("empty Get = %v, %v", ok, err)
	}
	if err := c.Set(ctx, "k", []byte("entry"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if b, ok, err := c.Get(ctx, "k"); !ok || err != nil || string(b) != "entry" {
		t.Errorf("Get = %q, %v, %v", b, ok, err)
	}
	if ttl := rdb.PTTL(ctx, prefix+"k").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("PTTL = %v", ttl)
	}
	c.Delete(ctx, "k")
	if _, ok, _ := c.Get(ctx, "k"); ok {
		t.Error("Delete left the entry")
	}
	rdb.HSet(ctx, prefix+"h", "a", "b")
	if _, _, err := c.Get(ctx, "h"); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Errorf("a hash under the key: %v", err)
	}
}

// (e) Redis goes away mid-run: cached calls go to the network, limited and
// token calls fail with a clear error before their deadline; none hangs.
func TestRedisKilled(t *testing.T) {
	redisAddr(t)
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("kitredis: redis-server is not on PATH: this test starts (and kills) its own")
	}
	port := freePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(port), ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	for i := 0; rdb.Ping(t.Context()).Err() != nil; i++ {
		if i == 200 {
			t.Fatal("the test's redis-server did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, `{}`)
	}))
	defer srv.Close()
	key := uniqueKey(t)
	get := kit.Get[kit.NoParams, *kit.Response]("/")
	cached, _ := kit.NewClient(srv.URL, kit.WithCache(kitredis.NewCache(rdb, key)))
	limited, _ := kit.NewClient(srv.URL, kit.WithLimiter(kitredis.NewLimiter(rdb, key+":quota", kitredis.PerSecond(100))))
	tokens, _ := kit.NewClient(srv.URL, kit.WithAuth(kit.RenewingTokenAuth(func(context.Context, kit.Token) (kit.Token, error) {
		return kit.Token{Value: "t"}, nil
	}, kit.WithTokenStore(kitredis.NewTokenStore(rdb, key+":token")))))
	for _, c := range []*kit.Client{cached, limited, tokens} {
		defer c.Close()
		if _, err := get.Call(t.Context(), c, kit.NoParams{}); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := get.Call(t.Context(), cached, kit.NoParams{}); err != nil || !r.FromCache() {
		t.Fatalf("before the kill: %v, %v", r, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	before := hits.Load()
	if r, err := get.Call(ctx, cached, kit.NoParams{}); err != nil || r.FromCache() {
		t.Errorf("cached client without Redis: %v, %v; want a response from the network", r, err)
	}
	if hits.Load() != before+1 {
		t.Error("the cached client did not go to the network")
	}
	if _, err := get.Call(ctx, limited, kit.NoParams{}); err == nil || !strings.Contains(err.Error(), "kitredis: limiter") {
		t.Errorf("limited client without Redis: %v", err)
	}
	// A fresh client of the store has no token in-process: it asks Redis.
	tokens2, _ := kit.NewClient(srv.URL, kit.WithAuth(kit.RenewingTokenAuth(func(context.Context, kit.Token) (kit.Token, error) {
		return kit.Token{Value: "t"}, nil
	}, kit.WithTokenStore(kitredis.NewTokenStore(rdb, key+":token")))))
	defer tokens2.Close()
	if _, err := get.Call(ctx, tokens2, kit.NoParams{}); err == nil || !strings.Contains(err.Error(), "kitredis: token store") {
		t.Errorf("token client without Redis: %v", err)
	}
	if ctx.Err() != nil {
		t.Error("a call ran past its context's deadline")
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := (&net.ListenConfig{}).Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
