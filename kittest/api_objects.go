package kittest

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// filterUsers is GET /filter/users, a listing whose filters are query
// objects in OpenAPI's deepObject style (what a client sends for a map or
// struct field tagged `kit:"name,query"`): filter[team_id]=N,
// filter[active]=true|false, id[gt]=N, id[gte]=N, id[lt]=N, id[lte]=N;
// and a list sent as one value, its elements joined with commas (OpenAPI's
// style form with explode false; a slice field tagged `kit:"ids,csv"`):
// ids=3,5,8, the users with one of those ids. It answers a JSON array of
// the matching users (at most 100, by id). Any other key, a key nested
// otherwise (filter=x, filter[team_id][x]=1, id=3), a repeated key (ids=3&
// ids=5: a list sent repeated, not joined) or a value that is not a number
// (a bool for active) is a 400 naming the key: the endpoint checks what a
// client sends.
func (a *API) filterUsers(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var f apiFilter
	lo, hi := 0, int(^uint(0)>>1) // ids in [lo, hi]
	var ids map[int]bool          // ids=: only these; nil when not sent
	for _, k := range keys {
		vs := q[k]
		bad := func(why string) { apiBadRequest(w, "query key "+strconv.Quote(k)+": "+why) }
		if len(vs) != 1 {
			bad("sent more than once")
			return
		}
		name, subs, ok := apiSplitKey(k)
		if k != "ids" && (!ok || len(subs) != 1 || name != "filter" && name != "id") {
			bad("want filter[team_id], filter[active], id[gt], id[gte], id[lt] or id[lte]")
			return
		}
		v := vs[0]
		if k == "ids" {
			if ids, ok = apiIDList(v); !ok {
				bad("want integers joined with commas (ids=3,5,8)")
				return
			}
			continue
		}
		switch name + "." + subs[0] {
		case "filter.team_id":
			n, err := strconv.Atoi(v)
			if err != nil {
				bad("not an integer")
				return
			}
			f.teamID, f.hasTeam = n, true
		case "filter.active":
			b, err := strconv.ParseBool(v)
			if err != nil {
				bad("not true or false")
				return
			}
			f.active = &b
		case "id.gt", "id.gte", "id.lt", "id.lte":
			n, err := strconv.Atoi(v)
			if err != nil {
				bad("not an integer")
				return
			}
			switch subs[0] {
			case "gt":
				lo = max(lo, n+1)
			case "gte":
				lo = max(lo, n)
			case "lt":
				hi = min(hi, n-1)
			case "lte":
				hi = min(hi, n)
			}
		default:
			bad("want filter[team_id], filter[active], id[gt], id[gte], id[lt] or id[lte]")
			return
		}
	}
	out := []apiUser{}
	for _, u := range a.filteredUsers(f) {
		if u.ID >= lo && u.ID <= hi && (ids == nil || ids[u.ID]) && len(out) < apiMaxPageSize {
			out = append(out, u)
		}
	}
	apiWriteJSON(w, http.StatusOK, out)
}

// apiIDList parses a list of integers joined with commas: "3,5,8".
func apiIDList(v string) (map[int]bool, bool) {
	ids := map[int]bool{}
	for e := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(e)
		if err != nil {
			return nil, false
		}
		ids[n] = true
	}
	return ids, true
}
