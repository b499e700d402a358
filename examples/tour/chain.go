package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// chainTour shows the send chain's contract at every hop: what an
// interceptor answers is checked where it leaves the interceptor, so a
// 503 it makes is retried like the server's, and a broken interceptor is a
// clear error rather than a panic.
func chainTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("The send chain's contract: interceptors' answers, checked at every hop")
	fast := kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), fast,
		kit.WithAttemptInterceptors(kittest.InjectStatuses(503, 503)))
	if err != nil {
		return err
	}
	defer c.Close()
	before := t.requests.Load()
	u, err := getUser.Call(ctx, c, struct{ ID int }{1})
	if err != nil {
		return err
	}
	t.say("an attempt interceptor answered 503 twice (kittest.InjectStatuses); WithRetry retried both: %s after 3 attempts, %d sent",
		u.Name, t.requests.Load()-before)

	nothing := func(kit.Sender) kit.Sender {
		return func(context.Context, *kit.Request) (*kit.Response, error) { return nil, nil }
	}
	broken, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithInterceptors(nothing))
	if err != nil {
		return err
	}
	defer broken.Close()
	_, err = getUser.Call(ctx, broken, struct{ ID int }{1})
	if err == nil {
		return errors.New("an interceptor that answered nothing was not reported")
	}
	t.say("an interceptor that returns neither a response nor an error: %v", err)

	_, err = kit.NewClient(baseURL, kit.WithInterceptors(func(kit.Sender) kit.Sender { return nil }))
	if err == nil {
		return fmt.Errorf("an interceptor that returned a nil Sender was accepted")
	}
	t.say("one that returns a nil Sender: %v", err)
	return nil
}
