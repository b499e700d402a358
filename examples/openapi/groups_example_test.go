package users_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	users "github.com/kithttp/kit/examples/openapi"
	"github.com/kithttp/kit/kittest"
)

// greeting is the code under test: it calls one operation, through the
// client's UsersAPI group.
func greeting(ctx context.Context, c *users.Client, id int64) (string, error) {
	u, err := c.UsersAPI.GetUser(ctx, id)
	if err != nil {
		return "", fmt.Errorf("greet user %d: %w", id, err)
	}
	return "hello, " + u.Name, nil
}

// fakeUsers is a test's UsersAPI: GetUser answers from memory. It embeds
// the interface for the methods it does not write, which the code under
// test never calls (one would panic on the nil interface).
type fakeUsers struct {
	users.UsersAPI
}

func (fakeUsers) GetUser(_ context.Context, id int64, _ ...kit.CallOption) (users.User, error) {
	return users.User{ID: id, Name: "Test User"}, nil
}

// Example_groups calls a generated client through its groups, one field
// per tag of the document (c.UsersAPI.GetUser, c.AuthAPI.Login), and
// replaces one group in a test: &users.Client{UsersAPI: fake} needs no
// server.
func Example_groups() {
	ctx := context.Background()
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := users.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	s, err := greeting(ctx, c, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s)

	s, err = greeting(ctx, &users.Client{UsersAPI: fakeUsers{}}, 7)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s)
	// Output:
	// hello, Ada Lovelace
	// hello, Test User
}
