package users_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	users "github.com/kithttp/kit/examples/openapi"
	"github.com/kithttp/kit/kittest"
)

// Example_openapi calls a client that kitgen openapi generated from
// spec.yaml (openapi_gen.go and kit_gen.go; client.go was written once),
// against kittest's in-memory API: a typed call, a create, walks through
// Link headers and a cursor, a typed event stream, and the document's
// error model.
func Example_openapi() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := users.NewClient(srv.URL, kit.WithAuth(kit.Bearer("demo")))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	u, err := c.GetUser(ctx, 1) // GET /users/1
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("user 1:", u.Name)

	team := int64(2)
	made, err := c.CreateUser(ctx, users.NewUser{Name: "Grace Hopper", Email: "grace@example.com", TeamID: &team})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created:", made.Name, "in team", *made.TeamID)

	perPage, n := int64(50), 0
	for _, err := range c.ListUsers(ctx, &users.ListUsersParams{PerPage: &perPage}) { // Link: rel="next"
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("walked by Link header:", n, "users")

	n = 0
	for _, err := range c.ScanUsers(ctx, nil) { // ?cursor=<next_cursor>
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("walked by cursor:", n, "users")

	// Activity is a oneOf with a discriminator: Value is a sealed
	// interface; a kind the document does not name keeps its JSON in Raw.
	kinds := map[string]int{}
	for a, err := range c.ListActivity(ctx, nil) { // ?since=<paging.after>, from x-kit-pagination
		if err != nil {
			log.Fatal(err)
		}
		switch a.Value.(type) {
		case users.Joined:
			kinds["joined"]++
		case users.Deactivated:
			kinds["deactivated"]++
		case nil:
			kinds["unknown to the document"]++
		}
	}
	fmt.Println("activity:", kinds)

	s, err := c.Chat(ctx, users.ChatRequest{Message: "hello there"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print("chat: ")
	for chunk, err := range s.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(chunk.Text)
	}
	s.Close()
	fmt.Println()

	_, err = c.GetUser(ctx, 999999)
	var apiErr *users.Error
	if errors.As(err, &apiErr) {
		fmt.Println("error model:", *apiErr.ErrorField)
	}

	// New (in client.go, written once by kitgen openapi) is the client of
	// the document's first server.
	prod, err := users.New(kit.WithAuth(kit.Bearer("a token")))
	if err != nil {
		log.Fatal(err)
	}
	defer prod.Close()
	fmt.Println("users.New:", prod.BaseURL())
	// Output:
	// user 1: Ada Lovelace
	// created: Grace Hopper in team 2
	// walked by Link header: 251 users
	// walked by cursor: 251 users
	// activity: map[deactivated:83 joined:151 unknown to the document:17]
	// chat: You said: hello there. Here is my answer, streamed one token at a time.
	// error model: not_found
	// users.New: https://api.example.com
}

// Example_longRunning starts a job that kitgen openapi found long-running
// in spec.yaml (a 202 declaring its Operation-Location): BeginStartJob
// returns a *kit.Poller[Job], whose Wait polls the job's URL until its
// status member says it ended; ResumeStartJob takes the poller's Token
// back, in this process or another.
func Example_longRunning() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := users.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	polls, now := int64(2), int64(0) // kittest's script: two polls running; no wait between polls
	p, err := c.BeginStartJob(ctx, &users.StartJobRequest{Polls: &polls, RetryAfter: &now})
	if err != nil {
		log.Fatal(err)
	}
	job, err := p.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("job", job.ID, job.Status, "after", *job.Polls, "polls:", *job.Result.Output)

	fail := true
	p, err = c.BeginStartJob(ctx, &users.StartJobRequest{Polls: &now, Fail: &fail, RetryAfter: &now})
	if err != nil {
		log.Fatal(err)
	}
	resumed, err := users.ResumeStartJob(c, p.Token()) // as another process would
	if err != nil {
		log.Fatal(err)
	}
	_, err = resumed.Wait(ctx)
	var failed *kit.OperationError
	if errors.As(err, &failed) {
		fmt.Println("job 2 ended", failed.Status)
	}
	// Output:
	// job 1 succeeded after 3 polls: job 1 output
	// job 2 ended failed
}
