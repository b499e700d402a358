package users_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"strings"
	"time"

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

	u, err := c.UsersAPI.GetUser(ctx, 1) // GET /users/1
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("user 1:", u.Name)

	team := int64(2)
	made, err := c.UsersAPI.CreateUser(ctx, users.NewUser{Name: "Grace Hopper", Email: "grace@example.com", TeamID: &team})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created:", made.Name, "in team", *made.TeamID)

	perPage, n := int64(50), 0
	for _, err := range c.UsersAPI.ListUsers(ctx, &users.ListUsersParams{PerPage: &perPage}) { // Link: rel="next"
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("walked by Link header:", n, "users")

	n = 0
	for _, err := range c.UsersAPI.ScanUsers(ctx, nil) { // ?cursor=<next_cursor>
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("walked by cursor:", n, "users")

	// Activity is a oneOf with a discriminator: Value is a sealed
	// interface; a kind the document does not name keeps its JSON in Raw.
	kinds := map[string]int{}
	for a, err := range c.UsersAPI.ListActivity(ctx, nil) { // ?since=<paging.after>: overlay.yaml adds the x-kit-pagination
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

	s, err := c.ChatAPI.Chat(ctx, users.ChatRequest{Message: "hello there"})
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

	_, err = c.UsersAPI.GetUser(ctx, 999999)
	var apiErr *users.Error
	if errors.As(err, &apiErr) {
		fmt.Println("error model:", *apiErr.ErrorField)
	}

	// New (in client.go, written once by kitgen openapi) is the client of
	// the document's first server, unless $USERS_BASE_URL says otherwise
	// (see Example_env).
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

// Example_pages walks a generated client's pages rather than its records:
// every paginated operation has a <Method>Pages twin whose pages carry
// their records and their response (status and headers), here the Link
// headers of each page of ListUsers.
func Example_pages() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := users.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	perPage := int64(100)
	for page, err := range c.UsersAPI.ListUsersPages(context.Background(), &users.ListUsersParams{PerPage: &perPage}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d users from id %d; Link: %s\n", len(page.Records), page.Records[0].ID, strings.Join(page.Response.Header.Values("Link"), ", "))
	}
	// Output:
	// 100 users from id 1; Link: <users?page=1&per_page=100>; rel="first", <users?page=2&per_page=100>; rel="next", <users?page=3&per_page=100>; rel="last"
	// 100 users from id 101; Link: <users?page=1&per_page=100>; rel="first", <users?page=1&per_page=100>; rel="prev", <users?page=3&per_page=100>; rel="next last"
	// 50 users from id 201; Link: <users?page=1&per_page=100>; rel="first", <users?page=2&per_page=100>; rel="prev", <users?page=3&per_page=100>; rel="last"
}

// Example_callOptions gives options to one call of a generated method:
// every method ends with opts ...kit.CallOption. kit.WithQuery sends a
// query parameter the document does not name (the demo API's q filter)
// on every page of the walk, and kit.WithTimeout bounds the call.
func Example_callOptions() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := users.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	n := 0
	for u, err := range c.UsersAPI.ListUsers(ctx, nil, kit.WithQuery("q", "lovelace"), kit.WithTimeout(10*time.Second)) {
		if err != nil {
			log.Fatal(err)
		}
		if n++; n == 1 {
			fmt.Println("first:", u.Name)
		}
	}
	fmt.Println(n, "users named like lovelace")
	// Output:
	// first: Ada Lovelace
	// 10 users named like lovelace
}

// Example_errorPerOperation reaches an operation's own error model: the
// document says a failed login answers 400 with a LoginFlow, whose
// messages a login form shows, so Login decodes that 400 into a
// *users.LoginFlow (kit.WithErrorModelFor[LoginFlow](400) in kit_gen.go)
// and its other errors into the document's *users.Error.
func Example_errorPerOperation() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := users.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	_, err = c.AuthAPI.Login(ctx, users.LoginRequest{Username: "demo", Password: "wrong"})
	var flow *users.LoginFlow
	if errors.As(err, &flow) {
		fmt.Println("login flow:", *flow.UI.Messages[0].Text)
	}
	var apiErr *users.Error
	fmt.Println("the document's error model too:", errors.As(err, &apiErr))

	tok, err := c.AuthAPI.Login(ctx, users.LoginRequest{Username: "demo", Password: "s3cret"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("logged in:", tok.TokenType, "token")
	// Output:
	// login flow: The provided credentials are invalid, check for spelling mistakes in your password or username.
	// the document's error model too: false
	// logged in: Bearer token
}

// Example_env shows what kitgen openapi -env USERS wrote (see client.go's
// go:generate line): New takes the base URL from $USERS_BASE_URL and the
// token of the document's bearer scheme from $USERS_BEARER when the
// caller gives neither. An option given to New wins over the environment,
// and the environment over the document.
func Example_env() {
	srv := httptest.NewServer(kittest.NewAPI(kittest.WithRequireAuth(true)))
	defer srv.Close()
	ctx := context.Background()
	os.Setenv("USERS_BASE_URL", srv.URL)
	defer os.Unsetenv("USERS_BASE_URL")

	anon, err := users.New() // no USERS_BEARER yet: no credentials
	if err != nil {
		log.Fatal(err)
	}
	defer anon.Close()
	fmt.Println("base URL from USERS_BASE_URL:", anon.BaseURL().String() == srv.URL)
	_, err = anon.UsersAPI.GetUser(ctx, 1)
	var he *kit.HTTPError
	if errors.As(err, &he) {
		fmt.Println("without a token:", he.StatusCode)
	}

	tok, err := anon.AuthAPI.Login(ctx, users.LoginRequest{Username: "demo", Password: "s3cret"})
	if err != nil {
		log.Fatal(err)
	}
	os.Setenv("USERS_BEARER", tok.AccessToken)
	defer os.Unsetenv("USERS_BEARER")
	c, err := users.New() // the token from USERS_BEARER
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	u, err := c.UsersAPI.GetUser(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("with USERS_BEARER:", u.Name)
	// Output:
	// base URL from USERS_BASE_URL: true
	// without a token: 401
	// with USERS_BEARER: Ada Lovelace
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
	p, err := c.JobsAPI.BeginStartJob(ctx, &users.StartJobRequest{Polls: &polls, RetryAfter: &now})
	if err != nil {
		log.Fatal(err)
	}
	job, err := p.Wait(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("job", job.ID, job.Status, "after", *job.Polls, "polls:", *job.Result.Output)

	fail := true
	p, err = c.JobsAPI.BeginStartJob(ctx, &users.StartJobRequest{Polls: &now, Fail: &fail, RetryAfter: &now})
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
