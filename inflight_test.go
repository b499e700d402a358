package kit

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit/internal/leakcheck"
)

func TestSemaphoreOrderAndRelease(t *testing.T) {
	leakcheck.Check(t)
	s := newSemaphore(2)
	ctx := t.Context()
	for range 2 {
		if err := s.acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Three waiters, queued in order; each release serves the first.
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.acquire(ctx); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
		}()
		waitFor(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.waiters.Len() == i+1 })
	}
	for k := range 3 {
		s.release()
		waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == k+1 })
	}
	wg.Wait()
	if len(order) != 3 || order[0] != 0 || order[1] != 1 || order[2] != 2 {
		t.Errorf("served in order %v, want [0 1 2]", order)
	}
	for range 2 {
		s.release()
	}
	if s.held != 0 || s.waiters.Len() != 0 {
		t.Errorf("held %d, waiters %d after every release", s.held, s.waiters.Len())
	}
}

func TestSemaphoreCancel(t *testing.T) {
	leakcheck.Check(t)
	s := newSemaphore(1)
	if err := s.acquire(t.Context()); err != nil {
		t.Fatal(err)
	}
	// An ended context never takes a slot, free or not.
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.acquire(ended); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire with an ended context: %v", err)
	}
	// A waiter whose context ends leaves the queue.
	short, cancel2 := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel2()
	if err := s.acquire(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire past the deadline: %v", err)
	}
	if s.waiters.Len() != 0 {
		t.Fatalf("%d waiters left after a cancelled wait", s.waiters.Len())
	}
	s.release()
	if s.held != 0 {
		t.Fatalf("held %d", s.held)
	}
	free := newSemaphore(1)
	if err := free.acquire(ended); err == nil {
		t.Fatal("an ended context took a free slot")
	}
}

func TestSemaphoreHugeMax(t *testing.T) {
	s := newSemaphore(math.MaxInt)
	for range 1000 {
		if err := s.acquire(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if s.held != 1000 {
		t.Fatalf("held %d", s.held)
	}
}

// waitFor polls cond until it holds, for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 5 s")
}
