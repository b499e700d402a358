package kit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/url"

	"github.com/kithttp/kit"
)

// Stripe's lists: the cursor is the id of the page's last record, sent
// back in starting_after, and has_more false ends the walk (no request
// past the end). kittest's /stripe/users is such a list.
func ExampleCursor_stripe() {
	srv, c := demoAPI()
	defer srv.Close()

	customers := kit.Paged[struct{ Limit int }, User]("/stripe/users",
		kit.PagedBy(kit.Cursor{CursorParam: "starting_after", RecordKey: "id", HasMoreKey: "has_more"}))
	var pages, n int
	for page, err := range customers.Pages(context.Background(), c, struct{ Limit int }{100}) {
		if err != nil {
			log.Fatal(err)
		}
		pages++
		n += len(page.Records)
		if pages == 2 {
			fmt.Println("page 2 was", page.Response.Request.URL.RawQuery)
		}
	}
	fmt.Println(n, "users in", pages, "pages")
	// Output:
	// page 2 was limit=100&starting_after=100
	// 250 users in 3 pages
}

// A collection whose pages name the next page's URL in the body, as
// Twilio (next_page_uri), DigitalOcean (links.pages.next) and Microsoft
// Graph (@odata.nextLink) do. The URL may be relative; it must stay on the
// client's origin.
func ExampleNextLink() {
	srv, c := demoAPI()
	defer srv.Close()

	users := kit.Paged[struct{ PageSize int }, User]("/next/users",
		kit.PagedBy(kit.NextLink{Key: "links.next"}))
	n := 0
	for _, err := range users.Iterate(context.Background(), c, struct{ PageSize int }{100}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println(n, "users")
	// Output:
	// 250 users
}

// UserSearch is the body of kittest's POST /search/users, sent with every
// page of the walk.
type UserSearch struct {
	Filter struct {
		TeamID int `json:"team_id"`
	} `json:"filter"`
	PageSize int `json:"page_size"`
}

// A search walked with POST requests, Notion's shape: the body model goes
// with every page, and the cursor is a top-level field of it.
func ExamplePagedPost() {
	srv, c := demoAPI()
	defer srv.Close()

	search := kit.PagedPost[struct{ Body UserSearch }, User]("/search/users",
		kit.PagedBy(kit.Cursor{CursorParam: "start_cursor", NextKey: "next_cursor", HasMoreKey: "has_more", InBody: true}))
	var q UserSearch
	q.Filter.TeamID, q.PageSize = 4, 20
	var pages, n int
	for page, err := range search.Pages(context.Background(), c, struct{ Body UserSearch }{q}) {
		if err != nil {
			log.Fatal(err)
		}
		pages++
		n += len(page.Records)
	}
	fmt.Println(n, "users of team 4 in", pages, "POST requests")
	// Output:
	// 50 users of team 4 in 3 POST requests
}

// ChargeParams is a Stripe-like charge, sent as a nested form.
type ChargeParams struct {
	Amount   int               `json:"amount"`
	Currency string            `json:"currency"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Expand   []string          `json:"expand,omitempty"`
	Items    []struct {
		Price string `json:"price"`
	} `json:"items,omitempty"`
}

// Nested form bodies in Stripe's style: FormBody(kit.FormIndexed) writes
// maps and structs as k[key]=v and slices with indexes. kittest's
// POST /charges checks every key and answers what it read.
func ExampleFormBody_nested() {
	srv, c := demoAPI()
	defer srv.Close()

	createCharge := kit.Post[struct{ Body ChargeParams }, *kit.Response]("/charges", kit.FormBody(kit.FormIndexed))
	p := ChargeParams{Amount: 2000, Currency: "eur", Metadata: map[string]string{"order_id": "6735"}, Expand: []string{"customer"}}
	p.Items = append(p.Items, struct {
		Price string `json:"price"`
	}{"price_1"})
	resp, err := createCharge.Call(context.Background(), c, struct{ Body ChargeParams }{p})
	if err != nil {
		log.Fatal(err)
	}
	body, _ := resp.Request.GetBody()
	var sent [256]byte
	n, _ := body.Read(sent[:])
	form, _ := url.QueryUnescape(string(sent[:n]))
	fmt.Println("sent:", form)
	fmt.Println(resp.StatusCode, string(resp.Bytes()))
	// Output:
	// sent: amount=2000&currency=eur&expand[0]=customer&items[0][price]=price_1&metadata[order_id]=6735
	// 201 {"object":"charge","amount":2000,"currency":"eur","metadata":{"order_id":"6735"},"expand":["customer"],"items":[{"price":"price_1","quantity":0}]}
}

// Map-valued query entries are sent as k[key]=v, OpenAPI's deepObject.
func ExampleEndpoint_deepObject() {
	srv, c := demoAPI()
	defer srv.Close()

	type echo struct {
		RequestURI string `json:"request_uri"`
	}
	list := kit.Get[struct {
		Limit  int
		Filter map[string]map[string]int64 // spread: each entry is a parameter
	}, echo]("/echo")
	got, err := list.Call(context.Background(), c, struct {
		Limit  int
		Filter map[string]map[string]int64
	}{Limit: 10, Filter: map[string]map[string]int64{"created": {"gte": 1700000000}}})
	if err != nil {
		log.Fatal(err)
	}
	uri, _ := url.QueryUnescape(got.RequestURI)
	fmt.Println(uri)
	// Output:
	// /echo?created[gte]=1700000000&limit=10
}

// Profile changes a user's profile: absent fields are left alone, null
// clears one, a value sets it (false and 0 included).
type Profile struct {
	Nickname kit.Nullable[string] `json:"nickname,omitzero" validate:"omitempty,min=2"`
	Active   kit.Nullable[bool]   `json:"active,omitzero"`
	Limit    kit.Nullable[int]    `json:"limit,omitzero"`
	Team     kit.Nullable[string] `json:"team,omitzero"`
}

// A PATCH that sends "nickname": null, "active": false and "limit": 0
// and leaves team alone; decoding tells a missing key from null.
func ExampleNullable() {
	srv, c := demoAPI()
	defer srv.Close()

	type echo struct {
		Body Profile `json:"body"`
	}
	patch := kit.Patch[struct{ Body Profile }, echo]("/echo")
	got, err := patch.Call(context.Background(), c, struct{ Body Profile }{Profile{
		Nickname: kit.Null[string](),
		Active:   kit.Value(false),
		Limit:    kit.Value(0),
	}})
	if err != nil {
		log.Fatal(err)
	}
	sent, _ := json.Marshal(got.Body)
	fmt.Println(string(sent))
	limit, ok := got.Body.Limit.Get()
	fmt.Println(got.Body.Nickname.IsNull(), got.Body.Team.IsZero(), limit, ok)
	// Output:
	// {"nickname":null,"active":false,"limit":0}
	// true true 0 true
}
