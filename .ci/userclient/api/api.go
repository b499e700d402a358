package api

import (
	"context"

	"github.com/kithttp/kit"
)

//go:generate go tool kitgen

// Client is the API's client; kitgen writes NewClient and BindClient.
//
//kit:client
//kit:option kit.WithHeader("X-Api-Version", "2022-11-28")
type Client struct {
	*kit.Client // BaseURL, Close
	API         // endpoints: kitgen implements this interface

	//kit:resource /users
	Users *kit.Resource[User] // List, Get, Create, Update, Patch, Delete, All, Iterate, Pages
}

type API interface {
	//kit:get /users/{id}
	GetUser(ctx context.Context, id int) (User, error)

	//kit:get /teams/{id}
	//kit:header If-None-Match: {etag}
	//kit:omitempty etag
	GetTeam(ctx context.Context, id int, etag string) (kit.Result[Team], error)

	//kit:post /teams/{id}/users
	AddMembers(ctx context.Context, id int, payload []User, team *string) (Team, error)
}

type User struct {
	ID    int    `json:"id,omitempty"`
	Name  string `json:"name"  validate:"required"`
	Email string `json:"email" validate:"required,email"`
}

type Team struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	MemberIDs []int  `json:"member_ids"`
}
