package linkheader_test

import (
	"fmt"
	"net/http"

	"github.com/kithttp/kit/internal/linkheader"
)

func ExampleFind() {
	h := http.Header{}
	h.Add("Link", `<https://api.example.com/items?page=2>; rel="next", <https://api.example.com/items?page=9>; rel="last"`)
	h.Add("Link", `<https://api.example.com/items?page=1>; rel="first prev"`)

	next, ok := linkheader.Find(h.Values("Link"), "next")
	fmt.Println(next, ok)
	_, ok = linkheader.Find(h.Values("Link"), "self")
	fmt.Println(ok)
	// Output:
	// https://api.example.com/items?page=2 true
	// false
}

func ExampleParse() {
	links := linkheader.Parse([]string{`</chapter2>; rel="Previous"; title="Chapter 2, \"Basics\""`})
	for _, l := range links {
		fmt.Printf("%s %q %q\n", l.URI, l.Rels, l.Params["title"])
	}
	// Output: /chapter2 ["previous"] "Chapter 2, \"Basics\""
}
