package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"syscall"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// failoverTour shows kit.WithFailover: a primary origin that dies (a
// kittest.FaultServer with DieAfter), and the calls and the walk that go
// on against the demo API as the fallback.
func failoverTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Failover: other base URLs when one cannot be reached")

	// The primary answers one request, then stops listening.
	primary := kittest.NewFaultServer(tourTB{}, nil)
	defer primary.Close()
	primary.DieAfter(1)
	var moves []string
	c, err := kit.NewClient(primary.URL(), kit.WithHTTPClient(hc),
		kit.WithFailover(kit.Failover{URLs: []string{baseURL}}),
		kit.WithObserver(kit.Observer{Failover: func(_ context.Context, f kit.FailoverInfo) {
			why := "failed"
			if errors.Is(f.Err, syscall.ECONNREFUSED) {
				why = "refused the connection"
			}
			moves = append(moves, "the primary "+why)
		}}))
	if err != nil {
		return err
	}
	defer c.Close()
	for i := 1; i <= 2; i++ {
		r, err := kit.Get[struct{ ID int }, kit.Result[User]]("/users/{id}").Call(ctx, c, struct{ ID int }{i})
		if err != nil {
			return err
		}
		who := "the primary"
		if strings.HasPrefix(r.Response.Request.URL.String(), baseURL) {
			who = "the fallback"
		}
		t.say("call %d: %s, answered by %s", i, r.Value.Name, who)
	}
	t.say("the observer saw: %v", moves)

	// A walk whose first page fails over stays on the fallback for every
	// page; the client's credentials would go there only with
	// kit.Failover{BindCredentials: true}.
	n := 0
	for _, err := range teamMembers.Iterate(ctx, c, MemberQuery{ID: 2}) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("a walk of team 2 failed over at its first page: %d members, every page from the fallback (%d failovers in all)", n, len(moves))
	if primary.Requests() != 1 {
		return fmt.Errorf("the dead primary got %d requests", primary.Requests())
	}
	return nil
}
