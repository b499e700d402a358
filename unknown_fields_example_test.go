package kit_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// A model with a kit.UnknownFields field tagged `json:",embed"` keeps the
// members its fields do not name, and sends them back: here a user model
// that knows only the name and email of kittest's users.
func ExampleUnknownFields() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	type User struct {
		Name  string            `json:"name"`
		Email string            `json:"email"`
		Extra kit.UnknownFields `json:",embed"`
	}
	ctx := context.Background()
	u, err := kit.Get[struct{ ID int }, User]("/users/{id}").Call(ctx, c, struct{ ID int }{2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.Name, string(u.Extra["team_id"]), string(u.Extra["active"]))

	type Echo struct {
		Body map[string]any `json:"body"`
	}
	u.Name = "Grace Hopper"
	e, err := kit.Put[struct{ Body User }, Echo]("/echo").Call(ctx, c, struct{ Body User }{u})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.Body["name"], e.Body["team_id"], e.Body["id"])
	// Output:
	// Alan Turing 2 true
	// Grace Hopper 2 2
}
