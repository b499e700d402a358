package kittest

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
)

// apiMaxPageSize is the largest page size or limit a listing accepts.
const apiMaxPageSize = 100

// apiDefaultPageSize is the page size or limit when the request has none.
const apiDefaultPageSize = 20

// pageQuery reads the filters, "page" and the page-size parameter sizeName
// of a page-number listing and returns the filtered users. On failure it
// writes a 400 and returns false.
func (a *API) pageQuery(w http.ResponseWriter, r *http.Request, sizeName string) (users []apiUser, page, size int, ok bool) {
	return a.pageQueryFrom(w, r, sizeName, 1)
}

// pageQueryFrom is pageQuery for a listing whose pages are numbered from
// first (0 or 1): first is also the page of a request without "page".
func (a *API) pageQueryFrom(w http.ResponseWriter, r *http.Request, sizeName string, first int) (users []apiUser, page, size int, ok bool) {
	q := r.URL.Query()
	f, msg := apiParseFilter(q)
	apiScope(r, &f)
	if msg == "" {
		page, msg = apiIntParam(q, "page", first, first, apiMaxInt)
	}
	if msg == "" {
		size, msg = apiIntParam(q, sizeName, apiDefaultPageSize, 1, apiMaxPageSize)
	}
	if msg != "" {
		apiBadRequest(w, msg)
		return nil, 0, 0, false
	}
	return a.filteredUsers(f), page, size, true
}

// limitQuery reads the filters and "limit" of a listing. On failure it
// writes a 400 and returns false.
func (a *API) limitQuery(w http.ResponseWriter, r *http.Request) (q url.Values, users []apiUser, limit int, ok bool) {
	q = r.URL.Query()
	f, msg := apiParseFilter(q)
	apiScope(r, &f)
	if msg == "" {
		limit, msg = apiIntParam(q, "limit", apiDefaultPageSize, 1, apiMaxPageSize)
	}
	if msg != "" {
		apiBadRequest(w, msg)
		return nil, nil, 0, false
	}
	return q, a.filteredUsers(f), limit, true
}

// apiTeamScope is the context key of the team a /teams/{id}/members
// listing is limited to.
type apiTeamScope struct{}

// teamMembers limits the user listing list to the team in the path: a
// nested collection. An unknown team is a 404.
func (a *API) teamMembers(list http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		t, ok := a.pathTeam(w, r)
		if !ok {
			return
		}
		list(w, r.WithContext(context.WithValue(r.Context(), apiTeamScope{}, t.ID)))
	}
}

// apiScope limits f to the team of a /teams/{id}/members listing, whatever
// the team_id parameter says.
func apiScope(r *http.Request, f *apiFilter) {
	if id, ok := r.Context().Value(apiTeamScope{}).(int); ok {
		f.teamID, f.hasTeam = id, true
	}
}

// apiLastPage returns the number of the last page of n items, at least 1.
func apiLastPage(n, size int) int {
	return max(1, (n+size-1)/size)
}

// apiPageBounds returns the bounds of page (from 1) of n items: empty, at
// n, past the end. It does not overflow for any page >= 1 and size >= 1.
func apiPageBounds(n, page, size int) (lo, hi int) {
	if page-1 >= (n+size-1)/size {
		return n, n
	}
	lo = (page - 1) * size
	return lo, min(lo+size, n)
}

func (a *API) pagedUsers(w http.ResponseWriter, r *http.Request) {
	users, page, size, ok := a.pageQuery(w, r, "page_size")
	if !ok {
		return
	}
	lo, hi := apiPageBounds(len(users), page, size)
	apiWriteJSON(w, http.StatusOK, struct {
		Data []apiUser `json:"data"`
	}{users[lo:hi]})
}

// zeroUsers is a page-number listing whose pages count from 0, as many
// real servers' do: {"data":[...],"page":N}, page 0 when the request has
// no "page", and on every page but the last a Link header with rel="next"
// to the next page (a path-relative reference that keeps the request's
// other query parameters).
func (a *API) zeroUsers(w http.ResponseWriter, r *http.Request) {
	users, page, size, ok := a.pageQueryFrom(w, r, "page_size", 0)
	if !ok {
		return
	}
	lo, hi := len(users), len(users)
	if page < (len(users)+size-1)/size {
		lo = page * size
		hi = min(lo+size, len(users))
	}
	if hi < len(users) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("page_size", strconv.Itoa(size))
		w.Header().Set("Link", "<"+path.Base(r.URL.Path)+"?"+q.Encode()+`>; rel="next"`)
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Data []apiUser `json:"data"`
		Page int       `json:"page"`
	}{users[lo:hi], page})
}

// clampedUsers is pagedUsers with a bug seen in real servers: a page past
// the end answers the last page again.
func (a *API) clampedUsers(w http.ResponseWriter, r *http.Request) {
	users, page, size, ok := a.pageQuery(w, r, "page_size")
	if !ok {
		return
	}
	lo, hi := apiPageBounds(len(users), min(page, apiLastPage(len(users), size)), size)
	apiWriteJSON(w, http.StatusOK, struct {
		Data []apiUser `json:"data"`
	}{users[lo:hi]})
}

func (a *API) nestedUsers(w http.ResponseWriter, r *http.Request) {
	users, page, size, ok := a.pageQuery(w, r, "page_size")
	if !ok {
		return
	}
	lo, hi := apiPageBounds(len(users), page, size)
	type records struct {
		Records []apiUser `json:"records"`
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Payload records `json:"payload"`
		Page    int     `json:"page"`
	}{records{users[lo:hi]}, page})
}

func (a *API) offsetUsers(w http.ResponseWriter, r *http.Request) {
	q, users, limit, ok := a.limitQuery(w, r)
	if !ok {
		return
	}
	offset, msg := apiIntParam(q, "offset", 0, 0, apiMaxInt)
	if msg != "" {
		apiBadRequest(w, msg)
		return
	}
	lo := min(offset, len(users))
	hi := min(lo+limit, len(users))
	apiWriteJSON(w, http.StatusOK, struct {
		Items  []apiUser `json:"items"`
		Offset int       `json:"offset"`
		Limit  int       `json:"limit"`
		Total  int       `json:"total"`
	}{users[lo:hi], offset, limit, len(users)})
}

// apiCursorPrefix starts every decoded cursor.
const apiCursorPrefix = "after:"

// apiEncodeCursor returns the opaque cursor for the page after the user
// with the given id.
func apiEncodeCursor(id int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(apiCursorPrefix + strconv.Itoa(id)))
}

// apiDecodeCursor is the inverse of apiEncodeCursor.
func apiDecodeCursor(s string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(b), apiCursorPrefix)
	if !ok {
		return 0, false
	}
	return apiParseID(rest)
}

// cursorPage reads a cursor listing request and returns its page and the
// cursor of the next page, "" on the last page. On failure it writes a 400
// and returns false.
func (a *API) cursorPage(w http.ResponseWriter, r *http.Request) (page []apiUser, next string, ok bool) {
	q, users, limit, ok := a.limitQuery(w, r)
	if !ok {
		return nil, "", false
	}
	after := 0
	if c := q.Get("cursor"); c != "" {
		if after, ok = apiDecodeCursor(c); !ok {
			apiBadRequest(w, "malformed cursor")
			return nil, "", false
		}
	}
	lo := sort.Search(len(users), func(i int) bool { return users[i].ID > after })
	hi := min(lo+limit, len(users))
	if hi < len(users) {
		next = apiEncodeCursor(users[hi-1].ID)
	}
	return users[lo:hi], next, true
}

type apiCursorMeta struct {
	NextCursor *string `json:"next_cursor"`
}

func (a *API) cursorUsers(w http.ResponseWriter, r *http.Request) {
	page, next, ok := a.cursorPage(w, r)
	if !ok {
		return
	}
	var meta apiCursorMeta
	if next != "" {
		meta.NextCursor = &next
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Results []apiUser     `json:"results"`
		Meta    apiCursorMeta `json:"meta"`
	}{page, meta})
}

func (a *API) cursorFlatUsers(w http.ResponseWriter, r *http.Request) {
	page, next, ok := a.cursorPage(w, r)
	if !ok {
		return
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Results    []apiUser `json:"results"`
		NextCursor string    `json:"next_cursor"`
	}{page, next})
}

// stuckUsers answers the first page with the next cursor "stuck", whatever
// the cursor: a cursor that never advances.
func (a *API) stuckUsers(w http.ResponseWriter, r *http.Request) {
	_, users, limit, ok := a.limitQuery(w, r)
	if !ok {
		return
	}
	stuck := "stuck"
	apiWriteJSON(w, http.StatusOK, struct {
		Results []apiUser     `json:"results"`
		Meta    apiCursorMeta `json:"meta"`
	}{users[:min(limit, len(users))], apiCursorMeta{&stuck}})
}

// linkedUsers answers a JSON array with a Link header. The header is split
// across two field lines, first (and prev) on one, next and last on the
// other, and on the second-to-last page next and last share one link-value,
// rel="next last". Targets are path-relative references like
// "users?page=2&per_page=20" (named after the last segment of the request
// path: "members?..." for a team's members) that keep the request's other
// query parameters.
func (a *API) linkedUsers(w http.ResponseWriter, r *http.Request) {
	users, page, size, ok := a.pageQuery(w, r, "per_page")
	if !ok {
		return
	}
	q := r.URL.Query()
	extra := make([]string, 0, len(q))
	for k := range q {
		if k != "page" && k != "per_page" {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	name := path.Base(r.URL.Path)
	ref := func(p int) string {
		var b strings.Builder
		b.WriteString("<" + name + "?page=")
		b.WriteString(strconv.Itoa(p))
		b.WriteString("&per_page=")
		b.WriteString(strconv.Itoa(size))
		for _, k := range extra {
			for _, v := range q[k] {
				b.WriteString("&" + url.QueryEscape(k) + "=" + url.QueryEscape(v))
			}
		}
		b.WriteString(">")
		return b.String()
	}
	last := apiLastPage(len(users), size)
	first := ref(1) + `; rel="first"`
	if page > 1 {
		first += ", " + ref(page-1) + `; rel="prev"`
	}
	var rest string
	switch {
	case page < last-1:
		rest = ref(page+1) + `; rel="next", ` + ref(last) + `; rel="last"`
	case page == last-1:
		rest = ref(last) + `; rel="next last"`
	default:
		rest = ref(last) + `; rel="last"`
	}
	w.Header().Add("Link", first)
	w.Header().Add("Link", rest)
	lo, hi := apiPageBounds(len(users), page, size)
	apiWriteJSON(w, http.StatusOK, users[lo:hi])
}
