package main

import (
	"context"
	"sync"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// parallelTour fans calls out over 64 goroutines, in bursts, through a
// client made with kit.NewClient's default engine, retries and a rate
// limit, against a server that counts the connections it accepts: the
// default engine keeps as many idle connections as it opens, so the later
// bursts reuse the first one's connections instead of dialling again.
func parallelTour(ctx context.Context, t *tour) error {
	t.section("Parallel calls: one client, 64 goroutines")
	srv, conns := kittest.NewCountingServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithRetry(kit.RetryPolicy{}), kit.WithLimits(kit.Limits{Rate: 100_000, Burst: 64}))
	if err != nil {
		return err
	}
	defer c.Close()
	const goroutines, bursts = 64, 4
	var (
		mu       sync.Mutex
		firstErr error
	)
	for range bursts {
		var wg sync.WaitGroup
		for i := range goroutines {
			wg.Go(func() {
				_, err := getUser.Call(ctx, c, struct{ ID int }{i%50 + 1})
				mu.Lock()
				defer mu.Unlock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
			})
		}
		wg.Wait()
	}
	if firstErr != nil {
		return firstErr
	}
	n := conns.Count()
	t.say("%d calls in %d bursts of %d goroutines through a default kit.NewClient: %d connections opened", goroutines*bursts, bursts, goroutines, n)
	t.say("later bursts reused the first one's connections: %v (the default engine keeps as many idle connections per host as it opens, up to 1,024)", n <= goroutines+2*bursts)
	return nil
}
