package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/examples/kitgen/github"
)

// kitgenTour calls a client that cmd/kitgen generated from declared
// interfaces (examples/kitgen/github): each method's own parameters are
// routed by name and type, with no parameter struct or endpoint variable
// written by hand.
func kitgenTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Generated clients: kitgen")
	gh, err := github.NewWithLogin(baseURL, github.Credentials{Username: "demo", Password: "s3cret"}, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer gh.Close()
	u, err := gh.GetUser(ctx, 1)
	if err != nil {
		return err
	}
	t.say("gh.GetUser(ctx, 1), declared as GetUser(ctx, id int) with //kit:get /users/{id}: %s", u.Name)
	team, err := gh.GetTeam(ctx, 4, "")
	if err != nil {
		return err
	}
	_, err = gh.GetTeam(ctx, 4, team.Header.Get("ETag"))
	t.say("gh.GetTeam(ctx, 4, etag), etag sent as If-None-Match: ErrNotModified=%v", errors.Is(err, kit.ErrNotModified))
	n := 0
	for _, err := range gh.ListMembers(ctx, 4, &github.MemberListOptions{PerPage: 5}) {
		if err != nil {
			return err
		}
		if n++; n == 6 {
			break
		}
	}
	t.say("gh.ListMembers(ctx, 4, &opts), an iter.Seq2 over Link headers: stopped after %d members", n)
	return nil
}
