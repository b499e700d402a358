package kit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// TokenStore keeps one token for every client that uses it, in this
// process (NewMemoryTokenStore) or in a fleet of them (kitredis's
// NewTokenStore), so that they renew it once between them.
//
// Token returns the stored token when it is usable (not empty, not past its
// Expiry) and differs from stale (a token a server just rejected, or one
// about to expire; zero when none). Otherwise it calls renew with the
// stored token (zero when none), holding a lock that every user of the
// store shares, in this process or in others; stores what renew returns,
// and returns it. While the lock is held by another, Token waits, until
// ctx ends; after the wait it checks the stored token again, so that the
// callers that waited take the token the holder stored instead of renewing
// again. When renew fails, nothing is stored and its error is returned. An
// implementation must release its lock however renew ends; kit hands it a
// renew function that never panics (a panic is returned as an error
// matching *PanicError).
type TokenStore interface {
	Token(ctx context.Context, stale Token, renew func(ctx context.Context, current Token) (Token, error)) (Token, error)
}

// WithTokenStore makes a TokenAuth or RenewingTokenAuth share its token
// through s: every auth made with the same store, in any client (and, with
// a store shared between processes, in any process), uses one token and
// renews it once when it expires or a server rejects it. The renewal runs
// under the store's lock with the auth's fetch timeout
// (WithTokenFetchTimeout) as its context's deadline. A nil s is ignored.
func WithTokenStore(s TokenStore) TokenOption { return tokenStoreOption{s} }

// NewMemoryTokenStore returns a TokenStore for the clients of one process:
// several clients of one API (with their own options) that must share a
// token with a rotating refresh token. Its lock is a mutex that waits with
// the caller's context.
func NewMemoryTokenStore() TokenStore {
	return &memoryTokenStore{lock: make(chan struct{}, 1), now: time.Now}
}

// Private implementation past this point.

type tokenStoreOption struct{ s TokenStore }

func (o tokenStoreOption) applyToken(c *tokenConfig) {
	if o.s != nil {
		c.store = o.s
	}
}

func (o tokenStoreOption) String() string { return fmt.Sprintf("kit.WithTokenStore(%T)", o.s) }

type memoryTokenStore struct {
	lock chan struct{} // a mutex that a context can give up on
	now  func() time.Time

	mu  sync.Mutex
	tok Token
}

func (s *memoryTokenStore) Token(ctx context.Context, stale Token, renew func(ctx context.Context, current Token) (Token, error)) (Token, error) {
	if t, ok := s.usable(stale); ok {
		return t, nil
	}
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return Token{}, fmt.Errorf("kit: token store: waiting for the lock: %w", ctx.Err())
	}
	defer func() { <-s.lock }()
	if t, ok := s.usable(stale); ok {
		return t, nil // renewed while this call waited
	}
	s.mu.Lock()
	current := s.tok
	s.mu.Unlock()
	t, err := renew(ctx, current)
	if err != nil {
		return Token{}, err
	}
	s.mu.Lock()
	s.tok = t
	s.mu.Unlock()
	return t, nil
}

// usable returns the stored token when it may be used instead of stale.
func (s *memoryTokenStore) usable(stale Token) (Token, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tok, tokenUsable(s.tok, stale, s.now())
}

// tokenUsable reports whether stored may be handed out in place of stale at
// now.
func tokenUsable(stored, stale Token, now time.Time) bool {
	return stored.Value != "" && stored.Value != stale.Value && (stored.Expiry.IsZero() || now.Before(stored.Expiry))
}

func (s *memoryTokenStore) String() string { return "kit.NewMemoryTokenStore()" }
