package kitredis_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitredis"
	"github.com/redis/go-redis/v9"
)

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
