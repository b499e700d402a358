package kit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/url"

	"github.com/kithttp/kit"
)

// A map or struct field tagged with a name and query is sent in brackets
// under that name, nested to any depth: OpenAPI's deepObject style.
func ExampleEndpoint_queryObject() {
	srv, c := demoAPI()
	defer srv.Close()

	type Range struct {
		GT *int64 `json:"gt,omitempty"`
		LT *int64 `json:"lt,omitempty"`
	}
	type Owner struct {
		Login string `json:"login"`
	}
	type Filter struct {
		State string `json:"state,omitempty"`
		Owner *Owner `json:"owner,omitempty"`
	}
	type Query struct {
		Limit    int               `kit:"limit"`
		Created  *Range            `kit:"created,query"`
		Filter   Filter            `kit:"filter,query"`
		Metadata map[string]string `kit:"metadata,query"`
	}
	type echo struct {
		RequestURI string `json:"request_uri"`
	}
	list := kit.Get[Query, echo]("/echo")
	gt := int64(1700000000)
	got, err := list.Call(context.Background(), c, Query{
		Limit:    10,
		Created:  &Range{GT: &gt},
		Filter:   Filter{State: "open", Owner: &Owner{Login: "ann"}},
		Metadata: map[string]string{"order": "6735"},
	})
	if err != nil {
		log.Fatal(err)
	}
	uri, _ := url.QueryUnescape(got.RequestURI)
	fmt.Println(uri)
	// Output:
	// /echo?created[gt]=1700000000&filter[owner][login]=ann&filter[state]=open&limit=10&metadata[order]=6735
}

// A field tagged `kit:",body"` is the JSON body whatever its type: here a
// free-form object, as GitHub's app manifest conversion takes.
func ExampleEndpoint_bodyTag() {
	srv, c := demoAPI()
	defer srv.Close()

	type echo struct {
		Path string          `json:"path"`
		Body json.RawMessage `json:"body"`
	}
	convert := kit.Post[struct {
		Code     string
		Manifest map[string]any `kit:",body"`
	}, echo]("/echo/app-manifests/{code}/conversions")
	got, err := convert.Call(context.Background(), c, struct {
		Code     string
		Manifest map[string]any `kit:",body"`
	}{"c0de", map[string]any{"name": "octoapp", "public": true}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Path, string(got.Body))
	// Output:
	// /echo/app-manifests/c0de/conversions {"name":"octoapp","public":true}
}
