package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// strictUser panics in its Validate method: a bug in user code that kit
// runs on a goroutine of its own for an async call.
type strictUser struct {
	Name string `json:"name"`
}

func (strictUser) Validate() error { panic("validator bug") }

// ExamplePanicError shows a panic in user code on one of kit's goroutines
// (here a response model's Validate method, run for Endpoint.Go) returned
// to the caller as a *kit.PanicError instead of ending the process. Its %+v
// form also prints the stack.
func ExamplePanicError() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ac.Close(context.Background())

	getUser := kit.Get[struct{ ID int }, strictUser]("/users/{id}")
	_, err = getUser.Go(context.Background(), ac, struct{ ID int }{1}).Await(context.Background())
	var pe *kit.PanicError
	if errors.As(err, &pe) {
		fmt.Println("recovered:", pe.Value)
		fmt.Println("stack kept:", len(pe.Stack) > 0)
	}
	// Output:
	// recovered: validator bug
	// stack kept: true
}
