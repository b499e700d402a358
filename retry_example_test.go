package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/kithttp/kit"
)

type exampleStatus struct {
	State string `json:"state"`
}

var getStatus = kit.Get[kit.NoParams, exampleStatus]("/status")

// Retrying is off by default; WithRetry turns it on for every idempotent
// request of the client. Here the server fails twice with 503 before
// answering, and then always fails: the first call succeeds on its third
// attempt, the second gives up after MaxAttempts and its error still
// unwraps to the last *kit.HTTPError.
func ExampleWithRetry() {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := n.Add(1); k <= 2 || k > 3 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":"busy"}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"state":"ok"}`)
	}))
	defer srv.Close()

	c, err := kit.NewClient(srv.URL, kit.WithRetry(kit.RetryPolicy{
		MaxAttempts: 3,
		BaseDelay:   10 * time.Millisecond, // waits are jittered in [0, BaseDelay*2^n]
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	st, err := getStatus.Call(context.Background(), c, kit.NoParams{})
	fmt.Println(st.State, err, "after", n.Load(), "requests")

	_, err = getStatus.Call(context.Background(), c, kit.NoParams{})
	var he *kit.HTTPError
	fmt.Println(errors.As(err, &he), he.StatusCode, "after", n.Load(), "requests")
	// Output:
	// ok <nil> after 3 requests
	// true 503 after 6 requests
}
