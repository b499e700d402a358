// Command tour starts kit's demo API (kittest.NewAPI) on a loopback port
// and walks a typed client through every feature of kit, printing each
// request it sends and what came back.
//
//	go run ./examples/tour
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// User is a data model: json tags for the wire, validate tags for the rules.
type User struct {
	ID     int    `json:"id,omitempty"`
	Name   string `json:"name" validate:"required"`
	Email  string `json:"email" validate:"required,email"`
	TeamID int    `json:"team_id"`
	Active bool   `json:"active"`
}

// Team is a team with its members.
type Team struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	MemberIDs []int  `json:"member_ids"`
}

// Post is a user's post.
type Post struct {
	ID     int    `json:"id"`
	UserID int    `json:"user_id"`
	Title  string `json:"title"`
}

// Endpoints, declared once.
var (
	health   = kit.Get[kit.NoParams, map[string]string]("/health", kit.NoAuth())
	getUser  = kit.Get[struct{ ID int }, User]("/users/{id}")
	addUsers = kit.Post[struct {
		ID      int     // fills {id}
		Payload []User  // the JSON body
		Team    *string // ?team=..., dropped when nil
	}, Team]("/teams/{id}/users")
	searchUsers = kit.Get[struct {
		Q        string
		Active   *bool
		PageSize int `kit:"page_size"`
	}, *kit.Response]("/users")
	userPosts = kit.Get[struct{ ID int }, []Post]("/users/{id}/posts")
)

// Users is a resource with a custom endpoint.
type Users struct{ *kit.Resource[User] }

// Posts calls a custom endpoint with the resource as the binding.
func (u Users) Posts(ctx context.Context, id int) ([]Post, error) {
	return userPosts.Call(ctx, u, struct{ ID int }{id})
}

func main() {
	log.SetFlags(0)
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer) error {
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	t := &tour{out: out}
	hc := &http.Client{Transport: &printingTransport{t: t, next: http.DefaultTransport}}

	t.section("Client")
	c, err := kit.NewClient(srv.URL+"/", kit.WithHTTPClient(hc), kit.WithHeader("X-Tour", "kit"))
	if err != nil {
		return err
	}
	defer c.Close()
	t.say("demo API on %s; base URL %s", srv.URL, c.BaseURL())
	if _, err := kit.NewClient("ftp://example.com"); err != nil {
		t.say("a bad base URL is refused at construction: %v", err)
	}

	t.section("Endpoints: typed parameters in, typed results out")
	h, err := health.Call(ctx, c, kit.NoParams{})
	if err != nil {
		return err
	}
	t.say("health: %v", h)
	u, err := getUser.Call(ctx, c, struct{ ID int }{3})
	if err != nil {
		return err
	}
	t.say("user 3: %+v", u)
	label := "platform"
	team, err := addUsers.Call(ctx, c, struct {
		ID      int
		Payload []User
		Team    *string
	}{ID: 1, Payload: []User{{Name: "Ada", Email: "ada@example.com"}}, Team: &label})
	if err != nil {
		return err
	}
	t.say("path, body and query in one call, POST /teams/{id}/users: team %q now has %d members", team.Name, len(team.MemberIDs))
	active := true
	raw, err := searchUsers.Call(ctx, c, struct {
		Q        string
		Active   *bool
		PageSize int `kit:"page_size"`
	}{Q: "ada", Active: &active, PageSize: 5})
	if err != nil {
		return err
	}
	var found struct {
		Total int `json:"total"`
	}
	if err := raw.JSON(&found); err != nil {
		return err
	}
	t.say("R = *kit.Response gives the raw response: status %d, %d matching users", raw.StatusCode, found.Total)
	type echoed struct {
		RequestURI string `json:"request_uri"`
	}
	fileAt := kit.Get[struct{ Repo, Path string }, echoed]("/echo/{repo}/contents/{path...}")
	e, err := fileAt.Call(ctx, c, struct{ Repo, Path string }{"kit/main", "docs/read me.md"})
	if err != nil {
		return err
	}
	t.say("{path...} keeps its slashes, {repo} does not: %s", e.RequestURI)

	t.section("Errors: validation before sending, typed HTTP errors")
	_, err = addUsers.Call(ctx, c, struct {
		ID      int
		Payload []User
		Team    *string
	}{ID: 1, Payload: []User{{Name: "", Email: "nope"}}})
	var ve *kit.ValidationError
	if errors.As(err, &ve) {
		t.say("nothing sent; *kit.ValidationError: %v", ve)
	}
	_, err = getUser.Call(ctx, c, struct{ ID int }{424242})
	var he *kit.HTTPError
	if errors.As(err, &he) {
		t.say("*kit.HTTPError: status %d: %v", he.StatusCode, he)
	}

	t.section("Resources: CRUD")
	users := Users{kit.NewResource[User](c, "/users")}
	created, err := users.Create(ctx, User{Name: "Grace Hopper", Email: "grace@example.com", TeamID: 2})
	if err != nil {
		return err
	}
	t.say("created %+v", created)
	created.Active = true
	updated, err := users.Update(ctx, created.ID, created)
	if err != nil {
		return err
	}
	t.say("updated: active=%v", updated.Active)
	patched, err := users.Patch(ctx, created.ID, struct {
		TeamID int `json:"team_id"`
	}{TeamID: 4})
	if err != nil {
		return err
	}
	t.say("patched: team %d", patched.TeamID)
	page, err := users.List(ctx, map[string]any{"team_id": 4, "page_size": 3})
	if err != nil {
		return err
	}
	t.say("List (one page): %d users of team 4", len(page))
	posts, err := users.Posts(ctx, 1)
	if err != nil {
		return err
	}
	t.say("custom endpoint on the resource: user 1 has %d posts", len(posts))
	resp, err := users.Delete(ctx, created.ID)
	if err != nil {
		return err
	}
	t.say("deleted: %d", resp.StatusCode)
	noPath := kit.NewResource[User](c, "")
	if _, err := noPath.Get(ctx, 1); errors.Is(err, kit.ErrNoPath) {
		t.say("a resource without a path: %v", err)
	}

	t.section("Lazy iteration, in every pagination style")
	t.quiet = true
	styles := []struct {
		path string
		p    kit.Paginator
	}{
		{"/paged/users", kit.PageNumber{PageSize: 25}},
		{"/offset/users", kit.Offset{Limit: 25}},
		{"/cursor/users", kit.Cursor{NextKey: "meta.next_cursor"}},
		{"/linked/users", kit.LinkHeader{}},
		{"/nested/users", kit.PageNumber{PageSize: 25, ItemsKey: "payload.records"}},
	}
	for _, s := range styles {
		res := kit.NewResource[User](c, s.path, kit.PagedBy(s.p))
		before := t.requests.Load()
		n := 0
		for _, err := range res.Iterate(ctx, map[string]any{"team_id": 3}) {
			if err != nil {
				return err
			}
			n++
		}
		t.say("%-14s %-16T %3d users of team 3 in %d requests", s.path, s.p, n, t.requests.Load()-before)
	}
	t.quiet = false
	res := kit.NewResource[User](c, "/paged/users", kit.PagedBy(kit.PageNumber{PageSize: 4}))
	t.say("taking the first 6 users of pages of 4 requests only 2 pages:")
	n := 0
	for u, err := range res.All(ctx) {
		if err != nil {
			return err
		}
		t.say("  %d %s", u.ID, u.Name)
		if n++; n == 6 {
			break
		}
	}
	clamped := kit.NewResource[User](c, "/clamped/users", kit.PagedBy(kit.PageNumber{PageSize: 10}))
	t.quiet = true
	n = 0
	for _, err := range clamped.Iterate(ctx, map[string]any{"team_id": 3}) {
		if err != nil {
			t.quiet = false
			t.say("a server that repeats its last page: %d users, then %v", n, err)
			break
		}
		n++
	}
	t.quiet = false
	// A server whose pages count from 0: walked from 1 it loses its first
	// page; told where pages start, or left to say so itself, it does not.
	t.quiet = true
	for _, start := range []kit.PageStart{kit.StartAtOne, kit.StartAtZero, kit.StartUnknown} {
		zero := kit.NewResource[User](c, "/zero/users", kit.PagedBy(kit.PageNumber{PageSize: 25, Start: start}))
		n, first := 0, 0
		for u, err := range zero.All(ctx) {
			if err != nil {
				return err
			}
			if n == 0 {
				first = u.ID
			}
			n++
		}
		t.quiet = false
		t.say("pages counted from 0, walked with %#v: %d users, from user %d", start, n, first)
		t.quiet = true
	}
	t.quiet = false

	if err := authTour(ctx, t, api, srv.URL, hc); err != nil {
		return err
	}
	if err := interceptorTour(ctx, t, hc); err != nil {
		return err
	}
	if err := httpTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := streamTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := asyncTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := pagedTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := kitgenTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := operationTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := chainTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := conventionsTour(ctx, t, api, srv.URL, hc); err != nil {
		return err
	}
	if err := cacheTour(ctx, t, hc); err != nil {
		return err
	}
	if err := parallelTour(ctx, t); err != nil {
		return err
	}
	if err := shapesTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := originsTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := openapiTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := tokensTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := observerTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := queryObjectsTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := errorsTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := bracketsTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := webhooksTour(ctx, t); err != nil {
		return err
	}
	if err := longcallsTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := resilienceTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	if err := failoverTour(ctx, t, srv.URL, hc); err != nil {
		return err
	}
	t.section("Done")
	t.say("%d requests in all", t.requests.Load())
	return nil
}

// login is the demo API's login endpoint. It is declared NoAuth: it
// produces the token, so it never carries one.
var (
	login = kit.Post[struct{ Credentials credentials }, tokenResponse]("/login", kit.NoAuth())
	me    = kit.Get[kit.NoParams, User]("/me")
)

type credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type tokenResponse struct {
	AccessToken string `json:"access_token" validate:"required"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

func authTour(ctx context.Context, t *tour, api *kittest.API, baseURL string, hc *http.Client) error {
	t.section("Auth: a login, a call, an expiry and a transparent refresh")
	var c *kit.Client // the fetch function calls the login endpoint of this very client
	logins := 0
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		r, err := login.Call(ctx, c, struct{ Credentials credentials }{credentials{"demo", "s3cret"}})
		if err != nil {
			return kit.Token{}, err
		}
		return kit.Token{Value: r.AccessToken, Type: r.TokenType, Expiry: time.Now().Add(time.Duration(r.ExpiresIn) * time.Second)}, nil
	}, kit.OnToken(func(tok kit.Token) {
		logins++
		t.say("new token #%d (%v; the value itself is never printed or logged)", logins, tok)
	}))
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithAuth(auth))
	if err != nil {
		return err
	}
	defer c.Close()
	u, err := me.Call(ctx, c, kit.NoParams{})
	if err != nil {
		return err
	}
	t.say("GET /me as %s", u.Name)
	api.ExpireTokens()
	t.say("the server expires every token; the next call gets a 401, refreshes once and is sent again:")
	u, err = me.Call(ctx, c, kit.NoParams{})
	if err != nil {
		return err
	}
	t.say("GET /me as %s, after %d logins", u.Name, logins)
	return nil
}

func asyncTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Async: a fan-out of futures and a prefetching walk")
	ac, err := kit.NewAsyncClient(baseURL, kit.WithHTTPClient(hc), kit.WithLimits(kit.Limits{MaxInFlight: 8}))
	if err != nil {
		return err
	}
	t.quiet = true
	start := time.Now()
	futures := make([]*kit.Future[User], 40)
	for i := range futures {
		futures[i] = getUser.Go(ctx, ac, struct{ ID int }{i + 1}) // starts at once
	}
	names := 0
	for _, f := range futures {
		u, err := f.Await(ctx)
		if err != nil {
			return err
		}
		names += len(u.Name)
	}
	t.say("40 GETs as futures, at most 8 in flight: %d name bytes in %s", names, time.Since(start).Round(100*time.Microsecond))
	users := kit.NewAsyncResource[User](ac, "/cursor/users", kit.PagedBy(kit.Cursor{NextKey: "meta.next_cursor"}), kit.WithPrefetch(2))
	n, before := 0, t.requests.Load()
	for _, err := range users.Iterate(ctx, map[string]any{"limit": 20}) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("a cursor walk with WithPrefetch(2), one page ahead (each cursor is in the page before): %d users in %d requests", n, t.requests.Load()-before)
	got, err := kit.NewAsyncResource[User](ac, "/users").Get(ctx, 7).Await(ctx)
	if err != nil {
		return err
	}
	t.say("AsyncResource.Get(7) = %s", got.Name)
	t.quiet = false
	if err := ac.Close(ctx); err != nil {
		return err
	}
	_, err = getUser.Go(ctx, ac, struct{ ID int }{1}).Await(ctx)
	t.say("after Close: %v", err)
	_, err = getUser.Call(ctx, ac, struct{ ID int }{1})
	var ee *kit.EngineError
	if errors.As(err, &ee) {
		t.say("Call on an async client: %v", err)
	}
	return nil
}

// tour prints what the walk does. Requests may be sent concurrently.
type tour struct {
	out      io.Writer
	mu       sync.Mutex
	requests atomic.Int64
	quiet    bool // count requests without printing them
	n        int
}

func (t *tour) section(title string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	fmt.Fprintf(t.out, "\n== %d. %s\n", t.n, title)
}

func (t *tour) say(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.out, "   "+format+"\n", args...)
}

// printingTransport prints each request and its response status.
type printingTransport struct {
	t    *tour
	next http.RoundTripper
}

func (p *printingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := p.next.RoundTrip(req)
	p.t.requests.Add(1)
	p.t.mu.Lock()
	defer p.t.mu.Unlock()
	if p.t.quiet {
		return resp, err
	}
	line := req.Method + " " + req.URL.RequestURI()
	if err != nil {
		fmt.Fprintf(p.t.out, "   → %s: %v\n", line, err)
		return resp, err
	}
	fmt.Fprintf(p.t.out, "   → %-52s ← %d %s (%s)\n", line, resp.StatusCode, http.StatusText(resp.StatusCode), time.Since(start).Round(10*time.Microsecond))
	return resp, nil
}
