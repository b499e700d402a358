package swagger2_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit/examples/openapi/swagger2"
	"github.com/kithttp/kit/kittest"
)

// Example calls a client that kitgen openapi generated from a Swagger 2.0
// document (spec.yaml), converted on load into OpenAPI 3.0: its formData
// parameters became Login's form body, its body parameter CreateUser's
// JSON body, its host, basePath and schemes DefaultBaseURL, and its
// definitions the models, Error among them as the client's error model.
func Example() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := swagger2.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()

	tok, err := c.API.Login(ctx, swagger2.LoginRequest{Username: "demo", Password: "s3cret"}) // a form body
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("login (form body):", tok.TokenType, "token")

	made, err := c.API.CreateUser(ctx, swagger2.NewUser{Name: "Grace Hopper", Email: "grace@example.com"}) // a JSON body
	if err != nil {
		log.Fatal(err)
	}
	u, err := c.API.GetUser(ctx, made.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created and read back:", u.Name)

	n := 0
	for _, err := range c.API.ListUsers(ctx, nil) { // Link: rel="next"
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("walked by Link header:", n, "users")

	_, err = c.API.GetUser(ctx, 999999)
	var apiErr *swagger2.Error
	if errors.As(err, &apiErr) {
		fmt.Println("error model:", apiErr)
	}
	fmt.Println("DefaultBaseURL, from host, basePath and schemes:", swagger2.DefaultBaseURL)
	// Output:
	// login (form body): Bearer token
	// created and read back: Grace Hopper
	// walked by Link header: 251 users
	// error model: user 999999 not found: not_found
	// DefaultBaseURL, from host, basePath and schemes: https://api.example.com/
}
