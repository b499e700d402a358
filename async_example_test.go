package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/kithttp/kit"
)

type exampleRepo struct {
	Name  string `json:"name"`
	Stars int    `json:"stars"`
}

var getRepo = kit.Get[struct{ Name string }, exampleRepo]("/repos/{name}")

// A fan-out: start every call with Go, then collect the results with Await.
// The requests run concurrently (at most Limits.MaxInFlight at once); the
// results come back in the order the futures are awaited.
func ExampleEndpoint_Go() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/repos/")
		if name == "gone" {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":%q,"stars":%d}`, name, 10*len(name))
	}))
	defer srv.Close()

	ac, err := kit.NewAsyncClient(srv.URL, kit.WithLimits(kit.Limits{MaxInFlight: 8}))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	names := []string{"kit", "httptest", "gone", "errgroup"}
	futures := make([]*kit.Future[exampleRepo], len(names))
	for i, name := range names {
		futures[i] = getRepo.Go(ctx, ac, struct{ Name string }{name}) // returns at once
	}
	for i, f := range futures {
		repo, err := f.Await(ctx)
		var he *kit.HTTPError
		switch {
		case errors.As(err, &he):
			fmt.Printf("%s: HTTP %d\n", names[i], he.StatusCode)
		case err != nil:
			fmt.Printf("%s: %v\n", names[i], err)
		default:
			fmt.Printf("%s: %d stars\n", repo.Name, repo.Stars)
		}
	}

	// Close waits for calls in flight; later calls fail with ErrClosed.
	if err := ac.Close(ctx); err != nil {
		fmt.Println(err)
	}
	_, err = getRepo.Go(ctx, ac, struct{ Name string }{"kit"}).Await(ctx)
	fmt.Println("after Close:", errors.Is(err, kit.ErrClosed))

	// Output:
	// kit: 30 stars
	// httptest: 80 stars
	// gone: HTTP 404
	// errgroup: 80 stars
	// after Close: true
}
