package kit_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
)

func TestFutureAwaitOutlivedByWork(t *testing.T) {
	leakcheck.Check(t)
	release := make(chan struct{})
	f := kit.NewFuture(func() (string, error) {
		<-release
		return "result", nil
	})
	select {
	case <-f.Done():
		t.Fatal("Done closed before the work finished")
	default:
	}

	// Await with a context that ends first: ctx.Err(), zero value, and
	// the work goes on.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	v, err := f.Await(ctx)
	if !errors.Is(err, context.Canceled) || v != "" {
		t.Fatalf("Await with an ended context: %q, %v", v, err)
	}

	close(release)
	<-f.Done()
	// A later Await gets the result, even with an ended context: a ready
	// result wins.
	for _, c := range []context.Context{t.Context(), ctx} {
		v, err := f.Await(c)
		if v != "result" || err != nil {
			t.Fatalf("Await after completion: %q, %v", v, err)
		}
	}
}

func TestFutureManyAwaiters(t *testing.T) {
	leakcheck.Check(t)
	release := make(chan struct{})
	boom := errors.New("boom")
	f := kit.NewFuture(func() (int, error) {
		<-release
		return 42, boom
	})
	const n = 50
	var wg sync.WaitGroup
	type res struct {
		v   int
		err error
	}
	got := make(chan res, 2*n)
	for range n {
		wg.Go(func() {
			v, err := f.Await(t.Context())
			got <- res{v, err}
		})
		wg.Go(func() {
			<-f.Done()
			v, err := f.Await(t.Context())
			got <- res{v, err}
		})
	}
	close(release)
	wg.Wait()
	close(got)
	count := 0
	for r := range got {
		count++
		if r.v != 42 || r.err != boom {
			t.Errorf("awaiter got %d, %v", r.v, r.err)
		}
	}
	if count != 2*n {
		t.Errorf("%d awaiters returned, want %d", count, 2*n)
	}
}

func TestFutureOfGoIsDoneAfterAwait(t *testing.T) {
	leakcheck.Check(t)
	api := &userAPI{}
	_, ac := setupAsync(t, api)
	ctx := t.Context()
	f := asyncGetUser.Go(ctx, ac, userID{"11"})
	<-f.Done()
	u1, err1 := f.Await(ctx)
	u2, err2 := f.Await(ctx)
	if err1 != nil || err2 != nil || u1 != u2 || u1.ID != 11 {
		t.Fatalf("%+v %v / %+v %v", u1, err1, u2, err2)
	}
	if api.hits.Load() != 1 {
		t.Errorf("awaiting twice sent %d requests, want 1", api.hits.Load())
	}
}
