package main

import (
	"context"
	"os"
)

// The run's trace: the retried call has one span with a retry event; the
// token's first fetch and its refresh after a 401 are events of the calls
// that needed them, and the login calls that fetched the token are their
// children; the walk is one span with a child per page.
func Example() {
	if err := run(context.Background(), os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// demo run
	//   GET /me  200
	//     POST /login  200
	//     event token renewal  after_401=false
	//   GET /users/{id}  200  resend_count=1
	//     event retry  error.type=503  attempt=1
	//   GET /me  200
	//     POST /login  200
	//     event token renewal  after_401=true
	//   walk GET /users  pages=3
	//     GET /users  200
	//     event page  page=1  records=2
	//     GET /users  200
	//     event page  page=2  records=2
	//     GET /users  200
	//     event page  page=3  records=1
}
