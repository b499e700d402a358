package kitredis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kithttp/kit"
	"github.com/redis/go-redis/v9"
)

// NewCache returns a kit.CacheStore (see kit.WithCache) that keeps entries
// on rdb under prefix followed by kit's key, with kit's ttl as their
// expiry: every process using the same prefix shares them. Each operation
// is one round trip (GET, SET with PX, DEL). Redis's own eviction policy
// (maxmemory-policy) bounds its size; an evicted entry is a miss. A Redis
// error, or a value of another type under a key, is returned as an error,
// which kit logs before going to the network.
func NewCache(rdb redis.UniversalClient, prefix string) kit.CacheStore {
	return &cache{rdb: rdb, prefix: prefix}
}

type cache struct {
	rdb    redis.UniversalClient
	prefix string
}

func (c *cache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := c.rdb.Get(ctx, c.prefix+key).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("kitredis: cache: %w", err)
	}
	return b, true, nil
}

func (c *cache) Set(ctx context.Context, key string, entry []byte, ttl time.Duration) error {
	if ttl > 0 && ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	if err := c.rdb.Set(ctx, c.prefix+key, entry, ttl).Err(); err != nil {
		return fmt.Errorf("kitredis: cache: %w", err)
	}
	return nil
}

func (c *cache) Delete(ctx context.Context, key string) error {
	if err := c.rdb.Del(ctx, c.prefix+key).Err(); err != nil {
		return fmt.Errorf("kitredis: cache: %w", err)
	}
	return nil
}

func (c *cache) String() string { return fmt.Sprintf("kitredis.NewCache(%q)", c.prefix) }
