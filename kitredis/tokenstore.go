package kitredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kithttp/kit"
	"github.com/redis/go-redis/v9"
)

// DefaultLockExpiry is how long the lock of a token store made without
// WithLockExpiry lasts at most: a holder that crashes delays the others by
// at most this long.
const DefaultLockExpiry = 10 * time.Second

// TokenStoreOption configures NewTokenStore.
type TokenStoreOption interface{ applyStore(*tokenStore) }

// WithLockExpiry sets how long the renewal lock lasts at most (default
// DefaultLockExpiry); a duration under a millisecond means the default.
func WithLockExpiry(d time.Duration) TokenStoreOption { return lockExpiryOption{d} }

// WithLockPoll sets how often a caller waiting for the renewal lock checks
// it again (default 20 ms).
func WithLockPoll(d time.Duration) TokenStoreOption { return lockPollOption{d} }

// NewTokenStore returns a kit.TokenStore (see kit.WithTokenStore) that keeps
// one token under key on rdb for every process using it.
//
// The token is a hash at "{key}:token" with its fence; the renewal lock is
// "{key}:lock" (the braces keep the keys on one Redis Cluster slot). A
// caller that needs a renewal takes the lock (SET NX with an expiry) and a
// fence, a number one larger than any before it; it reads the token again
// (another may just have renewed it), calls renew with a context that ends
// when the lock expires (or earlier, with the caller's), and stores the
// result only if no later fence has stored one (a Lua script): a holder that
// wakes after its lock expired cannot overwrite a newer token. The lock is
// released however renew ends.
//
// The lock lasts the lock expiry (DefaultLockExpiry; see WithLockExpiry)
// and never past the caller's deadline, so a holder that dies delays the
// others by at most that long. Callers waiting for the lock poll it (every
// 20 ms; see WithLockPoll) until their context ends. A stored value that
// does not decode is treated as no token (the next renewal replaces it);
// Redis errors and replies of the wrong type are returned as errors.
func NewTokenStore(rdb redis.UniversalClient, key string, opts ...TokenStoreOption) kit.TokenStore {
	s := &tokenStore{
		rdb:      rdb,
		key:      key,
		tokenKey: "{" + key + "}:token",
		lockKey:  "{" + key + "}:lock",
		fenceKey: "{" + key + "}:fence",
		expiry:   DefaultLockExpiry,
		poll:     20 * time.Millisecond,
	}
	for _, o := range opts {
		if o != nil {
			o.applyStore(s)
		}
	}
	return s
}

type tokenStore struct {
	rdb                         redis.UniversalClient
	key                         string
	tokenKey, lockKey, fenceKey string
	expiry, poll                time.Duration
}

type lockExpiryOption struct{ d time.Duration }

func (o lockExpiryOption) applyStore(s *tokenStore) {
	if o.d >= time.Millisecond {
		s.expiry = o.d
	}
}

type lockPollOption struct{ d time.Duration }

func (o lockPollOption) applyStore(s *tokenStore) {
	if o.d > 0 {
		s.poll = o.d
	}
}

// storedToken is the JSON of the token in the hash.
type storedToken struct {
	Value   string    `json:"value"`
	Type    string    `json:"type,omitempty"`
	Expiry  time.Time `json:"expiry,omitzero"`
	Refresh string    `json:"refresh,omitempty"`
}

// lock takes the lock for owner when it is free, for ARGV[2] ms, and
// returns a new fence; 0 when another holds it.
var lockScript = redis.NewScript(`
if redis.call("SET", KEYS[1], ARGV[1], "NX", "PX", ARGV[2]) then
  return redis.call("INCR", KEYS[2])
end
return 0
`)

// store writes the token when ARGV[1], the writer's fence, is above the
// stored one, and releases the lock when ARGV[3] still holds it. Returns 1
// when stored, 0 when a later fence had stored one.
var storeScript = redis.NewScript(`
local cur = tonumber(redis.call("HGET", KEYS[1], "fence") or "0") or 0
local stored = 0
if tonumber(ARGV[1]) > cur then
  redis.call("HSET", KEYS[1], "fence", ARGV[1], "token", ARGV[2])
  stored = 1
end
if redis.call("GET", KEYS[2]) == ARGV[3] then
  redis.call("DEL", KEYS[2])
end
return stored
`)

// release deletes the lock when ARGV[1] still holds it.
var releaseScript = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("DEL", KEYS[1])
end
return 0
`)

func (s *tokenStore) Token(ctx context.Context, stale kit.Token, renew func(ctx context.Context, current kit.Token) (kit.Token, error)) (kit.Token, error) {
	cur, err := s.load(ctx)
	if err != nil {
		return kit.Token{}, err
	}
	if usable(cur, stale) {
		return cur, nil
	}
	owner, fence, lockEnd, err := s.lock(ctx)
	if err != nil {
		return kit.Token{}, err
	}
	released := false
	defer func() {
		if !released {
			// With a context of its own: the caller's may have ended.
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
			defer cancel()
			releaseScript.Run(rctx, s.rdb, []string{s.lockKey}, owner)
		}
	}()
	if cur, err = s.load(ctx); err != nil {
		return kit.Token{}, err
	}
	if usable(cur, stale) {
		return cur, nil // renewed while this caller waited for the lock
	}
	rctx, cancel := context.WithDeadline(ctx, lockEnd)
	defer cancel()
	tok, err := renew(rctx, cur)
	if err != nil {
		return kit.Token{}, err
	}
	// The lock may be another's by now, if renew outlived it: the fence
	// decides whether this token is stored.
	data, err := json.Marshal(storedToken(tok))
	if err != nil {
		return kit.Token{}, fmt.Errorf("kitredis: token store %q: encoding the token: %w", s.key, err)
	}
	reply, err := storeScript.Run(ctx, s.rdb, []string{s.tokenKey, s.lockKey}, fence, data, owner).Result()
	if err != nil {
		return kit.Token{}, fmt.Errorf("kitredis: token store %q: storing the token: %w", s.key, err)
	}
	released = true
	n, ok := reply.(int64)
	if !ok {
		return kit.Token{}, fmt.Errorf("kitredis: token store %q: storing the token: %w: %T", s.key, errReply, reply)
	}
	if n == 0 {
		// A later holder stored a newer token while this renewal ran late.
		if cur, err := s.load(ctx); err == nil && usable(cur, stale) {
			return cur, nil
		}
		return kit.Token{}, fmt.Errorf("kitredis: token store %q: %w", s.key, ErrFenced)
	}
	return tok, nil
}

// ErrFenced is returned, wrapped, by a token store's Token when its renewal
// finished after its lock had expired and a later holder had already stored
// a token that is not usable either: the renewed token was not stored.
var ErrFenced = errors.New("a later renewal stored its token first")

// lock waits for the renewal lock and returns its owner id, fence and end.
func (s *tokenStore) lock(ctx context.Context) (string, int64, time.Time, error) {
	var id [16]byte
	rand.Read(id[:])
	owner := hex.EncodeToString(id[:])
	for {
		ttl := s.expiry
		if dl, ok := ctx.Deadline(); ok {
			ttl = min(ttl, time.Until(dl))
		}
		if ttl < time.Millisecond {
			return "", 0, time.Time{}, fmt.Errorf("kitredis: token store %q: waiting for the renewal lock: %w", s.key, context.DeadlineExceeded)
		}
		start := time.Now()
		reply, err := lockScript.Run(ctx, s.rdb, []string{s.lockKey, s.fenceKey}, owner, ttl.Milliseconds()).Result()
		if err != nil {
			return "", 0, time.Time{}, fmt.Errorf("kitredis: token store %q: taking the renewal lock: %w", s.key, err)
		}
		fence, ok := reply.(int64)
		if !ok {
			return "", 0, time.Time{}, fmt.Errorf("kitredis: token store %q: taking the renewal lock: %w: %T", s.key, errReply, reply)
		}
		if fence > 0 {
			return owner, fence, start.Add(ttl), nil
		}
		t := time.NewTimer(s.poll)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return "", 0, time.Time{}, fmt.Errorf("kitredis: token store %q: waiting for the renewal lock: %w", s.key, ctx.Err())
		}
	}
}

// load reads the stored token; zero when there is none or it does not
// decode.
func (s *tokenStore) load(ctx context.Context) (kit.Token, error) {
	data, err := s.rdb.HGet(ctx, s.tokenKey, "token").Result()
	if errors.Is(err, redis.Nil) {
		return kit.Token{}, nil
	}
	if err != nil {
		return kit.Token{}, fmt.Errorf("kitredis: token store %q: reading the token: %w", s.key, err)
	}
	var st storedToken
	if json.Unmarshal([]byte(data), &st) != nil {
		return kit.Token{}, nil
	}
	return kit.Token(st), nil
}

func usable(stored, stale kit.Token) bool {
	return stored.Value != "" && stored.Value != stale.Value && (stored.Expiry.IsZero() || time.Now().Before(stored.Expiry))
}

func (s *tokenStore) String() string { return fmt.Sprintf("kitredis.NewTokenStore(%q)", s.key) }
