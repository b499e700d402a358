package jsonpath_test

import (
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/kithttp/kit/internal/jsonpath"
)

// A paginator reads the records, from whichever of "data", "items" or
// "results" comes first, and the cursor in a single pass over the page.
func ExampleWalk() {
	body := []byte(`{
		"items": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
		"links": {"self": "/users"},
		"meta": {"next_cursor": "c3"}
	}`)
	type user struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	paths := []jsonpath.Path{{"data"}, {"items"}, {"results"}, {"meta", "next_cursor"}}

	var (
		users      []user
		haveUsers  bool
		nextCursor string
	)
	err := jsonpath.Walk(body, paths, func(i int, dec *jsontext.Decoder) error {
		switch {
		case i == 3:
			return json.UnmarshalDecode(dec, &nextCursor)
		case haveUsers: // a later candidate key: ignore it
			return dec.SkipValue()
		default:
			haveUsers = true
			return json.UnmarshalDecode(dec, &users)
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(users, nextCursor)
	// Output: [{1 a} {2 b}] c3
}

func ExampleLookup() {
	body := []byte(`{"meta": {"next_cursor": "eyJpZCI6NDJ9", "total": 120}}`)
	p, err := jsonpath.Parse("meta.next_cursor")
	if err != nil {
		fmt.Println(err)
		return
	}
	raw, found, err := jsonpath.Lookup(body, p)
	fmt.Printf("%s %v %v\n", raw, found, err)
	// Output: "eyJpZCI6NDJ9" true <nil>
}

func ExampleSyntaxError() {
	_, _, err := jsonpath.Lookup([]byte(`{"a": 1, "a": 2}`), jsonpath.Path{"a"})
	fmt.Println(err)
	// Output: jsonpath: invalid JSON at byte offset 9: jsontext: duplicate object member name "a"
}
