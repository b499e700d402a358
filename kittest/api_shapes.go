package kittest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
)

// The shapes real APIs use: a Stripe-like list (starting_after and
// has_more), a collection whose pages name the next page's URL in the body,
// a search walked with POST requests and a cursor in the body (Notion), and
// a Stripe-like form endpoint with nested keys.

// stripeUsers is GET /stripe/users: {"object":"list","data":[...],
// "has_more":bool,"url":"/stripe/users"}, with limit and starting_after (the
// id of the last user of the page before). has_more is false on the last
// page, even when it is full.
func (a *API) stripeUsers(w http.ResponseWriter, r *http.Request) {
	q, users, limit, ok := a.limitQuery(w, r)
	if !ok {
		return
	}
	after := 0
	if s := q.Get("starting_after"); s != "" {
		if after, ok = apiParseID(s); !ok {
			apiBadRequest(w, "starting_after must be a user id")
			return
		}
	}
	lo := sort.Search(len(users), func(i int) bool { return users[i].ID > after })
	hi := min(lo+limit, len(users))
	apiWriteJSON(w, http.StatusOK, struct {
		Object  string    `json:"object"`
		Data    []apiUser `json:"data"`
		HasMore bool      `json:"has_more"`
		URL     string    `json:"url"`
	}{"list", users[lo:hi], hi < len(users), "/stripe/users"})
}

// nextUsers is GET /next/users: {"data":[...],"links":{"next":URL|null},
// "meta":{"page","page_size","total"}}, with page and page_size. The next
// URL is a path-relative reference such as "users?page=2&page_size=20"
// that keeps the request's other query parameters, like /linked/users'
// Link headers.
func (a *API) nextUsers(w http.ResponseWriter, r *http.Request) {
	users, page, size, ok := a.pageQuery(w, r, "page_size")
	if !ok {
		return
	}
	lo := min((page-1)*size, len(users))
	hi := min(lo+size, len(users))
	var next *string
	if hi < len(users) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		q.Set("page_size", strconv.Itoa(size))
		s := path.Base(r.URL.Path) + "?" + q.Encode()
		next = &s
	}
	type links struct {
		Next *string `json:"next"`
	}
	type meta struct {
		Page     int `json:"page"`
		PageSize int `json:"page_size"`
		Total    int `json:"total"`
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Data  []apiUser `json:"data"`
		Links links     `json:"links"`
		Meta  meta      `json:"meta"`
	}{users[lo:hi], links{next}, meta{page, size, len(users)}})
}

// apiSearch is the body of POST /search/users.
type apiSearch struct {
	Filter *struct {
		Active *bool  `json:"active"`
		TeamID *int   `json:"team_id"`
		Q      string `json:"q"`
	} `json:"filter"`
	PageSize    *int    `json:"page_size"`
	StartCursor *string `json:"start_cursor"`
}

// searchUsers is POST /search/users, a search walked with POST requests
// (Notion's shape): the body {"filter":{"active","team_id","q"},
// "page_size":N,"start_cursor":C} answers {"object":"list","results":[...],
// "next_cursor":C|null,"has_more":bool}. Every page's body must repeat the
// filter; the cursor is opaque.
func (a *API) searchUsers(w http.ResponseWriter, r *http.Request) {
	body, ok := apiReadJSON(w, r, '{')
	if !ok {
		return
	}
	var s apiSearch
	if err := json.Unmarshal(body, &s); err != nil {
		apiBadRequest(w, "request body: "+err.Error())
		return
	}
	var f apiFilter
	if s.Filter != nil {
		f.active = s.Filter.Active
		if s.Filter.TeamID != nil {
			f.teamID, f.hasTeam = *s.Filter.TeamID, true
		}
		f.q = strings.ToLower(s.Filter.Q)
	}
	size := apiDefaultPageSize
	if s.PageSize != nil {
		if *s.PageSize < 1 || *s.PageSize > apiMaxPageSize {
			apiBadRequest(w, "page_size must be an integer between 1 and "+strconv.Itoa(apiMaxPageSize))
			return
		}
		size = *s.PageSize
	}
	after := 0
	if s.StartCursor != nil {
		if after, ok = apiDecodeCursor(*s.StartCursor); !ok {
			apiBadRequest(w, "malformed start_cursor")
			return
		}
	}
	users := a.filteredUsers(f)
	lo := sort.Search(len(users), func(i int) bool { return users[i].ID > after })
	hi := min(lo+size, len(users))
	var next *string
	if hi < len(users) {
		c := apiEncodeCursor(users[hi-1].ID)
		next = &c
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Object     string    `json:"object"`
		Results    []apiUser `json:"results"`
		NextCursor *string   `json:"next_cursor"`
		HasMore    bool      `json:"has_more"`
	}{"list", users[lo:hi], next, next != nil})
}

// apiCharge is what POST /charges answers.
type apiCharge struct {
	Object   string            `json:"object"`
	Amount   int               `json:"amount"`
	Currency string            `json:"currency"`
	Metadata map[string]string `json:"metadata"`
	Expand   []string          `json:"expand"`
	Items    []apiChargeItem   `json:"items"`
}

type apiChargeItem struct {
	Price    string `json:"price"`
	Quantity int    `json:"quantity"`
}

// createCharge is POST /charges, a Stripe-like form endpoint
// (application/x-www-form-urlencoded) with nested keys in the bracket
// convention: amount (required, a positive integer), currency (required),
// metadata[KEY]=V, expand[N]=V, items[N][price] and items[N][quantity],
// with indexes 0, 1, ... in order. It answers 201 with the charge as JSON.
// Any other key, a key nested otherwise (metadata=x, expand[]=x,
// items[0]=x), a gap in the indexes or a repeated key is a 400 naming the
// key: the endpoint checks what a client sends.
func (a *API) createCharge(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-www-form-urlencoded") {
		apiWriteError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"Content-Type must be application/x-www-form-urlencoded")
		return
	}
	body, ok := apiReadBody(w, r)
	if !ok {
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		apiBadRequest(w, "malformed form body")
		return
	}
	c := apiCharge{Object: "charge", Metadata: map[string]string{}, Expand: []string{}, Items: []apiChargeItem{}}
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	expand := map[int]string{}
	items := map[int]*apiChargeItem{}
	for _, k := range keys {
		vs := form[k]
		if len(vs) != 1 {
			apiBadRequest(w, "key "+strconv.Quote(k)+" is sent more than once")
			return
		}
		v := vs[0]
		name, subs, ok := apiSplitKey(k)
		if !ok {
			apiBadRequest(w, "malformed key "+strconv.Quote(k))
			return
		}
		bad := func() { apiBadRequest(w, "unexpected key "+strconv.Quote(k)) }
		switch {
		case name == "amount" && len(subs) == 0:
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				apiBadRequest(w, "amount must be a positive integer")
				return
			}
			c.Amount = n
		case name == "currency" && len(subs) == 0:
			c.Currency = v
		case name == "metadata" && len(subs) == 1 && subs[0] != "":
			c.Metadata[subs[0]] = v
		case name == "expand" && len(subs) == 1:
			i, err := strconv.Atoi(subs[0])
			if err != nil || i < 0 || i > 100 {
				bad()
				return
			}
			expand[i] = v
		case name == "items" && len(subs) == 2:
			i, err := strconv.Atoi(subs[0])
			if err != nil || i < 0 || i > 100 {
				bad()
				return
			}
			it := items[i]
			if it == nil {
				it = &apiChargeItem{}
				items[i] = it
			}
			switch subs[1] {
			case "price":
				it.Price = v
			case "quantity":
				if it.Quantity, err = strconv.Atoi(v); err != nil {
					apiBadRequest(w, k+" must be an integer")
					return
				}
			default:
				bad()
				return
			}
		default:
			bad()
			return
		}
	}
	for i := range len(expand) {
		v, ok := expand[i]
		if !ok {
			apiBadRequest(w, "expand: index "+strconv.Itoa(i)+" is missing")
			return
		}
		c.Expand = append(c.Expand, v)
	}
	for i := range len(items) {
		it, ok := items[i]
		if !ok {
			apiBadRequest(w, "items: index "+strconv.Itoa(i)+" is missing")
			return
		}
		c.Items = append(c.Items, *it)
	}
	if c.Amount == 0 || c.Currency == "" {
		apiValidationFailed(w, map[string]string{"amount": "required", "currency": "required"})
		return
	}
	apiWriteJSON(w, http.StatusCreated, c)
}

// apiSplitKey splits a bracketed form key: "items[0][price]" is "items"
// and ["0", "price"]. ok is false for unbalanced brackets or text after a
// closing bracket.
func apiSplitKey(k string) (name string, subs []string, ok bool) {
	i := strings.IndexByte(k, '[')
	if i < 0 {
		return k, nil, !strings.Contains(k, "]")
	}
	name, rest := k[:i], k[i:]
	if name == "" {
		return "", nil, false
	}
	for rest != "" {
		if rest[0] != '[' {
			return "", nil, false
		}
		j := strings.IndexByte(rest, ']')
		if j < 0 || strings.IndexByte(rest[1:j], '[') >= 0 {
			return "", nil, false
		}
		subs = append(subs, rest[1:j])
		rest = rest[j+1:]
	}
	return name, subs, true
}
