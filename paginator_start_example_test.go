package kit_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// A server whose pages count from 0 (kittest's /zero/users): a walk from
// page 1 would lose the first page. Start says where pages start; when an
// API's documentation does not say, StartUnknown lets the server decide:
// the first request has no page parameter, and each next page's number
// comes from the page before ({"page": N}, or its Link rel="next").
func ExamplePageNumber_start() {
	srv := httptest.NewServer(kittest.NewAPI(kittest.WithUsers(24)))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range []kit.PageNumber{
		{PageSize: 5, Start: kit.StartAtZero},
		{PageSize: 5, Start: kit.StartUnknown},
		{PageSize: 5}, // StartAtOne: wrong for this server
	} {
		users := kit.NewResource[User](c, "/zero/users", kit.PagedBy(p))
		n, first := 0, 0
		for u, err := range users.All(context.Background()) {
			if err != nil {
				log.Fatal(err)
			}
			if n == 0 {
				first = u.ID
			}
			n++
		}
		fmt.Printf("%#v: %d users, from user %d\n", p.Start, n, first)
	}
	// Output:
	// kit.StartAtZero: 24 users, from user 1
	// kit.StartUnknown: 24 users, from user 1
	// kit.StartAtOne: 19 users, from user 6
}
