package kittest

import (
	"net/http"
	"sort"
)

// Token lists: the next page's position is an opaque token the page
// answers under the request parameter's name with "next" in front, as
// Box's marker lists (marker, next_marker) and Google's (pageToken,
// nextPageToken) do. The token is the same opaque cursor /cursor/users
// sends; on the last page the next token is absent.

// markerUsers is GET /marker/users: {"entries":[...],"limit":N,
// "next_marker":"..."}, with marker and limit. next_marker is absent on
// the last page.
func (a *API) markerUsers(w http.ResponseWriter, r *http.Request) {
	page, next, limit, ok := a.tokenPage(w, r, "marker", "limit")
	if !ok {
		return
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Entries    []apiUser `json:"entries"`
		Limit      int       `json:"limit"`
		NextMarker string    `json:"next_marker,omitempty"`
	}{page, limit, next})
}

// pageTokenUsers is GET /token/users: {"users":[...],
// "nextPageToken":"..."}, with pageToken and pageSize. nextPageToken is
// absent on the last page.
func (a *API) pageTokenUsers(w http.ResponseWriter, r *http.Request) {
	page, next, _, ok := a.tokenPage(w, r, "pageToken", "pageSize")
	if !ok {
		return
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Users         []apiUser `json:"users"`
		NextPageToken string    `json:"nextPageToken,omitempty"`
	}{page, next})
}

// tokenPage reads the filters, the token parameter tokenName and the page
// size sizeName of a token list, and returns its page, the next page's
// token ("" on the last page) and the page size. On failure it writes a
// 400 and returns false.
func (a *API) tokenPage(w http.ResponseWriter, r *http.Request, tokenName, sizeName string) (page []apiUser, next string, size int, ok bool) {
	q := r.URL.Query()
	f, msg := apiParseFilter(q)
	apiScope(r, &f)
	if msg == "" {
		size, msg = apiIntParam(q, sizeName, apiDefaultPageSize, 1, apiMaxPageSize)
	}
	after := 0
	if tok := q.Get(tokenName); msg == "" && tok != "" {
		var valid bool
		if after, valid = apiDecodeCursor(tok); !valid {
			msg = "malformed " + tokenName
		}
	}
	if msg != "" {
		apiBadRequest(w, msg)
		return nil, "", 0, false
	}
	users := a.filteredUsers(f)
	lo := sort.Search(len(users), func(i int) bool { return users[i].ID > after })
	hi := min(lo+size, len(users))
	if hi < len(users) {
		next = apiEncodeCursor(users[hi-1].ID)
	}
	return users[lo:hi], next, size, true
}
