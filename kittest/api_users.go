package kittest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// apiApplyUser applies the fields of a JSON object to u. Unknown fields, id
// and created_at are ignored; null resets a field to its default (empty
// name and email, no team, active). Values of the wrong type are recorded
// in fields under prefix+name.
func apiApplyUser(u *apiUser, m map[string]json.RawMessage, prefix string, fields map[string]string) {
	for name, raw := range m {
		null := string(raw) == "null"
		switch name {
		case "name", "email":
			var s string
			if !null && json.Unmarshal(raw, &s) != nil {
				fields[prefix+name] = "must be a string"
				continue
			}
			if name == "name" {
				u.Name = s
			} else {
				u.Email = s
			}
		case "team_id":
			var n int
			if !null && json.Unmarshal(raw, &n) != nil {
				fields[prefix+name] = "must be an integer"
				continue
			}
			u.TeamID = n
		case "active":
			b := true
			if !null && json.Unmarshal(raw, &b) != nil {
				fields[prefix+name] = "must be a boolean"
				continue
			}
			u.Active = b
		}
	}
}

// apiValidateUser trims u's name and records u's problems in fields under
// prefix+name, unless the field already has one.
func apiValidateUser(u *apiUser, prefix string, fields map[string]string) {
	set := func(name, msg string) {
		if _, ok := fields[prefix+name]; !ok {
			fields[prefix+name] = msg
		}
	}
	u.Name = strings.TrimSpace(u.Name)
	if u.Name == "" {
		set("name", "is required")
	}
	if !strings.Contains(u.Email, "@") {
		set("email", "must contain @")
	}
	if u.TeamID != 0 {
		if _, ok := apiTeamByID(u.TeamID); !ok {
			set("team_id", "unknown team")
		}
	}
}

// apiReadUserObject reads a JSON object request body. On failure it writes
// the error response and returns false.
func apiReadUserObject(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, bool) {
	body, ok := apiReadJSON(w, r, '{')
	if !ok {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		apiBadRequest(w, "request body must be a JSON object")
		return nil, false
	}
	return m, true
}

func (a *API) listUsers(w http.ResponseWriter, r *http.Request) {
	users, page, size, ok := a.pageQuery(w, r, "page_size")
	if !ok {
		return
	}
	lo, hi := apiPageBounds(len(users), page, size)
	apiWriteJSON(w, http.StatusOK, struct {
		Data     []apiUser `json:"data"`
		Total    int       `json:"total"`
		Page     int       `json:"page"`
		PageSize int       `json:"page_size"`
	}{users[lo:hi], len(users), page, size})
}

func (a *API) getUser(w http.ResponseWriter, r *http.Request) {
	id, ok := apiParseID(r.PathValue("id"))
	a.mu.Lock()
	i, found := a.userIndexLocked(id)
	var u apiUser
	if found {
		u = a.users[i]
	}
	a.mu.Unlock()
	if !ok || !found {
		apiNotFound(w, "user "+r.PathValue("id")+" not found")
		return
	}
	a.writeCacheable(w, r, u)
}

func (a *API) createUser(w http.ResponseWriter, r *http.Request) {
	m, ok := apiReadUserObject(w, r)
	if !ok {
		return
	}
	u := apiUser{Active: true}
	fields := map[string]string{}
	apiApplyUser(&u, m, "", fields)
	apiValidateUser(&u, "", fields)
	if len(fields) > 0 {
		apiValidationFailed(w, fields)
		return
	}
	a.mu.Lock()
	u.ID = a.nextUserIDLocked()
	u.CreatedAt = a.now().UTC().Truncate(time.Second)
	a.users = append(a.users, u)
	a.mu.Unlock()
	// Relative to the request URL (".../users"), so correct under a prefix.
	w.Header().Set("Location", "users/"+strconv.Itoa(u.ID))
	apiWriteJSON(w, http.StatusCreated, u)
}

// replaceUser handles PUT: the body replaces every writable field, and
// omitted fields take their defaults.
func (a *API) replaceUser(w http.ResponseWriter, r *http.Request) {
	a.updateUser(w, r, true)
}

// patchUser handles PATCH: the body's fields are merged into the user.
func (a *API) patchUser(w http.ResponseWriter, r *http.Request) {
	a.updateUser(w, r, false)
}

func (a *API) updateUser(w http.ResponseWriter, r *http.Request, replace bool) {
	id, ok := apiParseID(r.PathValue("id"))
	if !ok {
		apiNotFound(w, "user "+r.PathValue("id")+" not found")
		return
	}
	m, ok := apiReadUserObject(w, r)
	if !ok {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	i, found := a.userIndexLocked(id)
	if !found {
		apiNotFound(w, "user "+strconv.Itoa(id)+" not found")
		return
	}
	u := a.users[i]
	if replace {
		u = apiUser{ID: u.ID, Active: true, CreatedAt: u.CreatedAt}
	}
	fields := map[string]string{}
	apiApplyUser(&u, m, "", fields)
	apiValidateUser(&u, "", fields)
	if len(fields) > 0 {
		apiValidationFailed(w, fields)
		return
	}
	a.users[i] = u
	apiWriteJSON(w, http.StatusOK, u)
}

func (a *API) deleteUser(w http.ResponseWriter, r *http.Request) {
	id, ok := apiParseID(r.PathValue("id"))
	found := false
	if ok {
		a.mu.Lock()
		var i int
		if i, found = a.userIndexLocked(id); found {
			a.users = slices.Delete(a.users, i, i+1)
			a.posts = slices.DeleteFunc(a.posts, func(p apiPost) bool { return p.UserID == id })
		}
		a.mu.Unlock()
	}
	if !found {
		apiNotFound(w, "user "+r.PathValue("id")+" not found")
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *API) userPosts(w http.ResponseWriter, r *http.Request) {
	id, ok := apiParseID(r.PathValue("id"))
	posts := []apiPost{}
	found := false
	if ok {
		a.mu.Lock()
		if _, found = a.userIndexLocked(id); found {
			for _, p := range a.posts {
				if p.UserID == id {
					posts = append(posts, p)
				}
			}
		}
		a.mu.Unlock()
	}
	if !found {
		apiNotFound(w, "user "+r.PathValue("id")+" not found")
		return
	}
	apiWriteJSON(w, http.StatusOK, posts)
}

func (a *API) listTeams(w http.ResponseWriter, r *http.Request) {
	teams := make([]apiTeam, 0, len(apiTeamNames))
	a.mu.Lock()
	for id := 1; id <= len(apiTeamNames); id++ {
		t, _ := apiTeamByID(id)
		teams = append(teams, a.teamLocked(t))
	}
	a.mu.Unlock()
	apiWriteJSON(w, http.StatusOK, teams)
}

func (a *API) getTeam(w http.ResponseWriter, r *http.Request) {
	t, ok := a.pathTeam(w, r)
	if !ok {
		return
	}
	a.mu.Lock()
	t = a.teamLocked(t)
	a.mu.Unlock()
	a.writeCacheable(w, r, t)
}

// pathTeam returns the team named by the {id} path value, or writes a 404.
func (a *API) pathTeam(w http.ResponseWriter, r *http.Request) (apiTeam, bool) {
	var t apiTeam
	id, ok := apiParseID(r.PathValue("id"))
	if ok {
		t, ok = apiTeamByID(id)
	}
	if !ok {
		apiNotFound(w, "team "+r.PathValue("id")+" not found")
	}
	return t, ok
}

// createTeamUsers handles POST /teams/{id}/users?team=NAME: it creates the
// users of a JSON array in team {id}, all or none, and answers the team.
func (a *API) createTeamUsers(w http.ResponseWriter, r *http.Request) {
	t, ok := a.pathTeam(w, r)
	if !ok {
		return
	}
	if label := r.URL.Query().Get("team"); !strings.EqualFold(label, t.Name) {
		apiWriteError(w, http.StatusConflict, "conflict",
			fmt.Sprintf("team label %q does not match team %d, %q", label, t.ID, t.Name))
		return
	}
	body, ok := apiReadJSON(w, r, '[')
	if !ok {
		return
	}
	var items []json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		apiBadRequest(w, "request body must be a JSON array")
		return
	}
	users := make([]apiUser, len(items))
	fields := map[string]string{}
	for i, raw := range items {
		prefix := "[" + strconv.Itoa(i) + "]."
		var m map[string]json.RawMessage
		if !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) || json.Unmarshal(raw, &m) != nil {
			fields["["+strconv.Itoa(i)+"]"] = "must be an object"
			continue
		}
		u := apiUser{Active: true}
		apiApplyUser(&u, m, prefix, fields)
		if _, bad := fields[prefix+"team_id"]; !bad {
			switch u.TeamID {
			case 0:
				u.TeamID = t.ID
			case t.ID:
			default:
				fields[prefix+"team_id"] = "must be omitted or " + strconv.Itoa(t.ID)
			}
		}
		apiValidateUser(&u, prefix, fields)
		users[i] = u
	}
	if len(fields) > 0 {
		apiValidationFailed(w, fields)
		return
	}
	a.mu.Lock()
	now := a.now().UTC().Truncate(time.Second)
	for _, u := range users {
		u.ID = a.nextUserIDLocked()
		u.CreatedAt = now
		a.users = append(a.users, u)
	}
	t = a.teamLocked(t)
	a.mu.Unlock()
	apiWriteJSON(w, http.StatusCreated, t)
}
