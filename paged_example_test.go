package kit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// MemberQuery addresses the members of one team: ID fills {id}, Active is
// sent as a query parameter on every page (when not nil).
type MemberQuery struct {
	ID     int
	Active *bool
}

// teamMembers is a nested collection: its path has a placeholder, so it is
// a paged endpoint rather than a Resource.
var teamMembers = kit.Paged[MemberQuery, User]("/teams/{id}/members",
	kit.PagedBy(kit.PageNumber{PageSize: 10}))

func ExamplePaged() {
	srv, c := demoAPI()
	defer srv.Close()

	active := true
	n := 0
	for u, err := range teamMembers.Iterate(context.Background(), c, MemberQuery{ID: 2, Active: &active}) {
		if err != nil {
			log.Fatal(err)
		}
		if n < 3 {
			fmt.Println(u.ID, u.Name)
		}
		n++
	}
	fmt.Println(n, "active members of team 2")
	// Output:
	// 2 Alan Turing
	// 7 Frances Allen
	// 17 Frances McCarthy
	// 34 active members of team 2
}

// A pipelined walk: with WithPrefetch(8) and a paginator that can name
// pages ahead (PageNumber), GoIterate keeps up to 8 page requests in
// flight while the loop works through the records, in order.
func ExamplePagedEndpoint_GoIterate() {
	srv := httptest.NewServer(kittest.NewAPI(kittest.WithUsers(1000)))
	defer srv.Close()
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer ac.Close(context.Background())

	members := kit.Paged[MemberQuery, User]("/teams/{id}/members",
		kit.PagedBy(kit.PageNumber{PageSize: 10}), kit.WithPrefetch(8))
	n, last := 0, 0
	for u, err := range members.GoIterate(context.Background(), ac, MemberQuery{ID: 5}) {
		if err != nil {
			log.Fatal(err)
		}
		if u.ID <= last {
			log.Fatal("out of order")
		}
		n, last = n+1, u.ID
	}
	fmt.Println(n, "members of team 5, the last one", last)
	// Output:
	// 200 members of team 5, the last one 1000
}

// TotalCount is a custom paginator for APIs in the style of json-server:
// _page and _limit parameters, and the size of the whole collection in an
// X-Total-Count header. It stops on the last page without asking for an
// empty one after it, and it implements kit.Lookahead (page n+1 follows
// page n whatever page n holds), so that a pipelined walk can keep several
// pages in flight.
type TotalCount struct{ Limit int }

// FirstPage asks for page 1.
func (p TotalCount) FirstPage(q url.Values) kit.PageRequest {
	q.Set("_page", "1")
	q.Set("_limit", strconv.Itoa(p.Limit))
	return kit.PageRequest{Params: q}
}

// NextPage asks for the next page until the total is reached.
func (p TotalCount) NextPage(resp *kit.Response, prev kit.PageRequest) (*kit.PageRequest, error) {
	total, err := strconv.Atoi(resp.Header.Get("X-Total-Count"))
	if err != nil {
		return nil, fmt.Errorf("X-Total-Count: %w", err)
	}
	page, _ := strconv.Atoi(prev.Params.Get("_page"))
	if page*p.Limit >= total {
		return nil, nil
	}
	next, _ := p.PageAfter(prev)
	return &next, nil
}

// PageAfter names the page after prev without its response.
func (p TotalCount) PageAfter(prev kit.PageRequest) (kit.PageRequest, bool) {
	page, err := strconv.Atoi(prev.Params.Get("_page"))
	if err != nil {
		return kit.PageRequest{}, false
	}
	next := prev.Clone() // never modify prev
	next.Params.Set("_page", strconv.Itoa(page+1))
	return next, true
}

func ExampleLookahead() {
	// A json-server-like API of 45 todos.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("_page"))
		limit, _ := strconv.Atoi(r.URL.Query().Get("_limit"))
		w.Header().Set("X-Total-Count", "45")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, "[")
		for id := (page-1)*limit + 1; id <= min(page*limit, 45); id++ {
			if id > (page-1)*limit+1 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"id":%d}`, id)
		}
		fmt.Fprint(w, "]")
	}))
	defer srv.Close()
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	defer ac.Close(context.Background())

	type Todo struct {
		ID int `json:"id"`
	}
	todos := kit.NewAsyncResource[Todo](ac, "/todos", kit.PagedBy(TotalCount{Limit: 10}), kit.WithPrefetch(4))
	var ids []int
	for page, err := range todos.Pages(context.Background(), nil) {
		if err != nil {
			log.Fatal(err)
		}
		ids = append(ids, page.Records[0].ID)
	}
	fmt.Println("pages start at", ids)
	// Output:
	// pages start at [1 11 21 31 41]
}

// A paged endpoint on another origin is walked on that origin: its pages
// get neither the base URL's query nor the client's credentials, and a
// next link to any other origin, the base API's included, ends the walk
// with an error matching ErrCrossOrigin, so that server cannot make the
// client fetch a path of the base API with its credentials.
func ExamplePaged_otherOrigin() {
	api, c := demoAPI()
	defer api.Close()
	var partner *httptest.Server
	partner = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("partner got", r.URL.RequestURI(), "with credentials:", r.Header.Get("Authorization") != "")
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("page") == "" {
			w.Header().Set("Link", "<"+partner.URL+"/feed?page=2>; rel=\"next\"")
			fmt.Fprint(w, `[{"id":1}]`)
			return
		}
		// A link to a path of the client's own API.
		w.Header().Set("Link", "<"+api.URL+"/admin/export>; rel=\"next\"")
		fmt.Fprint(w, `[{"id":2}]`)
	}))
	defer partner.Close()
	c2, err := kit.NewClient(c.BaseURL().String()+"?api_key=secret", kit.WithAuth(kit.Bearer("token")))
	if err != nil {
		log.Fatal(err)
	}
	defer c2.Close()

	type Item struct {
		ID int `json:"id"`
	}
	feed := kit.Paged[kit.NoParams, Item](partner.URL+"/feed", kit.PagedBy(kit.LinkHeader{}))
	for it, err := range feed.Iterate(context.Background(), c2, kit.NoParams{}) {
		if err != nil {
			fmt.Println("walk ended, ErrCrossOrigin:", errors.Is(err, kit.ErrCrossOrigin))
			break
		}
		fmt.Println("record", it.ID)
	}
	// Output:
	// partner got /feed with credentials: false
	// record 1
	// partner got /feed?page=2 with credentials: false
	// record 2
	// walk ended, ErrCrossOrigin: true
}

// PagedBy says how a resource or a paged endpoint walks its pages: it is a
// trait of the declaration, given once. Here the users come in pages of a
// cursor API, whose next cursor is at meta.next_cursor; the walk follows
// it until the API gives none.
func ExamplePagedBy() {
	srv, c := demoAPI()
	defer srv.Close()
	defer c.Close()
	users := kit.NewResource[User](c, "/cursor/users", kit.PagedBy(kit.Cursor{NextKey: "meta.next_cursor"}))
	n := 0
	for u, err := range users.All(context.Background()) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if n++; n <= 2 {
			fmt.Println(u.ID, u.Name)
		}
	}
	fmt.Println(n, "users")
	// Output:
	// 1 Ada Lovelace
	// 2 Alan Turing
	// 250 users
}
