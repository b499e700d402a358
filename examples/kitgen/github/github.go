// Package github is a GitHub-style API client declared for kitgen: the
// declarations below are all a user writes, and kit_gen.go is what
// kitgen generates from them (go generate in this directory regenerates
// it; a test in cmd/kitgen fails when it is out of date).
//
// It is Example A of kitgen's design, with its paths moved to routes that
// kittest.NewAPI serves, so that it runs: users are GitHub's users, teams
// stand for repositories (they carry an ETag), and a team's users, walked
// through their Link headers, for a repository's issues. Every kind of
// declaration is here: path, query and header parameters, a JSON body, a
// result with its response, a lazy walk of a paged collection, a NoAuth
// login feeding kit.TokenAuth through a hand-written constructor, a
// resource field, and a resource type with endpoints of its own.
package github

import (
	"context"
	"iter"

	"github.com/kithttp/kit"
)

//go:generate go run github.com/kithttp/kit/cmd/kitgen

// Client is the API's client: kitgen writes NewClient and BindClient, which
// fill every field.
//
//kit:client
//kit:option kit.WithHeader("X-Api-Version", "2022-11-28")
type Client struct {
	*kit.Client
	API  // endpoints: kitgen implements this interface
	auth // unexported endpoints, wrapped by NewWithLogin

	// Teams is a plain collection: List, Get, Create, Update, Patch,
	// Delete, All, Iterate, Pages.
	//
	//kit:resource /teams
	Teams *kit.Resource[Team]

	// Users is a collection with endpoints of its own.
	//
	//kit:resource /users
	//kit:option kit.PagedBy(kit.PageNumber{PageSize: 50})
	Users *Users
}

// API is the client's endpoints. Parameters are routed by name and type:
// one named like a {placeholder} fills it, a data model is the JSON body,
// anything else is a query parameter named in snake_case.
type API interface {
	// GetUser returns one user.
	//
	//kit:get /users/{id}
	GetUser(ctx context.Context, id int) (User, error)

	// SearchUsers finds users whose name contains q, in pages.
	//
	//kit:get /users
	//kit:omitempty teamID
	SearchUsers(ctx context.Context, q string, teamID, page, pageSize int) (UserPage, error)

	// GetTeam returns a team with its response: pass the ETag of an
	// earlier answer to get errors.Is(err, kit.ErrNotModified) when
	// nothing changed.
	//
	//kit:get /teams/{id}
	//kit:header If-None-Match: {etag}
	//kit:omitempty etag
	GetTeam(ctx context.Context, id int, etag string) (kit.Result[Team], error)

	// CreateUser creates a user.
	//
	//kit:post /users
	CreateUser(ctx context.Context, user User) (User, error)

	// ListMembers walks a team's users, following the Link headers of its
	// pages: lazily, and breaking out of the loop stops fetching. opts is
	// spread into the query of every page; nil sends none of its fields.
	//
	//kit:get /linked/teams/{id}/members
	//kit:query {opts}
	//kit:option kit.PagedBy(kit.LinkHeader{})
	ListMembers(ctx context.Context, id int, opts *MemberListOptions) iter.Seq2[User, error]

	// AddMembers creates users in a team: id fills
	// the path, payload is the JSON array body, team is the query.
	//
	//kit:post /teams/{id}/users
	AddMembers(ctx context.Context, id int, payload []User, team *string) (Team, error)
}

type auth interface {
	//kit:post /login noauth
	//kit:header Accept: application/json
	login(ctx context.Context, creds Credentials) (Token, error)
}

// Users is the users collection, with endpoints of its own that go
// through it.
type Users struct {
	*kit.Resource[User]
	UserAPI
}

// UserAPI is the users' own endpoints.
type UserAPI interface {
	// Posts returns a user's posts.
	//
	//kit:get /users/{id}/posts
	Posts(ctx context.Context, id int) ([]Post, error)

	// Deactivate marks a user inactive: the error is the only result.
	//
	//kit:patch /users/{id}
	Deactivate(ctx context.Context, id int, patch Activity) error
}

// NewWithLogin returns a client that logs in with creds on first use and
// again when a token is refused, written by hand around the unexported
// login endpoint.
func NewWithLogin(baseURL string, creds Credentials, opts ...kit.Option) (*Client, error) {
	var c *Client
	tokens := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		t, err := c.login(ctx, creds) // NoAuth: never carries the token it fetches
		return kit.Token{Value: t.AccessToken, Type: t.TokenType}, err
	})
	c, err := NewClient(baseURL, append(opts, kit.WithAuth(tokens))...)
	return c, err
}
