package kitredis_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

// The tests and examples need a Redis: the one at KITREDIS_ADDR (CI's
// .ci/redis starts one on loopback and sets it). Without it, the tests skip
// with a message saying so, and the examples (whose output needs Redis)
// are left out of the run.
const addrEnv = "KITREDIS_ADDR"

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(addrEnv) == "" && os.Getenv(workerEnv) == "" {
		if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
			flag.Set("test.run", "^(Test|Fuzz)")
			fmt.Fprintf(os.Stderr, "kitredis: %s is not set: tests that need Redis skip, examples are not run\n", addrEnv)
		}
	}
	if os.Getenv(workerEnv) != "" {
		os.Exit(runWorker())
	}
	os.Exit(m.Run())
}

// redisAddr returns the address of the test Redis, or skips the test.
func redisAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv(addrEnv)
	if addr == "" {
		t.Skipf("kitredis: no Redis: set %s=127.0.0.1:<port> to a redis-server (CI's .ci/redis starts one)", addrEnv)
	}
	return addr
}

// newRedis returns a client of the test Redis, closed when the test ends.
func newRedis(t testing.TB) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr(t), ContextTimeoutEnabled: true})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s: %v", redisAddr(t), err)
	}
	return rdb
}

// uniqueKey is a key no other test (or earlier run) uses.
func uniqueKey(t testing.TB) string {
	var b [6]byte
	rand.Read(b[:])
	return "kitredis-test:" + t.Name() + ":" + hex.EncodeToString(b[:])
}
