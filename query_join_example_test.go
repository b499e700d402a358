package kit_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kithttp/kit"
)

// A slice tagged csv, ssv or pipes is sent as one query parameter, its
// elements joined with ",", " " or "|": OpenAPI's style form,
// spaceDelimited and pipeDelimited with explode false (Microsoft Graph's
// $select). Untagged, a slice repeats its name.
func ExampleEndpoint_joinedList() {
	srv, c := demoAPI()
	defer srv.Close()

	type ListUsers struct {
		Select []string `kit:"$select,csv"`
		Search []string `kit:"search,ssv"`
		Tags   []string `kit:"tags"`
	}
	type echo struct {
		Query map[string][]string `json:"query"`
	}
	list := kit.Get[ListUsers, echo]("/echo")
	got, err := list.Call(context.Background(), c, ListUsers{
		Select: []string{"id", "displayName"},
		Search: []string{"ann", "lee"},
		Tags:   []string{"a", "b"},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, k := range []string{"$select", "search", "tags"} {
		fmt.Printf("%s: %q\n", k, got.Query[k])
	}
	// Output:
	// $select: ["id,displayName"]
	// search: ["ann lee"]
	// tags: ["a" "b"]
}
