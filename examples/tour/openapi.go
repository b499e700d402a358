package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/kithttp/kit"
	users "github.com/kithttp/kit/examples/openapi"
	"github.com/kithttp/kit/examples/openapi/swagger2"
	"github.com/kithttp/kit/kittest"
)

// openapiTour calls clients that kitgen openapi generated: one from an
// OpenAPI 3.1 document (examples/openapi: spec.yaml, with overlay.yaml
// applied first and -env USERS) and one from a Swagger 2.0 document
// (examples/openapi/swagger2). It shows walks detected from the document
// or named by an overlay, page access, options on one call, a
// discriminated union, a typed event stream, the document's error model
// and an operation's own one, and a client configured from the
// environment.
func openapiTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Generated from an OpenAPI document: kitgen openapi")
	t.say("examples/openapi: kitgen openapi -package users -overlay overlay.yaml -env USERS spec.yaml (its client.go's go:generate line)")
	c, err := users.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer c.Close()
	u, err := c.UsersAPI.GetUser(ctx, 2)
	if err != nil {
		return err
	}
	t.say("c.UsersAPI.GetUser(ctx, 2), from operationId getUser, tagged users: the client has a field per tag (UsersAPI, ChatAPI, AuthAPI...), and a test can replace one: %s", u.Name)
	n := 0
	for _, err := range c.UsersAPI.ScanUsers(ctx, nil) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("c.UsersAPI.ScanUsers(ctx, nil): %d users, a cursor walk kitgen openapi detected from the document", n)

	// Page access: every paginated method has a <Method>Pages twin.
	perPage := int64(100)
	var sizes []int
	link := ""
	for page, err := range c.UsersAPI.ListUsersPages(ctx, &users.ListUsersParams{PerPage: &perPage}) {
		if err != nil {
			return err
		}
		sizes = append(sizes, len(page.Records))
		if link == "" {
			link = strings.Join(page.Response.Header.Values("Link"), ", ")
		}
	}
	t.say("c.UsersAPI.ListUsersPages(ctx, &{PerPage: 100}): pages of %v users, each with its response; the first's Link: %s", sizes, link)

	// Options on one call: every generated method ends with opts ...kit.CallOption.
	n = 0
	for _, err := range c.UsersAPI.ListUsers(ctx, nil, kit.WithQuery("q", "lovelace"), kit.WithHeader("X-Request-Source", "tour")) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("c.UsersAPI.ListUsers(ctx, nil, kit.WithQuery(\"q\", \"lovelace\"), kit.WithHeader(...)): %d users; q is a filter the document does not name, sent on every page", n)

	joined, deactivated, unknown := 0, 0, 0
	for a, err := range c.UsersAPI.ListActivity(ctx, nil) {
		if err != nil {
			return err
		}
		switch a.Value.(type) {
		case users.Joined:
			joined++
		case users.Deactivated:
			deactivated++
		case nil:
			unknown++ // a.Raw holds its JSON
		}
	}
	t.say("c.UsersAPI.ListActivity(ctx, nil): a oneOf with a discriminator, a sealed interface: %d joined, %d deactivated, %d of a kind the document does not name (kept as JSON); walked by the cursor that overlay.yaml names (x-kit-pagination), the published document saying nothing of it", joined, deactivated, unknown)
	s, err := c.ChatAPI.Chat(ctx, users.ChatRequest{Message: "hi"})
	if err != nil {
		return err
	}
	words := 0
	for _, err := range s.All() {
		if err != nil {
			return err
		}
		words++
	}
	s.Close()
	t.say("c.ChatAPI.Chat: a *kit.Stream[ChatChunk] from a text/event-stream response, %d chunks", words)
	_, err = c.UsersAPI.GetUser(ctx, 424242)
	var apiErr *users.Error
	t.say("an unknown user: errors.As finds the document's error model: %v", errors.As(err, &apiErr))

	// An operation's own error model: the document says a failed login's
	// 400 is a LoginFlow.
	_, err = c.AuthAPI.Login(ctx, users.LoginRequest{Username: "demo", Password: "wrong"})
	var flow *users.LoginFlow
	if !errors.As(err, &flow) || flow.UI == nil || len(flow.UI.Messages) == 0 || flow.UI.Messages[0].Text == nil {
		return errors.New("c.AuthAPI.Login with a wrong password: no *users.LoginFlow with a message in " + errString(err))
	}
	t.say("c.AuthAPI.Login with a wrong password: errors.As finds the operation's own model, *users.LoginFlow (its 400 in the document): %q; the root model too: %v", *flow.UI.Messages[0].Text, errors.As(err, &apiErr))

	// -env USERS: New reads USERS_BASE_URL and USERS_BEARER when the caller
	// gives no base URL or credentials.
	restore := setenv("USERS_BASE_URL", baseURL)
	defer restore()
	fromEnv, err := users.New(kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer fromEnv.Close()
	u, err = fromEnv.UsersAPI.GetUser(ctx, 1)
	if err != nil {
		return err
	}
	t.say("-env USERS: users.New() with USERS_BASE_URL set calls %s instead of the document's %s: user 1 is %s", fromEnv.BaseURL(), users.DefaultBaseURL, u.Name)

	// A long-running operation: spec.yaml's POST /lro/jobs answers 202
	// with an Operation-Location, so kitgen wrote BeginStartJob, which
	// returns a typed poller. A demo API of its own keeps job numbers
	// apart from the rest of the tour.
	jobs := httptest.NewServer(kittest.NewAPI())
	defer jobs.Close()
	jc, err := users.NewClient(jobs.URL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer jc.Close()
	polls, now := int64(2), int64(0)
	p, err := jc.JobsAPI.BeginStartJob(ctx, &users.StartJobRequest{Polls: &polls, RetryAfter: &now})
	if err != nil {
		return err
	}
	job, err := p.Wait(ctx)
	if err != nil {
		return err
	}
	t.say("c.JobsAPI.BeginStartJob: a 202 with an Operation-Location became a *kit.Poller[users.Job]; Wait polled until job %d %s after %d polls", job.ID, job.Status, *job.Polls)

	// Swagger 2.0: converted on load, then generated as any 3.x document.
	old, err := swagger2.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer old.Close()
	tok, err := old.API.Login(ctx, swagger2.LoginRequest{Username: "demo", Password: "s3cret"})
	if err != nil {
		return err
	}
	n = 0
	for _, err := range old.API.ListUsers(ctx, nil) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("examples/openapi/swagger2, from a Swagger 2.0 document: Login's formData parameters are a form body (a %s token), ListUsers walks %d users by Link header, and host/basePath/schemes give DefaultBaseURL %s", tok.TokenType, n, swagger2.DefaultBaseURL)
	return nil
}

// setenv sets the environment variable key to value and returns the
// function that restores what it was.
func setenv(key, value string) (restore func()) {
	old, had := os.LookupEnv(key)
	os.Setenv(key, value)
	return func() {
		if had {
			os.Setenv(key, old)
		} else {
			os.Unsetenv(key)
		}
	}
}
