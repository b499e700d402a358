// Command linkcheck calls one endpoint with kit's default options; a test
// links it and reads what the linker keeps (see link_ext_test.go).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/kithttp/kit"
)

// User is the endpoint's result model.
type User struct {
	ID   int    `json:"id"`
	Name string `json:"name" validate:"required"`
}

var getUser = kit.Get[struct{ ID int }, User]("/users/{id}")

func main() {
	c, err := kit.NewClient("http://127.0.0.1:1")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	u, err := getUser.Call(context.Background(), c, struct{ ID int }{1})
	fmt.Println(u, err)
}
