package github_test

import (
	"context"
	"iter"
	"net/http"
	"reflect"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/examples/kitgen/github"
	"github.com/kithttp/kit/kittest"
)

// This file is the client of github.go written by hand with kit's
// endpoints, as a user would without kitgen: a parameter struct, an
// endpoint variable and a method per endpoint, and a constructor filling
// the resources. It is here to be measured against github.go (the README
// gives the line counts) and checked to send the same requests.

type handClient struct {
	*kit.Client
	Teams *kit.Resource[github.Team]
	Users *handUsers
}

type handUsers struct {
	*kit.Resource[github.User]
}

type (
	getUserParams struct{ ID int }
	searchParams  struct {
		Q        string
		TeamID   int `kit:"team_id,omitempty"`
		Page     int
		PageSize int
	}
	getTeamParams struct {
		ID   int
		ETag string `kit:"If-None-Match,header,omitempty"`
	}
	createUserParams  struct{ User github.User }
	listMembersParams struct {
		ID int
		github.MemberListOptions
	}
	addMembersParams struct {
		ID      int
		Payload []github.User
		Team    *string
	}
	loginParams struct {
		Creds  github.Credentials
		Accept string `kit:"Accept,header"`
	}
	postsParams      struct{ ID int }
	deactivateParams struct {
		ID    int
		Patch github.Activity
	}
)

var (
	getUser    = kit.Get[getUserParams, github.User]("/users/{id}")
	searchUser = kit.Get[searchParams, github.UserPage]("/users")
	getTeam    = kit.Get[getTeamParams, kit.Result[github.Team]]("/teams/{id}")
	createUser = kit.Post[createUserParams, github.User]("/users")
	addMembers = kit.Post[addMembersParams, github.Team]("/teams/{id}/users")
	members    = kit.Paged[listMembersParams, github.User]("/linked/teams/{id}/members", kit.PagedBy(kit.LinkHeader{}))
	login      = kit.Post[loginParams, github.Token]("/login", kit.NoAuth())
	posts      = kit.Get[postsParams, []github.Post]("/users/{id}/posts")
	deactivate = kit.Patch[deactivateParams, *kit.Response]("/users/{id}")
)

func newHandClient(baseURL string, opts ...kit.Option) (*handClient, error) {
	c, err := kit.NewClient(baseURL, append([]kit.Option{kit.WithHeader("X-Api-Version", "2022-11-28")}, opts...)...)
	if err != nil {
		return nil, err
	}
	return &handClient{
		Client: c,
		Teams:  kit.NewResource[github.Team](c, "/teams"),
		Users:  &handUsers{kit.NewResource[github.User](c, "/users", kit.PagedBy(kit.PageNumber{PageSize: 50}))},
	}, nil
}

func newHandClientWithLogin(baseURL string, creds github.Credentials, opts ...kit.Option) (*handClient, error) {
	var c *handClient
	tokens := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		t, err := login.Call(ctx, c, loginParams{Creds: creds, Accept: "application/json"})
		return kit.Token{Value: t.AccessToken, Type: t.TokenType}, err
	})
	c, err := newHandClient(baseURL, append(opts, kit.WithAuth(tokens))...)
	return c, err
}

func (c *handClient) GetUser(ctx context.Context, id int) (github.User, error) {
	return getUser.Call(ctx, c, getUserParams{id})
}

func (c *handClient) SearchUsers(ctx context.Context, q string, teamID, page, pageSize int) (github.UserPage, error) {
	return searchUser.Call(ctx, c, searchParams{q, teamID, page, pageSize})
}

func (c *handClient) GetTeam(ctx context.Context, id int, etag string) (kit.Result[github.Team], error) {
	return getTeam.Call(ctx, c, getTeamParams{id, etag})
}

func (c *handClient) CreateUser(ctx context.Context, user github.User) (github.User, error) {
	return createUser.Call(ctx, c, createUserParams{user})
}

func (c *handClient) ListMembers(ctx context.Context, id int, opts *github.MemberListOptions) iter.Seq2[github.User, error] {
	p := listMembersParams{ID: id}
	if opts != nil {
		p.MemberListOptions = *opts
	}
	return members.Iterate(ctx, c, p)
}

func (c *handClient) AddMembers(ctx context.Context, id int, payload []github.User, team *string) (github.Team, error) {
	return addMembers.Call(ctx, c, addMembersParams{id, payload, team})
}

func (u *handUsers) Posts(ctx context.Context, id int) ([]github.Post, error) {
	return posts.Call(ctx, u, postsParams{id})
}

func (u *handUsers) Deactivate(ctx context.Context, id int, patch github.Activity) error {
	_, err := deactivate.Call(ctx, u, deactivateParams{id, patch})
	return err
}

// TestHandwrittenMatchesGenerated checks that the hand-written client sends
// exactly the requests of the generated one, so that the two measure the
// same client.
func TestHandwrittenMatchesGenerated(t *testing.T) {
	api := kittest.NewAPI(kittest.WithRequireAuth(true))
	genEngine := &kittest.RecordingEngine{Handler: api}
	handEngine := &kittest.RecordingEngine{Handler: kittest.NewAPI(kittest.WithRequireAuth(true))}
	creds := github.Credentials{Username: "demo", Password: "s3cret"}
	gen, err := github.NewWithLogin("http://api.test", creds, kit.WithSyncEngine(genEngine))
	if err != nil {
		t.Fatal(err)
	}
	hand, err := newHandClientWithLogin("http://api.test", creds, kit.WithSyncEngine(handEngine))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	team := "Payments"
	newUser := github.User{Name: "Grace Hopper", Email: "grace@example.com"}
	for _, call := range []func(g *github.Client, h *handClient) (any, any){
		func(g *github.Client, h *handClient) (any, any) {
			return call2(g.GetUser(ctx, 3)), call2(h.GetUser(ctx, 3))
		},
		func(g *github.Client, h *handClient) (any, any) {
			return call2(g.SearchUsers(ctx, "a", 0, 2, 5)), call2(h.SearchUsers(ctx, "a", 0, 2, 5))
		},
		func(g *github.Client, h *handClient) (any, any) {
			return call2(g.SearchUsers(ctx, "", 3, 1, 5)), call2(h.SearchUsers(ctx, "", 3, 1, 5))
		},
		func(g *github.Client, h *handClient) (any, any) {
			gr, gerr := g.GetTeam(ctx, 1, `"x"`)
			hr, herr := h.GetTeam(ctx, 1, `"x"`)
			return []any{gr.Value, gerr}, []any{hr.Value, herr}
		},
		func(g *github.Client, h *handClient) (any, any) {
			return call2(g.CreateUser(ctx, newUser)), call2(h.CreateUser(ctx, newUser))
		},
		func(g *github.Client, h *handClient) (any, any) {
			active := true
			opts := &github.MemberListOptions{Active: &active, PerPage: 4}
			return collect(g.ListMembers(ctx, 3, opts)), collect(h.ListMembers(ctx, 3, opts))
		},
		func(g *github.Client, h *handClient) (any, any) {
			return call2(g.AddMembers(ctx, 2, []github.User{newUser}, &team)), call2(h.AddMembers(ctx, 2, []github.User{newUser}, &team))
		},
		func(g *github.Client, h *handClient) (any, any) {
			return call2(g.Users.Posts(ctx, 1)), call2(h.Users.Posts(ctx, 1))
		},
		func(g *github.Client, h *handClient) (any, any) {
			return g.Users.Deactivate(ctx, 4, github.Activity{}), h.Users.Deactivate(ctx, 4, github.Activity{})
		},
		func(g *github.Client, h *handClient) (any, any) {
			return call2(g.Users.Get(ctx, 4)), call2(h.Users.Get(ctx, 4))
		},
		func(g *github.Client, h *handClient) (any, any) {
			return call2(g.Teams.List(ctx, nil)), call2(h.Teams.List(ctx, nil))
		},
	} {
		genEngine.Reset()
		handEngine.Reset()
		got, want := call(gen, hand)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("generated returned %+v, hand-written %+v", got, want)
		}
		g, h := genEngine.Requests(), handEngine.Requests()
		if len(g) != len(h) {
			t.Fatalf("generated sent %d requests, hand-written %d", len(g), len(h))
		}
		for i := range g {
			stripToken(g[i].Header)
			stripToken(h[i].Header)
			if !reflect.DeepEqual(g[i], h[i]) {
				t.Errorf("generated sent %+v\nhand-written  %+v", g[i], h[i])
			}
		}
	}
}

func call2[T any](v T, err error) []any { return []any{v, err} }

// collect ranges over a walk, up to ten records.
func collect[T any](seq iter.Seq2[T, error]) []any {
	var out []any
	for v, err := range seq {
		if out = append(out, v, err); len(out) == 20 {
			break
		}
	}
	return out
}

// stripToken removes the bearer token, different for each API.
func stripToken(h http.Header) {
	if h.Get("Authorization") != "" {
		h.Set("Authorization", "Bearer <token>")
	}
}
