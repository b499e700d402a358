package kit_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// A RequestOption works at three levels, and the nearest wins: the call's
// over the declaration's over the client's. Here one option, a header, is
// given at each level. The endpoint declared without it sends the client's;
// the endpoint declared with it sends its own; a call that gives it sends
// the call's. Every request option (WithTimeout, WithRetry,
// WithErrorModel, WithIdempotencyHeader, ...) follows the same rule.
func ExampleRequestOption() {
	source := func(v string) kit.RequestOption { return kit.WithHeader("X-Source", v) }

	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, source("client")) // client level
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	ctx := context.Background()

	plain := kit.Get[kit.NoParams, echoed]("/echo")
	declared := kit.Get[kit.NoParams, echoed]("/echo", source("declaration")) // declaration level

	e, err := plain.Call(ctx, c, kit.NoParams{})
	fmt.Println("plain:", e.Headers["x-source"], err)
	e, err = declared.Call(ctx, c, kit.NoParams{})
	fmt.Println("declared:", e.Headers["x-source"], err)
	e, err = declared.Call(ctx, c, kit.NoParams{}, source("call")) // call level
	fmt.Println("declared, at the call:", e.Headers["x-source"], err)
	// Output:
	// plain: [client] <nil>
	// declared: [declaration] <nil>
	// declared, at the call: [call] <nil>
}
