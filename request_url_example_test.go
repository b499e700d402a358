package kit_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// A {name...} placeholder keeps its value's slashes, each segment escaped
// on its own: a file path, or a branch named feature/x. Anywhere else a
// slash in a value is escaped, so that it stays in its segment. A segment
// that is empty, "." or ".." is an error, and nothing is sent.
func ExampleGet_restOfPath() {
	srv := httptest.NewServer(kittest.NewAPI()) // /echo/{rest...} describes the request
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	type Echo struct {
		RequestURI string `json:"request_uri"`
	}
	type FileRef struct {
		Repo string
		Path string
	}
	file := kit.Get[FileRef, Echo]("/echo/{repo}/contents/{path...}")

	e, err := file.Call(context.Background(), c, FileRef{Repo: "kit/main", Path: "docs/read me.md"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.RequestURI)

	_, err = file.Call(context.Background(), c, FileRef{Repo: "kit", Path: "docs/../../admin"})
	fmt.Println(err != nil)
	// Output:
	// /echo/kit%2Fmain/contents/docs/read%20me.md
	// true
}
