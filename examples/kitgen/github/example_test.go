package github_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/examples/kitgen/github"
	"github.com/kithttp/kit/kittest"
)

// Example_kitgen calls a client that kitgen generated from the declarations
// in github.go, against kittest's in-memory API, which asks for a token on
// every route: the hand-written NewWithLogin logs in through a NoAuth
// endpoint on first use.
func Example_kitgen() {
	api := kittest.NewAPI(kittest.WithRequireAuth(true))
	srv := httptest.NewServer(api)
	defer srv.Close()

	gh, err := github.NewWithLogin(srv.URL, github.Credentials{Username: "demo", Password: "s3cret"})
	if err != nil {
		log.Fatal(err)
	}
	defer gh.Close()
	ctx := context.Background()

	u, err := gh.GetUser(ctx, 1) // GET /users/1
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("user 1: %s\n", u.Name)

	page, err := gh.SearchUsers(ctx, "lovelace", 0, 1, 3) // GET /users?page=1&page_size=3&q=lovelace
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("search: %d of %d users\n", len(page.Users), page.Total)

	team, err := gh.GetTeam(ctx, 2, "") // GET /teams/2
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("team 2: %s, %d members, status %d\n", team.Value.Name, len(team.Value.MemberIDs), team.StatusCode)
	_, err = gh.GetTeam(ctx, 2, team.Header.Get("ETag")) // If-None-Match: the ETag
	fmt.Println("team 2 again, not modified:", errors.Is(err, kit.ErrNotModified))

	n := 0
	for m, err := range gh.ListMembers(ctx, 2, &github.MemberListOptions{PerPage: 10}) {
		if err != nil {
			log.Fatal(err)
		}
		if n++; n == 12 {
			fmt.Printf("member 12 of team 2: user %d\n", m.ID)
			break // no page past the one needed is fetched
		}
	}
	fmt.Printf("pages fetched: %d\n", api.Stats().ByPath["GET /linked/teams/2/members"])

	name := "Payments"
	team2, err := gh.AddMembers(ctx, 2, []github.User{{Name: "Grace Hopper", Email: "grace@example.com"}}, &name)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("team 2 now: %d members\n", len(team2.MemberIDs))

	posts, err := gh.Users.Posts(ctx, 1) // GET /users/1/posts, through the resource
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("user 1 has %d posts\n", len(posts))
	if err := gh.Users.Deactivate(ctx, 1, github.Activity{Active: false}); err != nil {
		log.Fatal(err)
	}
	ada, err := gh.Users.Get(ctx, 1) // the resource's own CRUD
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("user 1 active: %v\n", ada.Active)

	n = 0
	for u, err := range gh.Users.All(ctx) { // every page of 50, lazily
		if err != nil {
			log.Fatal(err)
		}
		if n++; n <= 2 {
			fmt.Printf("user %d: %s\n", u.ID, u.Name)
		}
	}
	fmt.Printf("%d users in all\n", n)

	teams, err := gh.Teams.List(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d teams, logins: %d\n", len(teams), api.Stats().Logins)
	// Output:
	// user 1: Ada Lovelace
	// search: 3 of 10 users
	// team 2: Payments, 50 members, status 200
	// team 2 again, not modified: true
	// member 12 of team 2: user 57
	// pages fetched: 2
	// team 2 now: 51 members
	// user 1 has 2 posts
	// user 1 active: false
	// user 1: Ada Lovelace
	// user 2: Alan Turing
	// 251 users in all
	// 5 teams, logins: 1
}
