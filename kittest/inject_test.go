package kittest_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

type injectUser struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

var injectGetUser = kit.Get[struct{ ID int }, injectUser]("/users/{id}")

// TestInjectStatusesRetried checks that injected statuses reach the retry
// layer as *HTTPError: two 503s and a 502 are retried, and the API sees
// only the attempt that got through.
func TestInjectStatusesRetried(t *testing.T) {
	t.Parallel()
	api := kittest.NewAPI()
	_, c := kittest.NewServer(t, api,
		kit.WithRetry(kit.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Nanosecond, MaxDelay: time.Nanosecond}),
		kit.WithAttemptInterceptors(kittest.InjectStatuses(503, 0, 502)))
	// The first call: 503 injected, then passed on.
	u, err := injectGetUser.Call(t.Context(), c, struct{ ID int }{1})
	if err != nil || u.ID != 1 {
		t.Fatalf("first call: %+v, %v; want user 1 after one retry", u, err)
	}
	// The second: 502 injected, then past the script.
	u, err = injectGetUser.Call(t.Context(), c, struct{ ID int }{2})
	if err != nil || u.ID != 2 {
		t.Fatalf("second call: %+v, %v; want user 2 after one retry", u, err)
	}
	if got := api.Stats().Requests; got != 2 {
		t.Errorf("the API saw %d requests, want 2", got)
	}
}

// TestInjectStatusesError checks an injected status as the caller sees it
// without retries, and a code that is not a status.
func TestInjectStatusesError(t *testing.T) {
	t.Parallel()
	api := kittest.NewAPI()
	_, c := kittest.NewServer(t, api, kit.WithInterceptors(kittest.InjectStatuses(404, 42)))
	_, err := injectGetUser.Call(t.Context(), c, struct{ ID int }{1})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 404 || !strings.Contains(string(he.Body), `"error":"fault"`) {
		t.Fatalf("err = %v, want an *HTTPError 404 with a fault body", err)
	}
	_, err = injectGetUser.Call(t.Context(), c, struct{ ID int }{1})
	if err == nil || !strings.Contains(err.Error(), "kittest: InjectStatuses: 42 is not an HTTP status") {
		t.Fatalf("err = %v, want one about code 42", err)
	}
	if _, err = injectGetUser.Call(t.Context(), c, struct{ ID int }{1}); err != nil {
		t.Fatalf("after the script: %v", err)
	}
	if got := api.Stats().Requests; got != 1 {
		t.Errorf("the API saw %d requests, want 1", got)
	}
}
