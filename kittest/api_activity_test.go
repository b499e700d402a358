package kittest

import (
	"testing"
)

// TestAPI_Activity: one record per user in id order, of the kind the user
// makes; since and paging.after walk it; a malformed since is a 400.
func TestAPI_Activity(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t, WithUsers(25))
	type record struct {
		Kind   string `json:"kind"`
		ID     string `json:"id"`
		UserID int    `json:"user_id"`
		TeamID int    `json:"team_id"`
		Badge  string `json:"badge"`
	}
	var page struct {
		Items  []record `json:"items"`
		Paging struct {
			After *string `json:"after"`
		} `json:"paging"`
	}
	apiTGet(t, srv, "/activity?limit=10").decode(t, &page)
	if len(page.Items) != 10 || page.Paging.After == nil || *page.Paging.After != "act_10" {
		t.Fatalf("first page: %+v", page)
	}
	for _, r := range page.Items {
		want := "joined"
		switch {
		case r.UserID%3 == 0:
			want = "deactivated"
		case r.UserID%10 == 0:
			want = "badge"
		}
		if r.Kind != want || r.ID == "" || (want == "joined" && r.TeamID == 0) || (want == "badge" && r.Badge != "10") {
			t.Errorf("user %d: %+v, want kind %s", r.UserID, r, want)
		}
	}
	page.Items = nil
	apiTGet(t, srv, "/activity?limit=10&since=act_20").decode(t, &page)
	if len(page.Items) != 5 || page.Items[0].UserID != 21 || page.Paging.After != nil {
		t.Fatalf("last page: %+v", page)
	}
	page.Items = nil
	apiTGet(t, srv, "/activity?active=false&limit=100").decode(t, &page)
	for _, r := range page.Items {
		if r.Kind != "deactivated" {
			t.Errorf("the active=false filter gave %+v", r)
		}
	}
	apiTGet(t, srv, "/activity?since=10").wantError(t, 400, "bad_request")
	apiTGet(t, srv, "/activity?since=act_x").wantError(t, 400, "bad_request")
}
