package kittest

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// activity is GET /activity: the users' activity feed, a list whose
// records are of several kinds told apart by their "kind" field (a
// discriminated union, as OpenAI's and Stripe's event lists are):
//
//	{"kind":"joined","id":"act_7","user_id":7,"team_id":2}
//	{"kind":"deactivated","id":"act_9","user_id":9}
//	{"kind":"badge","id":"act_10","user_id":10,"badge":"ten"}
//
// One record per user of the listing filters, in id order: deactivated
// for an inactive user, badge for an active one whose id is a multiple of
// 10 (a kind a client's document may not know yet), joined otherwise. It
// is walked with a cursor no detector guesses: since (the id of the last
// record of the page before) and limit, the next cursor at paging.after,
// null on the last page: {"items":[...],"paging":{"after":"act_N"|null}}.
func (a *API) activity(w http.ResponseWriter, r *http.Request) {
	q, users, limit, ok := a.limitQuery(w, r)
	if !ok {
		return
	}
	after := 0
	if s := q.Get("since"); s != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "act_"))
		if !strings.HasPrefix(s, "act_") || err != nil || n < 0 {
			apiBadRequest(w, "since must be an activity id (act_N)")
			return
		}
		after = n
	}
	lo := sort.Search(len(users), func(i int) bool { return users[i].ID > after })
	hi := min(lo+limit, len(users))
	items := make([]map[string]any, 0, hi-lo)
	for _, u := range users[lo:hi] {
		rec := map[string]any{"id": fmt.Sprintf("act_%d", u.ID), "user_id": u.ID}
		switch {
		case !u.Active:
			rec["kind"] = "deactivated"
		case u.ID%10 == 0:
			rec["kind"], rec["badge"] = "badge", strconv.Itoa(u.ID)
		default:
			rec["kind"], rec["team_id"] = "joined", u.TeamID
		}
		items = append(items, rec)
	}
	var next *string
	if hi < len(users) {
		s := fmt.Sprintf("act_%d", users[hi-1].ID)
		next = &s
	}
	type paging struct {
		After *string `json:"after"`
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Items  []map[string]any `json:"items"`
		Paging paging           `json:"paging"`
	}{items, paging{next}})
}
