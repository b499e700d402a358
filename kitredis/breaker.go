package kitredis

import (
	"context"
	"fmt"
	"time"

	"github.com/kithttp/kit"
	"github.com/redis/go-redis/v9"
)

// NewBreakerStore returns a kit.BreakerStore (see kit.CircuitBreaker) that
// every process using prefix on rdb shares: a circuit one process's
// breaker opens is open for all of them until its cool-down ends. Each
// open circuit is one key, prefix + the origin, that expires when the
// circuit turns half-open: Redis keeps the time, as a TTL, so that the
// processes' clocks need not agree on it, and nothing is left behind.
// Trip never shortens an open circuit. One round trip each for Trip and
// OpenUntil. A Redis error is returned wrapped; kit then decides by the
// process's own circuit.
func NewBreakerStore(rdb redis.UniversalClient, prefix string) kit.BreakerStore {
	return &breakerStore{rdb: rdb, prefix: prefix}
}

type breakerStore struct {
	rdb    redis.UniversalClient
	prefix string
}

// tripScript sets KEYS[1] to expire in ARGV[1] milliseconds unless it
// already lives longer.
var tripScript = redis.NewScript(`
local ttl = tonumber(ARGV[1])
if redis.call("PTTL", KEYS[1]) < ttl then
  redis.call("SET", KEYS[1], "open", "PX", ttl)
end
return 1
`)

func (s *breakerStore) Trip(ctx context.Context, origin string, until time.Time) error {
	ttl := time.Until(until).Milliseconds()
	if ttl <= 0 {
		return nil
	}
	if err := tripScript.Run(ctx, s.rdb, []string{s.prefix + origin}, ttl).Err(); err != nil {
		return fmt.Errorf("kitredis: opening the circuit of %s in %q: %w", origin, s.prefix+origin, err)
	}
	return nil
}

func (s *breakerStore) OpenUntil(ctx context.Context, origin string) (time.Time, error) {
	ttl, err := s.rdb.PTTL(ctx, s.prefix+origin).Result()
	if err != nil {
		return time.Time{}, fmt.Errorf("kitredis: reading the circuit of %s in %q: %w", origin, s.prefix+origin, err)
	}
	if ttl <= 0 { // -2: no key (closed); -1: no expiry (not ours)
		return time.Time{}, nil
	}
	return time.Now().Add(ttl), nil
}
