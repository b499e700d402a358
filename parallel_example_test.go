package kit_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// One client shared by a fan-out: three bursts of 64 concurrent calls.
// The default engine keeps the connections the first burst opened, and the
// later bursts reuse them.
func Example_parallelCalls() {
	srv, conns := kittest.NewCountingServer(nil)
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithRetry(kit.RetryPolicy{}), kit.WithLimits(kit.Limits{Rate: 100_000, Burst: 64}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	health := kit.Get[kit.NoParams, map[string]string]("/health", kit.NoAuth())

	const goroutines, bursts = 64, 3
	var failed sync.Map
	for range bursts {
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				if _, err := health.Call(context.Background(), c, kit.NoParams{}); err != nil {
					failed.Store(err.Error(), true)
				}
			})
		}
		wg.Wait()
	}
	failed.Range(func(k, _ any) bool { fmt.Println(k); return true })
	fmt.Println("calls:", goroutines*bursts)
	// About one connection per goroutine, for all the bursts: net/http may
	// dial a spare when a connection frees up just as a call starts, and a
	// pool smaller than a burst would redial about 30 in each.
	fmt.Println("connections reused across bursts:", conns.Count() <= goroutines+2*bursts)
	// Output:
	// calls: 192
	// connections reused across bursts: true
}
