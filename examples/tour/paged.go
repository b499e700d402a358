package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// MemberQuery addresses a team's members: ID fills {id}; Active, when not
// nil, is sent as ?active= on every page.
type MemberQuery struct {
	ID     int
	Active *bool
}

// teamMembers is a nested collection: a paged endpoint, declared once like
// any endpoint and walked like a resource.
var teamMembers = kit.Paged[MemberQuery, User]("/teams/{id}/members",
	kit.PagedBy(kit.PageNumber{PageSize: 10}))

// pagedTour walks a paged endpoint, then times a walk of a slow API
// (2 ms a page) sync and pipelined.
func pagedTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Paged endpoints and pipelined walks")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer c.Close()
	active := true
	n := 0
	for _, err := range teamMembers.Iterate(ctx, c, MemberQuery{ID: 2, Active: &active}) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("kit.Paged /teams/{id}/members: %d active members of team 2; {id} and ?active= on every page", n)

	// A second demo API, 2 ms away, with 1,000 users: 200 per team.
	slow := httptest.NewServer(kittest.NewAPI(kittest.WithUsers(1000), kittest.WithLatency(2*time.Millisecond)))
	defer slow.Close()
	// Default engines (not the tour's printing one): their connections are
	// tuned for requests in flight together.
	sc, err := kit.NewClient(slow.URL)
	if err != nil {
		return err
	}
	defer sc.Close()
	ac, err := kit.NewAsyncClient(slow.URL)
	if err != nil {
		return err
	}
	defer ac.Close(ctx)
	pipelined := kit.Paged[MemberQuery, User]("/teams/{id}/members",
		kit.PagedBy(kit.PageNumber{PageSize: 10}), kit.WithPrefetch(8))

	count := func(walk func(yield func(User, error) bool)) (int, time.Duration, error) {
		start, n := time.Now(), 0
		for _, err := range walk {
			if err != nil {
				return 0, 0, err
			}
			n++
		}
		return n, time.Since(start), nil
	}
	n, syncTime, err := count(teamMembers.Iterate(ctx, sc, MemberQuery{ID: 5}))
	if err != nil {
		return err
	}
	t.say("with 2 ms a page, a sync walk: %d members of team 5 in %s", n, syncTime.Round(time.Millisecond))
	n, pipeTime, err := count(pipelined.GoIterate(ctx, ac, MemberQuery{ID: 5}))
	if err != nil {
		return err
	}
	t.say("the same walk pipelined, GoIterate with WithPrefetch(8): %d members in %s, %.1f× as fast (in order, each once)",
		n, pipeTime.Round(time.Millisecond), float64(syncTime)/float64(max(pipeTime, time.Microsecond)))
	return nil
}
