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

// Tier is a union as kitgen writes one for a oneOf: it holds one variant,
// and its JSON is that variant's.
type Tier struct {
	upTo *int64
	span *TierRange
}

// TierRange is one variant of Tier.
type TierRange struct {
	GTE int64 `json:"gte"`
	LT  int64 `json:"lt"`
}

// MarshalJSON writes the variant Tier holds.
func (t Tier) MarshalJSON() ([]byte, error) {
	switch {
	case t.upTo != nil:
		return json.Marshal(*t.upTo)
	case t.span != nil:
		return json.Marshal(t.span)
	}
	return []byte("null"), nil
}

// A list of objects and a union in a deepObject query, written as Rails,
// PHP and Stripe read them: a list at indexes, a union as the variant it
// holds. kittest's /brackets answers what such a server reads.
func ExampleEndpoint_queryObjectLists() {
	srv, c := demoAPI()
	defer srv.Close()

	type Line struct {
		Price    string `json:"price"`
		Quantity int    `json:"quantity,omitempty"`
	}
	type Query struct {
		Lines []Line `kit:"lines,query"`
		Tiers []Tier `kit:"tiers,query"`
	}
	type read struct {
		Query json.RawMessage `json:"query"`
	}
	preview := kit.Get[Query, read]("/brackets")
	ten := int64(10)
	got, err := preview.Call(context.Background(), c, Query{
		Lines: []Line{{Price: "price_1", Quantity: 2}, {Price: "price_2"}},
		Tiers: []Tier{{upTo: &ten}, {span: &TierRange{GTE: 10, LT: 100}}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(got.Query))
	// Output:
	// {"lines":[{"price":"price_1","quantity":"2"},{"price":"price_2"}],"tiers":["10",{"gte":"10","lt":"100"}]}
}
