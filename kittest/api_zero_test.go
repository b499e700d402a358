package kittest

import (
	"net/url"
	"strings"
	"testing"
)

// TestZeroUsers: /zero/users numbers its pages from 0 (page 0 when the
// request has none), reports the page, and links to the next one until
// the last, keeping the other parameters; following the links or counting
// from 0 yields every user once.
func TestZeroUsers(t *testing.T) {
	_, srv := apiTStart(t, WithUsers(24))
	type page struct {
		Data []apiTUser `json:"data"`
		Page *int       `json:"page"`
	}
	var first page
	r := apiTGet(t, srv, "/zero/users?page_size=5&active=true")
	r.decode(t, &first)
	if first.Page == nil || *first.Page != 0 || len(first.Data) != 5 || first.Data[0].ID != 1 {
		t.Fatalf("first page (no page parameter): %+v", first)
	}
	var p0 page
	apiTGet(t, srv, "/zero/users?page=0&page_size=5&active=true").decode(t, &p0)
	if len(p0.Data) != 5 || p0.Data[0].ID != first.Data[0].ID {
		t.Fatalf("page 0 is not the first page: %+v", p0)
	}

	// Follow the links: every active user once.
	seen := map[int]bool{}
	next := "/zero/users?page_size=5&active=true"
	for pages := 0; next != ""; pages++ {
		if pages > 10 {
			t.Fatal("the links do not end")
		}
		r := apiTGet(t, srv, next)
		r.wantStatus(t, 200)
		var pg page
		r.decode(t, &pg)
		if pg.Page == nil || *pg.Page != pages {
			t.Fatalf("page %d reports %v", pages, pg.Page)
		}
		for _, u := range pg.Data {
			if seen[u.ID] || !u.Active {
				t.Fatalf("user %d (active %v) again or filtered out", u.ID, u.Active)
			}
			seen[u.ID] = true
		}
		next = ""
		if link := r.header.Get("Link"); link != "" {
			ref, ok := strings.CutPrefix(link, "<")
			ref, _, ok2 := strings.Cut(ref, `>; rel="next"`)
			if !ok || !ok2 {
				t.Fatalf("Link %q", link)
			}
			u, err := r.url.Parse(ref)
			if err != nil {
				t.Fatal(err)
			}
			if u.Query().Get("active") != "true" {
				t.Fatalf("Link %q drops the filter", link)
			}
			next = u.RequestURI()
		}
	}
	if len(seen) != 16 { // 24 users, every third inactive
		t.Fatalf("%d active users, want 16", len(seen))
	}

	var past page
	r = apiTGet(t, srv, "/zero/users?page=9&page_size=5")
	r.decode(t, &past)
	if len(past.Data) != 0 || r.header.Get("Link") != "" {
		t.Fatalf("past the end: %+v, Link %q", past, r.header.Get("Link"))
	}
	huge := "/zero/users?page=" + url.QueryEscape("9223372036854775807")
	apiTGet(t, srv, huge).wantStatus(t, 200)
	apiTGet(t, srv, "/zero/users?page=-1").wantError(t, 400, "bad_request")
}
