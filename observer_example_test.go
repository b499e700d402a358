package kit_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// callCounter counts calls, retries and pages by declaration: metrics
// without any metrics library, whose series stay few however many ids
// the calls carry.
type callCounter struct {
	mu     sync.Mutex
	counts map[string]*atomic.Int64
}

func (c *callCounter) add(name string) {
	c.mu.Lock()
	n, ok := c.counts[name]
	if !ok {
		n = new(atomic.Int64)
		c.counts[name] = n
	}
	c.mu.Unlock()
	n.Add(1)
}

// observer reports into c.
func (c *callCounter) observer() kit.Observer {
	return kit.Observer{
		CallEnd: func(ctx context.Context, r kit.CallResult) {
			c.add(fmt.Sprintf("calls{%s, %d}", r.Endpoint, r.StatusCode))
		},
		Retry: func(ctx context.Context, r kit.RetryInfo) {
			c.add(fmt.Sprintf("retries{%s}", r.Request.Endpoint))
		},
		Page: func(ctx context.Context, p kit.PageInfo) {
			c.add(fmt.Sprintf("pages{%s}", p.Endpoint))
		},
	}
}

// An observer sees what interceptors cannot: each call by its declaration,
// each retry, each page of a walk. Here it feeds plain counters; the same
// hooks feed Prometheus, expvar or OpenTelemetry (see kitotel).
func ExampleWithObserver() {
	var failed atomic.Bool
	api := kittest.NewAPI(kittest.WithUsers(5))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/users/2" && failed.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, "busy", http.StatusServiceUnavailable) // once
			return
		}
		api.ServeHTTP(w, r)
	}))
	defer srv.Close()

	counter := &callCounter{counts: map[string]*atomic.Int64{}}
	c, err := kit.NewClient(srv.URL,
		kit.WithObserver(counter.observer()),
		kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	ctx := context.Background()
	for _, id := range []int{1, 2, 3, 99} {
		getUser.Call(ctx, c, struct{ ID int }{id}) // 99 is a 404
	}
	users := kit.NewResource[User](c, "/users", kit.PagedBy(kit.PageNumber{PageSize: 2}))
	for _, err := range users.All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
	}

	names := make([]string, 0, len(counter.counts))
	for name := range counter.counts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Println(name, counter.counts[name].Load())
	}
	// Output:
	// calls{GET /users, 200} 3
	// calls{GET /users/{id}, 200} 3
	// calls{GET /users/{id}, 404} 1
	// pages{GET /users} 3
	// retries{GET /users/{id}} 1
}
