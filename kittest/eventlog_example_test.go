package kittest_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

type exampleUser struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// An EventLog shows what a client did, by declaration: here a walk of
// two pages and a call that failed.
func ExampleEventLog() {
	srv := httptest.NewServer(kittest.NewAPI(kittest.WithUsers(3)))
	defer srv.Close()
	var events kittest.EventLog
	c, err := kit.NewClient(srv.URL, kit.WithObserver(events.Observer()))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	ctx := context.Background()
	users := kit.NewResource[exampleUser](c, "/users", kit.PagedBy(kit.PageNumber{PageSize: 2}))
	for _, err := range users.All(ctx) {
		if err != nil {
			log.Fatal(err)
		}
	}
	users.Get(ctx, 42)

	for _, line := range events.Lines() {
		fmt.Println(line)
	}
	// Output:
	// walk start GET /users
	// call start GET /users
	// call end GET /users: 200
	// page GET /users: 1, 2 records
	// call start GET /users
	// call end GET /users: 200
	// page GET /users: 2, 1 records
	// walk end GET /users: 2 pages
	// call start GET /users/{id}
	// call end GET /users/{id}: 404 (error)
}
