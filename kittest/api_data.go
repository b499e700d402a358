package kittest

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// apiUser is a user record as served by API.
type apiUser struct {
	ID        int       `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	TeamID    int       `json:"team_id"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
}

// apiTeam is a team record as served by API.
type apiTeam struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	MemberIDs []int  `json:"member_ids"`
}

// apiPost is a post record as served by API.
type apiPost struct {
	ID     int    `json:"id"`
	UserID int    `json:"user_id"`
	Title  string `json:"title"`
	Body   string `json:"body"`
}

// apiTeamNames are the seeded teams; team i+1 is apiTeamNames[i]. Teams are
// fixed: only their member lists change, as users change.
var apiTeamNames = [...]string{"Platform", "Payments", "Growth", "Mobile", "Data & ML"}

// The seeded names pair apiFirstNames[(id-1)%10] with
// apiLastNames[(id-1)%27]; 10 and 27 are coprime, so the first 270 names
// are distinct.
var (
	apiFirstNames = [...]string{"Ada", "Alan", "Barbara", "Claude", "Dennis",
		"Edsger", "Frances", "Grace", "Hedy", "Ken"}
	apiLastNames = [...]string{"Lovelace", "Turing", "Liskov", "Shannon", "Ritchie",
		"Dijkstra", "Allen", "Hopper", "Lamarr", "Thompson", "Knuth", "Hamilton",
		"Kay", "Backus", "Wirth", "Perlman", "McCarthy", "Goldberg", "Engelbart",
		"Cerf", "Hoare", "Torvalds", "Pike", "Stroustrup", "Lamport", "Karp", "Floyd"}
)

// apiEpoch is the created_at of user 1; user i was created i-1 hours later.
var apiEpoch = time.Date(2026, time.January, 2, 3, 4, 5, 0, time.UTC)

// apiPostUsers is the number of leading seeded users that have posts.
const apiPostUsers = 20

// apiSeed returns the seeded users and posts for an API with n users.
func apiSeed(n int) ([]apiUser, []apiPost) {
	users := make([]apiUser, n)
	for i := range users {
		id := i + 1
		first := apiFirstNames[i%len(apiFirstNames)]
		users[i] = apiUser{
			ID:        id,
			Name:      first + " " + apiLastNames[i%len(apiLastNames)],
			Email:     fmt.Sprintf("%s.%d@example.com", strings.ToLower(first), id),
			TeamID:    i%len(apiTeamNames) + 1,
			Active:    id%3 != 0,
			CreatedAt: apiEpoch.Add(time.Duration(i) * time.Hour),
		}
	}
	var posts []apiPost
	for _, u := range users[:min(n, apiPostUsers)] {
		for k := 1; k <= 2; k++ {
			posts = append(posts, apiPost{
				ID:     len(posts) + 1,
				UserID: u.ID,
				Title:  fmt.Sprintf("%s's post #%d", u.Name, k),
				Body:   fmt.Sprintf("Post %d of 2 by %s (user %d).", k, u.Name, u.ID),
			})
		}
	}
	return users, posts
}

// apiTeamByID returns the team with the given id, without members.
func apiTeamByID(id int) (apiTeam, bool) {
	if id < 1 || id > len(apiTeamNames) {
		return apiTeam{}, false
	}
	return apiTeam{ID: id, Name: apiTeamNames[id-1]}, true
}

// teamLocked returns team t with its member ids. a.mu must be held.
func (a *API) teamLocked(t apiTeam) apiTeam {
	t.MemberIDs = []int{}
	for _, u := range a.users {
		if u.TeamID == t.ID {
			t.MemberIDs = append(t.MemberIDs, u.ID)
		}
	}
	return t
}

// userIndexLocked returns the index of the user with the given id in
// a.users. a.mu must be held.
func (a *API) userIndexLocked(id int) (int, bool) {
	i := sort.Search(len(a.users), func(i int) bool { return a.users[i].ID >= id })
	return i, i < len(a.users) && a.users[i].ID == id
}

// nextUserIDLocked returns the id for a new user: the largest id plus one.
// a.mu must be held.
func (a *API) nextUserIDLocked() int {
	if len(a.users) == 0 {
		return 1
	}
	return a.users[len(a.users)-1].ID + 1
}

// apiFilter selects users in listings.
type apiFilter struct {
	active  *bool
	teamID  int
	hasTeam bool
	q       string // lower-cased
}

func (f apiFilter) match(u *apiUser) bool {
	if f.active != nil && u.Active != *f.active {
		return false
	}
	if f.hasTeam && u.TeamID != f.teamID {
		return false
	}
	return f.q == "" || strings.Contains(strings.ToLower(u.Name), f.q)
}

// filteredUsers returns a copy of the users that match f, ordered by id.
func (a *API) filteredUsers(f apiFilter) []apiUser {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]apiUser, 0, len(a.users))
	for i := range a.users {
		if f.match(&a.users[i]) {
			out = append(out, a.users[i])
		}
	}
	return out
}
