package kit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// WithErrorModelFor gives one endpoint's 400 a model of its own: a failed
// login answers with a login flow, whose message a login screen shows,
// while the client's model decodes every other error. A 400 that is not a
// login flow leaves Model nil: errors.As finds no all-zero flow.
func ExampleWithErrorModelFor() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithErrorModel[kittest.APIError]())
	if err != nil {
		log.Fatal(err)
	}
	type Credentials struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	login := kit.Post[struct{ Body any }, map[string]any]("/flows/login",
		kit.WithErrorModelFor[kittest.LoginFlow](http.StatusBadRequest))
	ctx := context.Background()

	_, err = login.Call(ctx, c, struct{ Body any }{Credentials{"demo", "wrong"}})
	var flow *kittest.LoginFlow
	if errors.As(err, &flow) {
		fmt.Println("flow:", flow.UI.Messages[0].ID, flow.UI.Messages[0].Text)
	}

	type NotStrings struct {
		Username int `json:"username"`
	}
	_, err = login.Call(ctx, c, struct{ Body any }{NotStrings{1}}) // a 400 with an APIError
	var he *kit.HTTPError
	var apiErr *kittest.APIError
	fmt.Println(errors.As(err, &flow), errors.As(err, &apiErr), errors.As(err, &he) && he.StatusCode == 400)
	// Output:
	// flow: 4000006 The provided credentials are invalid, check for spelling mistakes in your password or username.
	// false false true
}
