package kittest

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// TestAPI_StripeList: starting_after and has_more, false on a full last
// page; a malformed starting_after is a 400.
func TestAPI_StripeList(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t, WithUsers(20))
	var page struct {
		Object  string     `json:"object"`
		Data    []apiTUser `json:"data"`
		HasMore bool       `json:"has_more"`
	}
	apiTGet(t, srv, "/stripe/users?limit=10").decode(t, &page)
	if page.Object != "list" || len(page.Data) != 10 || !page.HasMore || page.Data[9].ID != 10 {
		t.Fatalf("first page %+v", page)
	}
	page.Data = nil
	apiTGet(t, srv, "/stripe/users?limit=10&starting_after=10").decode(t, &page)
	if len(page.Data) != 10 || page.HasMore || page.Data[0].ID != 11 {
		t.Fatalf("last (full) page: %d records, has_more %v", len(page.Data), page.HasMore)
	}
	apiTGet(t, srv, "/stripe/users?starting_after=x").wantError(t, 400, "bad_request")
}

// TestAPI_NextLinks: links.next keeps the filters and is null on the last
// page.
func TestAPI_NextLinks(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t, WithUsers(20))
	var page struct {
		Data  []apiTUser `json:"data"`
		Links struct {
			Next *string `json:"next"`
		} `json:"links"`
	}
	apiTGet(t, srv, "/next/users?page_size=8&active=true").decode(t, &page)
	if page.Links.Next == nil {
		t.Fatal("no next link on the first page")
	}
	next, err := url.Parse(*page.Links.Next)
	if err != nil || next.Path != "users" || next.Query().Get("page") != "2" || next.Query().Get("active") != "true" {
		t.Fatalf("next link %q", *page.Links.Next)
	}
	page.Links.Next = nil
	apiTGet(t, srv, "/next/users?page_size=8&active=true&page=2").decode(t, &page)
	if page.Links.Next != nil || len(page.Data) != 6 { // 14 active users of 20
		t.Fatalf("last page: %d records, next %v", len(page.Data), page.Links.Next)
	}
}

// TestAPI_SearchUsers: the filter in the body, the cursor in the body,
// bad bodies refused.
func TestAPI_SearchUsers(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t, WithUsers(20))
	var page struct {
		Results    []apiTUser `json:"results"`
		NextCursor *string    `json:"next_cursor"`
		HasMore    bool       `json:"has_more"`
	}
	post := func(body string) apiTResp {
		return apiTDo(t, srv, apiTReq{method: "POST", path: "/search/users", ctype: "application/json", body: body})
	}
	post(`{"filter":{"team_id":2},"page_size":3}`).decode(t, &page)
	if len(page.Results) != 3 || !page.HasMore || page.NextCursor == nil || page.Results[0].ID != 2 {
		t.Fatalf("first page %+v", page)
	}
	cur := *page.NextCursor
	page.Results = nil
	post(`{"filter":{"team_id":2},"page_size":3,"start_cursor":"`+cur+`"}`).decode(t, &page)
	if len(page.Results) != 1 || page.HasMore || page.NextCursor != nil || page.Results[0].ID != 17 {
		t.Fatalf("last page %+v", page)
	}
	post(`{"start_cursor":"nope"}`).wantError(t, 400, "bad_request")
	post(`{"page_size":0}`).wantError(t, 400, "bad_request")
	post(`[]`).wantError(t, 400, "bad_request")
	apiTDo(t, srv, apiTReq{method: "POST", path: "/search/users", ctype: "text/plain", body: "{}"}).wantError(t, 415, "unsupported_media_type")
}

// TestAPI_Charges: nested keys read; keys nested otherwise, gaps and
// repeats refused with the key named.
func TestAPI_Charges(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	form := func(body string) apiTResp {
		return apiTDo(t, srv, apiTReq{method: "POST", path: "/charges", ctype: "application/x-www-form-urlencoded", body: body})
	}
	r := form("amount=100&currency=usd&metadata%5Ba%5D=1&expand%5B0%5D=x&expand%5B1%5D=y&items%5B0%5D%5Bprice%5D=p&items%5B0%5D%5Bquantity%5D=3")
	r.wantStatus(t, 201)
	var c apiCharge
	r.decode(t, &c)
	if c.Amount != 100 || c.Metadata["a"] != "1" || strings.Join(c.Expand, ",") != "x,y" || len(c.Items) != 1 || c.Items[0] != (apiChargeItem{"p", 3}) {
		t.Fatalf("charge %+v", c)
	}
	for _, bad := range []struct{ body, says string }{
		{"amount=1&currency=usd&metadata=x", `"metadata"`},
		{"amount=1&currency=usd&expand%5B%5D=x", `"expand[]"`},
		{"amount=1&currency=usd&expand%5B1%5D=x", "index 0 is missing"},
		{"amount=1&currency=usd&items%5B0%5D=x", `"items[0]"`},
		{"amount=1&currency=usd&items%5B0%5D%5Bcolor%5D=x", `"items[0][color]"`},
		{"amount=1&amount=2&currency=usd", "more than once"},
		{"amount=1&currency=usd&metadata%5Ba", "malformed key"},
		{"amount=-1&currency=usd", "positive"},
	} {
		e := form(bad.body).wantError(t, 400, "bad_request")
		if !strings.Contains(e.Message, bad.says) {
			t.Errorf("%s: message %q, want it to say %s", bad.body, e.Message, bad.says)
		}
	}
	form("currency=usd").wantError(t, 422, "validation_failed")
	apiTDo(t, srv, apiTReq{method: "POST", path: "/charges", ctype: "application/json", body: "{}"}).wantError(t, 415, "unsupported_media_type")
}

// TestAPI_TokenLists: /marker/users answers marker with next_marker (Box),
// /token/users pageToken with nextPageToken (Google); following the
// tokens yields every matching user once, the last page has no token, and
// a malformed token is a 400.
func TestAPI_TokenLists(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t, WithUsers(23))
	for _, c := range []struct{ path, token, size, next, records string }{
		{"/marker/users", "marker", "limit", "next_marker", "entries"},
		{"/token/users", "pageToken", "pageSize", "nextPageToken", "users"},
	} {
		seen := map[int]bool{}
		tok := ""
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatalf("%s: the tokens do not end", c.path)
			}
			q := url.Values{c.size: {"5"}, "active": {"true"}}
			if tok != "" {
				q.Set(c.token, tok)
			}
			var page map[string]json.RawMessage
			apiTGet(t, srv, c.path+"?"+q.Encode()).decode(t, &page)
			var users []apiTUser
			if err := json.Unmarshal(page[c.records], &users); err != nil || len(users) > 5 {
				t.Fatalf("%s: page %d: %s: %v", c.path, pages, page[c.records], err)
			}
			for _, u := range users {
				if seen[u.ID] || !u.Active {
					t.Fatalf("%s: user %d again, or inactive", c.path, u.ID)
				}
				seen[u.ID] = true
			}
			next, ok := page[c.next]
			if !ok {
				break
			}
			if err := json.Unmarshal(next, &tok); err != nil || tok == "" {
				t.Fatalf("%s: %s %s", c.path, c.next, next)
			}
		}
		if len(seen) != 16 { // 23 users, every third inactive
			t.Errorf("%s: %d active users, want 16", c.path, len(seen))
		}
		apiTGet(t, srv, c.path+"?"+c.token+"=x").wantError(t, 400, "bad_request")
	}
}
