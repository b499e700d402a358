package kittest

import (
	"net/url"
	"testing"
)

// TestAPI_FilterUsers: deepObject filters select users; a key in any other
// shape is a 400.
func TestAPI_FilterUsers(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t, WithUsers(20))
	var users []apiTUser
	apiTGet(t, srv, "/filter/users?"+url.Values{"id[gt]": {"5"}, "id[lte]": {"8"}}.Encode()).decode(t, &users)
	if len(users) != 3 || users[0].ID != 6 || users[2].ID != 8 {
		t.Fatalf("id[gt]=5&id[lte]=8: %+v", users)
	}
	users = nil
	apiTGet(t, srv, "/filter/users?"+url.Values{"filter[team_id]": {"2"}, "filter[active]": {"true"}}.Encode()).decode(t, &users)
	for _, u := range users {
		if u.TeamID != 2 || !u.Active {
			t.Errorf("filter[team_id]=2&filter[active]=true gave %+v", u)
		}
	}
	if len(users) == 0 {
		t.Error("filter[team_id]=2&filter[active]=true: no users")
	}
	users = nil
	apiTGet(t, srv, "/filter/users?"+url.Values{"ids": {"3,5,8,99"}, "id[gt]": {"3"}}.Encode()).decode(t, &users)
	if len(users) != 2 || users[0].ID != 5 || users[1].ID != 8 {
		t.Errorf("ids=3,5,8,99&id[gt]=3: %+v", users)
	}
	for _, bad := range []string{"ids=3&ids=5", "ids=3,x", "ids=", "ids=3,,5", "ids[0]=3", "filter=2", "team_id=2", "filter[team_id][x]=2", "id=3", "id[gt]=x", "filter[active]=maybe", "filter[other]=1", "id[gt]=1&id[gt]=2"} {
		apiTGet(t, srv, "/filter/users?"+bad).wantError(t, 400, "bad_request")
	}
}
