package kitwebhook

import (
	"context"
	"sync"
	"time"
)

// SeenStore remembers the deliveries a receiver has taken, so that one
// delivered twice (a sender's retry, a replay) is handled once. A fleet of
// receivers shares one (kitredis.NewSeenStore); the default, NewMemorySeenStore,
// serves one process.
//
// Implementations must be safe for concurrent use.
type SeenStore interface {
	// Claim records id as taken for ttl and reports true, or reports false
	// when id is already taken. It must be atomic: of two concurrent
	// claims of one id, one wins.
	Claim(ctx context.Context, id string, ttl time.Duration) (bool, error)
	// Release forgets id, so that a redelivery is handled again: the
	// handler calls it when handling failed.
	Release(ctx context.Context, id string) error
}

// DefaultSeenTTL is how long a delivery id is remembered unless
// WithSeenStore says otherwise: three days, longer than the retry schedules
// of Standard Webhooks senders, Stripe and GitHub.
const DefaultSeenTTL = 72 * time.Hour

// DefaultMaxSeen is how many ids a NewMemorySeenStore keeps at most.
const DefaultMaxSeen = 1 << 20

// NewMemorySeenStore returns a SeenStore in this process's memory. It keeps
// at most max ids (DefaultMaxSeen when max <= 0): past that, expired ids are
// dropped first, then the oldest, so that a flood of distinct forged ids
// (which fail verification before they reach the store anyway) cannot grow
// it without bound.
func NewMemorySeenStore(max int) SeenStore {
	if max <= 0 {
		max = DefaultMaxSeen
	}
	return &memorySeen{max: max, ids: make(map[string]seenEntry), now: time.Now}
}

type memorySeen struct {
	mu    sync.Mutex
	max   int
	seq   uint64
	ids   map[string]seenEntry
	order []seenRef // claims in order, for eviction; stale ones are skipped
	now   func() time.Time
}

type seenEntry struct {
	expiry time.Time
	seq    uint64
}

type seenRef struct {
	id  string
	seq uint64
}

func (s *memorySeen) Claim(_ context.Context, id string, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if e, ok := s.ids[id]; ok && now.Before(e.expiry) {
		return false, nil
	}
	if len(s.ids) >= s.max || len(s.order) >= 2*len(s.ids)+1024 {
		s.evict(now)
	}
	s.seq++
	s.ids[id] = seenEntry{expiry: now.Add(ttl), seq: s.seq}
	s.order = append(s.order, seenRef{id, s.seq})
	return true, nil
}

// evict drops stale references and expired ids, then the oldest ids until
// there is room for one more.
func (s *memorySeen) evict(now time.Time) {
	keep := make([]seenRef, 0, len(s.ids))
	for _, r := range s.order {
		e, ok := s.ids[r.id]
		switch {
		case !ok || e.seq != r.seq:
			// released or claimed again later: stale
		case !now.Before(e.expiry):
			delete(s.ids, r.id)
		default:
			keep = append(keep, r)
		}
	}
	for len(s.ids) >= s.max && len(keep) > 0 {
		delete(s.ids, keep[0].id)
		keep = keep[1:]
	}
	s.order = keep
}

func (s *memorySeen) Release(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ids, id)
	return nil
}
