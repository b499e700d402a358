package kitredis

import (
	"context"
	"fmt"
	"time"

	"github.com/kithttp/kit/kitwebhook"
	"github.com/redis/go-redis/v9"
)

// NewSeenStore returns a kitwebhook.SeenStore (see kitwebhook.WithSeenStore)
// that keeps delivery ids on rdb under prefix: every receiver of a fleet
// using the same prefix handles a delivery once, whichever receives it.
// Claim is one SET with NX and PX (atomic: of two receivers claiming one
// id, one wins), Release one DEL. A Redis error is returned as it is; the
// Handler answers 503 and the sender retries.
func NewSeenStore(rdb redis.UniversalClient, prefix string) kitwebhook.SeenStore {
	return &seenStore{rdb: rdb, prefix: prefix}
}

type seenStore struct {
	rdb    redis.UniversalClient
	prefix string
}

func (s *seenStore) Claim(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	if ttl < time.Millisecond {
		ttl = time.Millisecond
	}
	ok, err := s.rdb.SetNX(ctx, s.prefix+id, 1, ttl).Result()
	if err != nil {
		return false, fmt.Errorf("kitredis: seen store: %w", err)
	}
	return ok, nil
}

func (s *seenStore) Release(ctx context.Context, id string) error {
	if err := s.rdb.Del(ctx, s.prefix+id).Err(); err != nil {
		return fmt.Errorf("kitredis: seen store: %w", err)
	}
	return nil
}

func (s *seenStore) String() string { return fmt.Sprintf("kitredis.NewSeenStore(%q)", s.prefix) }
