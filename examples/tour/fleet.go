package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// limitedUser is the demo API's user under a GitHub-style rate limit; MaxAge
// sets the Cache-Control max-age the server sends.
var limitedUser = kit.Get[struct {
	ID     int
	MaxAge *int `kit:"max_age"`
}, kit.Result[User]]("/limited/users/{id}")

// cacheTour shows kit's private HTTP cache saving requests and quota, and
// the server's announced rate limit pausing a walk.
func cacheTour(ctx context.Context, t *tour, hc *http.Client) error {
	t.section("A private HTTP cache, and the rate limits servers announce")
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithHTTPClient(hc), kit.WithCache(kit.NewMemoryCache(0)))
	if err != nil {
		return err
	}
	defer c.Close()
	type params = struct {
		ID     int
		MaxAge *int `kit:"max_age"`
	}
	var from []bool
	for range 3 {
		r, err := limitedUser.Call(ctx, c, params{ID: 1})
		if err != nil {
			return err
		}
		from = append(from, r.FromCache())
	}
	t.say("3 calls of GET /limited/users/1 (Cache-Control: private, max-age=60): %d request; FromCache %v",
		api.Stats().ByPath["GET /limited/users/1"], from)

	zero := 0
	var remaining []string
	for range 3 {
		r, err := limitedUser.Call(ctx, c, params{ID: 2, MaxAge: &zero})
		if err != nil {
			return err
		}
		remaining = append(remaining, r.Header.Get("X-RateLimit-Remaining"))
	}
	t.say("with max-age=0 each call revalidates with If-None-Match: %d 304s at the server, served from the cache; "+
		"the quota left stays %v, as GitHub does not count a 304", api.Stats().NotModified, remaining)

	// A quota of 4 requests a second, and a walk of 6 pages.
	limited := kittest.NewAPI(kittest.WithRateQuota(4, time.Second))
	lsrv := httptest.NewServer(limited)
	defer lsrv.Close()
	w, err := kit.NewClient(lsrv.URL, kit.WithHTTPClient(hc), kit.WithLimits(kit.Limits{ServerMaxWait: 5 * time.Second}))
	if err != nil {
		return err
	}
	defer w.Close()
	users := kit.NewResource[User](w, "/limited/users", kit.PagedBy(kit.PageNumber{PageSize: 50}))
	n := 0
	for _, err := range users.All(ctx) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("WithLimits(Limits{ServerMaxWait: 5s}), a quota of 4 requests a second: a walk of %d users in %d pages waits for each reset "+
		"instead of running into a 403 (%d refused at the server)",
		n, limited.Stats().ByPath["GET /limited/users"], limited.Stats().RateLimited)

	// The same quota over an hour: its reset is never a second away, so
	// the client always knows to refuse (over a 1 s window, a reset
	// announced in whole seconds can already look past on a slow machine).
	hourly := kittest.NewAPI(kittest.WithRateQuota(4, time.Hour))
	hsrv := httptest.NewServer(hourly)
	defer hsrv.Close()
	impatient, err := kit.NewClient(hsrv.URL, kit.WithHTTPClient(hc), kit.WithLimits(kit.Limits{ServerMaxWait: time.Millisecond}))
	if err != nil {
		return err
	}
	defer impatient.Close()
	for range 10 {
		_, err = limitedUser.Call(ctx, impatient, params{ID: 1})
		if err != nil {
			break
		}
	}
	var rle *kit.RateLimitError
	if !errors.As(err, &rle) {
		return fmt.Errorf("the quota was not enforced: %v", err)
	}
	t.say("with ServerMaxWait: 1ms, once the quota is used up the next call fails at once, nothing sent: "+
		"*kit.RateLimitError (limit %d, remaining %d)", rle.Limit, rle.Remaining)
	return nil
}
