package kit

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/kithttp/kit/internal/cacheentry"
)

// DefaultMemoryCacheBytes is the size of a NewMemoryCache given a maxBytes
// that is not positive: 32 MiB.
const DefaultMemoryCacheBytes = 32 << 20

// NewMemoryCache returns a CacheStore that keeps entries in this process's
// memory, at most maxBytes of them (keys and entries counted), dropping
// the least recently used first. An entry larger than maxBytes is not
// kept. A maxBytes that is not positive means DefaultMemoryCacheBytes.
//
// It is safe for concurrent use; several clients may share one (clients
// with the same credentials then share entries; see WithCache for what the
// credentials are). Get returns the stored
// bytes themselves, without a copy: they must not be modified. Set keeps a
// copy of what it is given.
func NewMemoryCache(maxBytes int64) CacheStore {
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryCacheBytes
	}
	return &memoryCache{max: maxBytes, items: make(map[string]*list.Element), lru: list.New(), now: time.Now}
}

// Private implementation past this point.

type memoryCache struct {
	max int64
	now func() time.Time

	mu    sync.Mutex
	size  int64
	items map[string]*list.Element // of *memoryItem
	lru   *list.List               // most recently used first
}

type memoryItem struct {
	key     string
	entry   []byte
	expires time.Time         // zero: never
	decoded *cacheentry.Entry // entry decoded, once; shared, never modified
}

func (m *memoryCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[key]
	if !ok {
		return nil, false, nil
	}
	it := el.Value.(*memoryItem)
	if !it.expires.IsZero() && !m.now().Before(it.expires) {
		m.removeLocked(el)
		return nil, false, nil
	}
	m.lru.MoveToFront(el)
	return it.entry, true, nil
}

// decodedEntry is Get for kit's own cache layer: the entry decoded, once
// per stored entry, shared by every hit (which must copy what it changes).
// An entry that does not decode is removed and reported as cacheentry.ErrBad.
// The key is bytes, looked up without a copy; now is the caller's reading
// of the clock.
func (m *memoryCache) decodedEntry(key []byte, now time.Time) (*cacheentry.Entry, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.items[string(key)]
	if !ok {
		return nil, false, nil
	}
	it := el.Value.(*memoryItem)
	if !it.expires.IsZero() && !now.Before(it.expires) {
		m.removeLocked(el)
		return nil, false, nil
	}
	if it.decoded == nil {
		e, err := cacheentry.Decode(it.entry)
		if err != nil {
			m.removeLocked(el)
			return nil, false, err
		}
		it.decoded = e
	}
	m.lru.MoveToFront(el)
	return it.decoded, true, nil
}

func (m *memoryCache) Set(ctx context.Context, key string, entry []byte, ttl time.Duration) error {
	size := int64(len(key) + len(entry))
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok {
		m.removeLocked(el)
	}
	if size > m.max {
		return nil
	}
	it := &memoryItem{key: key, entry: append([]byte(nil), entry...)}
	if ttl > 0 {
		it.expires = m.now().Add(ttl)
	}
	m.items[key] = m.lru.PushFront(it)
	m.size += size
	for m.size > m.max {
		m.removeLocked(m.lru.Back())
	}
	return nil
}

func (m *memoryCache) Delete(ctx context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.items[key]; ok {
		m.removeLocked(el)
	}
	return nil
}

func (m *memoryCache) removeLocked(el *list.Element) {
	it := m.lru.Remove(el).(*memoryItem)
	delete(m.items, it.key)
	m.size -= int64(len(it.key) + len(it.entry))
}

func (m *memoryCache) String() string { return "kit.NewMemoryCache(...)" }
