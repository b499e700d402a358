package kittest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAPI_TeamMembers walks each style of /teams/{id}/members with the
// walkers of TestAPI_PaginationWalks: every member of the team in the
// path, in id order, whatever team_id says; other filters apply.
func TestAPI_TeamMembers(t *testing.T) {
	t.Parallel()
	styles := []struct {
		name   string
		prefix string
		walk   apiTWalk
	}{
		{"pages", "", apiTWalkPages("data", "page_size")},
		{"offset", "/offset", apiTWalkOffset},
		{"cursor", "/cursor", apiTWalkCursor(false)},
		{"linked", "/linked", apiTWalkLinked},
	}
	for _, n := range []int{0, 7, 250} {
		_, srv := apiTStart(t, WithUsers(n))
		for _, st := range styles {
			for _, team := range []int{1, 3, 5} {
				for _, size := range []int{1, 7, 100} {
					t.Run(fmt.Sprintf("%s/n=%d/team=%d/size=%d", st.name, n, team, size), func(t *testing.T) {
						path := fmt.Sprintf("%s/teams/%d/members", st.prefix, team)
						inTeam := func(id int) bool { return (id-1)%5+1 == team }
						got := st.walk(t, srv, path, "team_id=2&", size)
						if want := apiTExpected(n, inTeam); !slices.Equal(got, want) {
							t.Fatalf("walked %v,\nwant %v", got, want)
						}
						got = st.walk(t, srv, path, "active=true&", size)
						want := apiTExpected(n, func(id int) bool { return inTeam(id) && id%3 != 0 })
						if !slices.Equal(got, want) {
							t.Fatalf("active members: walked %v,\nwant %v", got, want)
						}
					})
				}
			}
		}
	}
}

func TestAPI_TeamMembersErrors(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	for _, prefix := range []string{"", "/offset", "/cursor", "/linked"} {
		apiTGet(t, srv, prefix+"/teams/9/members").wantError(t, http.StatusNotFound, "not_found")
		apiTGet(t, srv, prefix+"/teams/x/members").wantError(t, http.StatusNotFound, "not_found")
		apiTGet(t, srv, prefix+"/teams/1/members?active=maybe").wantError(t, http.StatusBadRequest, "bad_request")
	}
	r := apiTGet(t, srv, "/linked/teams/2/members?per_page=5&q=a")
	r.wantStatus(t, http.StatusOK)
	links := strings.Join(r.header.Values("Link"), ", ")
	if !strings.Contains(links, `<members?page=2&per_page=5&q=a>; rel="next"`) {
		t.Fatalf("Link %q lacks the next page of members", links)
	}
	// The members routes are counted by their own path.
	api, srv2 := apiTStart(t)
	apiTGet(t, srv2, "/teams/4/members")
	if got := api.Stats().ByPath["GET /teams/4/members"]; got != 1 {
		t.Fatalf("ByPath counted %d, want 1", got)
	}
}

// TestAPI_Latency: with WithLatency a request is answered after the
// latency (not checked: no timed assertions), a request whose context ends
// first gets no response, and both are counted.
func TestAPI_Latency(t *testing.T) {
	t.Parallel()
	api, srv := apiTStart(t, WithLatency(time.Millisecond))
	apiTGet(t, srv, "/health").wantStatus(t, http.StatusOK)

	slow := NewAPI(WithLatency(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	slow.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", "/health", nil))
	if rec.Body.Len() != 0 {
		t.Fatalf("a request whose context ended got %q", rec.Body)
	}
	if api.Stats().Requests != 1 || slow.Stats().Requests != 1 {
		t.Fatalf("requests counted: %d and %d, want 1 and 1", api.Stats().Requests, slow.Stats().Requests)
	}
	// Zero or less: no latency.
	rec = httptest.NewRecorder()
	NewAPI(WithLatency(-time.Hour)).ServeHTTP(rec, httptest.NewRequest("GET", "/health", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d", rec.Code)
	}
}
