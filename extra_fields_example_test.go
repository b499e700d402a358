package kit_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// WithQuery and WithJSONField send what the declaration does not name: a
// query parameter and a body member the API added after the client was
// written. kittest's /echo describes the request it received.
func ExampleWithJSONField() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	type NewUser struct {
		Name string `json:"name"`
	}
	type Echo struct {
		RequestURI string         `json:"request_uri"`
		Body       map[string]any `json:"body"`
	}
	createUser := kit.Post[struct{ Body NewUser }, Echo]("/echo")

	e, err := createUser.Call(context.Background(), c, struct{ Body NewUser }{NewUser{"Ada"}},
		kit.WithQuery("dry_run", "true"),
		kit.WithJSONField("metadata.source", "import"),
		kit.WithJSONField("name", "Ada Lovelace"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.RequestURI)
	fmt.Println(e.Body)
	// Output:
	// /echo?dry_run=true
	// map[metadata:map[source:import] name:Ada Lovelace]
}
