package kit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/kithttp/kit"
)

// The primary region is down (its server is closed: connections are
// refused); the call goes to the next base URL at once, with the token
// bound to both, and the observer is told.
func ExampleWithFailover() {
	primary := httptest.NewServer(http.NotFoundHandler())
	primary.Close() // a dead origin
	backup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"path":%q,"authorized":%t}`, r.URL.Path, r.Header.Get("Authorization") == "Bearer tok")
	}))
	defer backup.Close()

	c, err := kit.NewClient(primary.URL+"/v1",
		kit.WithAuth(kit.Bearer("tok")),
		kit.WithFailover(kit.Failover{URLs: []string{backup.URL + "/eu/v1"}, BindCredentials: true}),
		kit.WithObserver(kit.Observer{Failover: func(_ context.Context, f kit.FailoverInfo) {
			fmt.Println("failing over: the primary refused the connection")
		}}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	type answer struct {
		Path       string `json:"path"`
		Authorized bool   `json:"authorized"`
	}
	a, err := kit.Get[struct{}, answer]("/users/7").Call(context.Background(), c, struct{}{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", a)
	// Output:
	// failing over: the primary refused the connection
	// {Path:/eu/v1/users/7 Authorized:true}
}
