package kittest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// Helpers are prefixed apiT so they cannot collide with other files of the
// package.

// apiTResp is a response read in full.
type apiTResp struct {
	status int
	header http.Header
	body   []byte
	url    *url.URL // the URL of the request that produced the response
}

// apiTReq describes one request.
type apiTReq struct {
	method string
	path   string // appended to the server URL
	ctype  string
	body   string
	token  string
	header map[string]string
}

// apiTStart serves a new API on a loopback test server.
func apiTStart(t *testing.T, opts ...APIOption) (*API, *httptest.Server) {
	t.Helper()
	api := NewAPI(opts...)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return api, srv
}

func apiTDo(t *testing.T, srv *httptest.Server, rq apiTReq) apiTResp {
	t.Helper()
	var body io.Reader
	if rq.body != "" {
		body = strings.NewReader(rq.body)
	}
	method := rq.method
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequest(method, srv.URL+rq.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if rq.ctype != "" {
		req.Header.Set("Content-Type", rq.ctype)
	}
	if rq.token != "" {
		req.Header.Set("Authorization", "Bearer "+rq.token)
	}
	for k, v := range rq.header {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, rq.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, rq.path, err)
	}
	return apiTResp{status: resp.StatusCode, header: resp.Header, body: b, url: resp.Request.URL}
}

func apiTGet(t *testing.T, srv *httptest.Server, path string) apiTResp {
	t.Helper()
	return apiTDo(t, srv, apiTReq{path: path})
}

// decode decodes the body into v, failing the test if it is not JSON.
func (r apiTResp) decode(t *testing.T, v any) {
	t.Helper()
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q, want application/json (status %d, body %s)", ct, r.status, r.body)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

// wantStatus fails the test unless the response has the given status.
func (r apiTResp) wantStatus(t *testing.T, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
}

// apiTErr is an error body.
type apiTErr struct {
	Error   string            `json:"error"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields"`
}

// wantError checks an error response's status and code.
func (r apiTResp) wantError(t *testing.T, status int, code string) apiTErr {
	t.Helper()
	r.wantStatus(t, status)
	var e apiTErr
	r.decode(t, &e)
	if e.Error != code || e.Message == "" {
		t.Fatalf("error body %s, want code %q and a message", r.body, code)
	}
	return e
}

// apiTUser mirrors the user record.
type apiTUser struct {
	ID        int       `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	TeamID    int       `json:"team_id"`
	Active    bool      `json:"active"`
	CreatedAt time.Time `json:"created_at"`
}

type apiTTeam struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	MemberIDs []int  `json:"member_ids"`
}

type apiTPost struct {
	ID     int    `json:"id"`
	UserID int    `json:"user_id"`
	Title  string `json:"title"`
	Body   string `json:"body"`
}

// same reports whether u and v are the same record.
func (u apiTUser) same(v apiTUser) bool {
	return u.ID == v.ID && u.Name == v.Name && u.Email == v.Email && u.TeamID == v.TeamID &&
		u.Active == v.Active && u.CreatedAt.Equal(v.CreatedAt)
}

func apiTIDs(us []apiTUser) []int {
	ids := make([]int, len(us))
	for i, u := range us {
		ids[i] = u.ID
	}
	return ids
}

// apiTLogin logs in with the default credentials and returns the token.
func apiTLogin(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	r := apiTDo(t, srv, apiTReq{method: "POST", path: "/login", ctype: "application/json",
		body: `{"username":"demo","password":"s3cret"}`})
	r.wantStatus(t, http.StatusOK)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.decode(t, &tok)
	return tok.AccessToken
}

// apiTClock is a settable clock.
type apiTClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *apiTClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *apiTClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// apiTStartClock is apiTStart with a fake clock.
func apiTStartClock(t *testing.T, opts ...APIOption) (*API, *httptest.Server, *apiTClock) {
	t.Helper()
	clock := &apiTClock{t: time.Date(2026, 5, 6, 7, 8, 9, 500, time.UTC)}
	api := NewAPI(opts...)
	api.now = clock.Now
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return api, srv, clock
}

// apiTExpected returns the ids 1..n of the seeded users that pass keep.
func apiTExpected(n int, keep func(id int) bool) []int {
	ids := []int{}
	for id := 1; id <= n; id++ {
		if keep == nil || keep(id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func TestAPI_SeedData(t *testing.T) {
	_, srv := apiTStart(t)
	r := apiTGet(t, srv, "/users/1")
	r.wantStatus(t, http.StatusOK)
	want := `{"id":1,"name":"Ada Lovelace","email":"ada.1@example.com","team_id":1,"active":true,"created_at":"2026-01-02T03:04:05Z"}` + "\n"
	if string(r.body) != want {
		t.Fatalf("user 1 = %s, want %s", r.body, want)
	}
	var u apiTUser
	apiTGet(t, srv, "/users/6").decode(t, &u)
	if u.Name != "Edsger Dijkstra" || u.TeamID != 1 || u.Active || u.Email != "edsger.6@example.com" ||
		!u.CreatedAt.Equal(time.Date(2026, 1, 2, 8, 4, 5, 0, time.UTC)) {
		t.Fatalf("user 6 = %+v", u)
	}

	var teams []apiTTeam
	apiTGet(t, srv, "/teams").decode(t, &teams)
	names := []string{}
	for i, tm := range teams {
		names = append(names, tm.Name)
		if tm.ID != i+1 || len(tm.MemberIDs) != 50 || tm.MemberIDs[0] != i+1 || tm.MemberIDs[1] != i+6 {
			t.Fatalf("team %+v", tm)
		}
	}
	if got := strings.Join(names, ","); got != "Platform,Payments,Growth,Mobile,Data & ML" {
		t.Fatalf("team names %s", got)
	}

	for id := 1; id <= 21; id++ {
		var posts []apiTPost
		apiTGet(t, srv, fmt.Sprintf("/users/%d/posts", id)).decode(t, &posts)
		want := 2
		if id > 20 {
			want = 0
		}
		if len(posts) != want {
			t.Fatalf("user %d has %d posts, want %d", id, len(posts), want)
		}
		for k, p := range posts {
			if p.ID != 2*id-1+k || p.UserID != id || p.Title == "" || p.Body == "" {
				t.Fatalf("post %+v", p)
			}
		}
	}

	// Deterministic: two APIs serve the same bytes.
	_, srv2 := apiTStart(t)
	for _, path := range []string{"/users?page_size=100&page=2", "/teams", "/users/7/posts"} {
		if a, b := apiTGet(t, srv, path).body, apiTGet(t, srv2, path).body; !bytes.Equal(a, b) {
			t.Fatalf("%s differs between APIs", path)
		}
	}
}

// TestAPI_Routes checks every route once with a valid request, and many
// with invalid ones.
func TestAPI_Routes(t *testing.T) {
	api, srv := apiTStart(t)
	token := apiTLogin(t, srv)

	type check func(t *testing.T, r apiTResp)
	jsonEq := func(want string) check {
		return func(t *testing.T, r apiTResp) {
			t.Helper()
			var got, exp any
			r.decode(t, &got)
			if err := json.Unmarshal([]byte(want), &exp); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, exp) {
				t.Fatalf("body %s, want %s", r.body, want)
			}
		}
	}
	users := func(key string, wantIDs ...int) check {
		return func(t *testing.T, r apiTResp) {
			t.Helper()
			var raw map[string]json.RawMessage
			r.decode(t, &raw)
			var us []apiTUser
			if err := json.Unmarshal(raw[key], &us); err != nil || us == nil {
				t.Fatalf("%q in %s: %v", key, r.body, err)
			}
			if got := apiTIDs(us); !slices.Equal(got, wantIDs) {
				t.Fatalf("ids %v, want %v", got, wantIDs)
			}
		}
	}
	errIs := func(code string) check {
		return func(t *testing.T, r apiTResp) {
			t.Helper()
			var e apiTErr
			r.decode(t, &e)
			if e.Error != code || e.Message == "" {
				t.Fatalf("error body %s, want code %q", r.body, code)
			}
		}
	}
	header := func(name, want string) check {
		return func(t *testing.T, r apiTResp) {
			t.Helper()
			if got := r.header.Get(name); got != want {
				t.Fatalf("%s: %q, want %q", name, got, want)
			}
		}
	}
	cursor2 := apiEncodeCursor(2)

	tests := []struct {
		name   string
		req    apiTReq
		status int
		checks []check
	}{
		{"health", apiTReq{path: "/health"}, 200, []check{jsonEq(`{"status":"ok"}`)}},
		{"users default", apiTReq{path: "/users"}, 200, []check{users("data", apiTExpected(20, nil)...),
			jsonEqField("total", "250"), jsonEqField("page", "1"), jsonEqField("page_size", "20")}},
		{"users page 3 of 7", apiTReq{path: "/users?page=3&page_size=7"}, 200, []check{users("data", 15, 16, 17, 18, 19, 20, 21)}},
		{"users last partial page", apiTReq{path: "/users?page=3&page_size=100"}, 200, []check{users("data", apiTExpected(250, func(id int) bool { return id > 200 })...)}},
		{"users past the end", apiTReq{path: "/users?page=4&page_size=100"}, 200, []check{users("data"), jsonEqField("total", "250")}},
		{"users huge page", apiTReq{path: "/users?page=9223372036854775807&page_size=100"}, 200, []check{users("data")}},
		{"users filter active", apiTReq{path: "/users?active=false&page_size=5"}, 200, []check{users("data", 3, 6, 9, 12, 15), jsonEqField("total", "83")}},
		{"users filter team", apiTReq{path: "/users?team_id=5&page_size=3"}, 200, []check{users("data", 5, 10, 15), jsonEqField("total", "50")}},
		{"users filter unknown team", apiTReq{path: "/users?team_id=77"}, 200, []check{users("data"), jsonEqField("total", "0")}},
		{"users filter q", apiTReq{path: "/users?q=GRACE+hop"}, 200, []check{users("data", 8), jsonEqField("total", "1")}},
		{"users filters combined", apiTReq{path: "/users?q=ada&active=true&team_id=1&page_size=3"}, 200, []check{users("data", 1, 11, 31)}},
		{"users bad page", apiTReq{path: "/users?page=0"}, 400, []check{errIs("bad_request")}},
		{"users negative page", apiTReq{path: "/users?page=-1"}, 400, []check{errIs("bad_request")}},
		{"users non-numeric page", apiTReq{path: "/users?page=two"}, 400, []check{errIs("bad_request")}},
		{"users overflowing page", apiTReq{path: "/users?page=99999999999999999999999"}, 400, []check{errIs("bad_request")}},
		{"users page_size too big", apiTReq{path: "/users?page_size=101"}, 400, []check{errIs("bad_request")}},
		{"users page_size zero", apiTReq{path: "/users?page_size=0"}, 400, []check{errIs("bad_request")}},
		{"users bad active", apiTReq{path: "/users?active=maybe"}, 400, []check{errIs("bad_request")}},
		{"users bad team_id", apiTReq{path: "/users?team_id=x"}, 400, []check{errIs("bad_request")}},
		{"user", apiTReq{path: "/users/42"}, 200, []check{jsonEqField("id", "42"), jsonEqField("team_id", "2")}},
		{"user missing", apiTReq{path: "/users/251"}, 404, []check{errIs("not_found")}},
		{"user zero", apiTReq{path: "/users/0"}, 404, []check{errIs("not_found")}},
		{"user non-numeric", apiTReq{path: "/users/abc"}, 404, []check{errIs("not_found")}},
		{"user signed", apiTReq{path: "/users/+1"}, 404, []check{errIs("not_found")}},
		{"user huge", apiTReq{path: "/users/99999999999999999999999999"}, 404, []check{errIs("not_found")}},
		{"posts", apiTReq{path: "/users/3/posts"}, 200, []check{jsonEq(`[
			{"id":5,"user_id":3,"title":"Barbara Liskov's post #1","body":"Post 1 of 2 by Barbara Liskov (user 3)."},
			{"id":6,"user_id":3,"title":"Barbara Liskov's post #2","body":"Post 2 of 2 by Barbara Liskov (user 3)."}]`)}},
		{"posts none", apiTReq{path: "/users/100/posts"}, 200, []check{jsonEq(`[]`)}},
		{"posts of missing user", apiTReq{path: "/users/1000/posts"}, 404, []check{errIs("not_found")}},
		{"posts of bad id", apiTReq{path: "/users/x/posts"}, 404, []check{errIs("not_found")}},
		{"teams", apiTReq{path: "/teams"}, 200, nil},
		{"team", apiTReq{path: "/teams/5"}, 200, []check{jsonEqField("name", `"Data & ML"`)}},
		{"team missing", apiTReq{path: "/teams/6"}, 404, []check{errIs("not_found")}},
		{"team bad id", apiTReq{path: "/teams/-1"}, 404, []check{errIs("not_found")}},
		{"paged", apiTReq{path: "/paged/users?page=2&page_size=2"}, 200, []check{jsonEq(`{"data":[` +
			`{"id":3,"name":"Barbara Liskov","email":"barbara.3@example.com","team_id":3,"active":false,"created_at":"2026-01-02T05:04:05Z"},` +
			`{"id":4,"name":"Claude Shannon","email":"claude.4@example.com","team_id":4,"active":true,"created_at":"2026-01-02T06:04:05Z"}]}`)}},
		{"paged past end", apiTReq{path: "/paged/users?page=99"}, 200, []check{jsonEq(`{"data":[]}`)}},
		{"paged bad size", apiTReq{path: "/paged/users?page_size=1000"}, 400, []check{errIs("bad_request")}},
		{"offset", apiTReq{path: "/offset/users?offset=10&limit=3"}, 200, []check{users("items", 11, 12, 13),
			jsonEqField("offset", "10"), jsonEqField("limit", "3"), jsonEqField("total", "250")}},
		{"offset defaults", apiTReq{path: "/offset/users"}, 200, []check{users("items", apiTExpected(20, nil)...),
			jsonEqField("offset", "0"), jsonEqField("limit", "20")}},
		{"offset past end", apiTReq{path: "/offset/users?offset=9223372036854775807"}, 200, []check{users("items")}},
		{"offset negative", apiTReq{path: "/offset/users?offset=-1"}, 400, []check{errIs("bad_request")}},
		{"offset limit too big", apiTReq{path: "/offset/users?limit=101"}, 400, []check{errIs("bad_request")}},
		{"cursor first", apiTReq{path: "/cursor/users?limit=2"}, 200, []check{users("results", 1, 2),
			jsonEqField("meta", `{"next_cursor":"`+cursor2+`"}`)}},
		{"cursor next", apiTReq{path: "/cursor/users?limit=2&cursor=" + cursor2}, 200, []check{users("results", 3, 4)}},
		{"cursor last", apiTReq{path: "/cursor/users?limit=100&cursor=" + apiEncodeCursor(200)}, 200, []check{
			users("results", apiTExpected(250, func(id int) bool { return id > 200 })...),
			jsonEqField("meta", `{"next_cursor":null}`)}},
		{"cursor malformed", apiTReq{path: "/cursor/users?cursor=%21%21"}, 400, []check{errIs("bad_request")}},
		{"cursor not ours", apiTReq{path: "/cursor/users?cursor=" + "aGVsbG8"}, 400, []check{errIs("bad_request")}},
		{"cursor-flat first", apiTReq{path: "/cursor-flat/users?limit=2"}, 200, []check{users("results", 1, 2),
			jsonEqField("next_cursor", `"`+cursor2+`"`)}},
		{"cursor-flat last", apiTReq{path: "/cursor-flat/users?cursor=" + apiEncodeCursor(249)}, 200, []check{
			users("results", 250), jsonEqField("next_cursor", `""`)}},
		{"cursor-flat malformed", apiTReq{path: "/cursor-flat/users?cursor=@"}, 400, []check{errIs("bad_request")}},
		{"linked", apiTReq{path: "/linked/users?page=2&per_page=3"}, 200, []check{
			jsonEq(`[` + apiTUserJSON(4) + `,` + apiTUserJSON(5) + `,` + apiTUserJSON(6) + `]`)}},
		{"linked bad per_page", apiTReq{path: "/linked/users?per_page=101"}, 400, []check{errIs("bad_request")}},
		{"nested", apiTReq{path: "/nested/users?page=2&page_size=1"}, 200, []check{jsonEq(`{"payload":{"records":[` + apiTUserJSON(2) + `]},"page":2}`)}},
		{"nested past end", apiTReq{path: "/nested/users?page=300&page_size=1"}, 200, []check{jsonEq(`{"payload":{"records":[]},"page":300}`)}},
		{"clamped", apiTReq{path: "/clamped/users?page=2&page_size=100"}, 200, []check{users("data", apiTExpected(200, func(id int) bool { return id > 100 })...)}},
		{"clamped past end", apiTReq{path: "/clamped/users?page=4&page_size=100"}, 200, []check{users("data", apiTExpected(250, func(id int) bool { return id > 200 })...)}},
		{"clamped huge page", apiTReq{path: "/clamped/users?page=9223372036854775807"}, 200, []check{users("data", apiTExpected(250, func(id int) bool { return id > 240 })...)}},
		{"stuck", apiTReq{path: "/stuck/users?limit=2"}, 200, []check{jsonEq(`{"results":[` + apiTUserJSON(1) + `,` + apiTUserJSON(2) + `],"meta":{"next_cursor":"stuck"}}`)}},
		{"stuck with cursor", apiTReq{path: "/stuck/users?limit=2&cursor=stuck"}, 200, []check{jsonEq(`{"results":[` + apiTUserJSON(1) + `,` + apiTUserJSON(2) + `],"meta":{"next_cursor":"stuck"}}`)}},
		{"login", apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":"demo","password":"s3cret"}`}, 200,
			[]check{jsonEqField("token_type", `"Bearer"`), jsonEqField("expires_in", "3600"), header("Cache-Control", "no-store")}},
		{"login form", apiTReq{method: "POST", path: "/login", ctype: "application/x-www-form-urlencoded", body: `username=demo&password=s3cret`}, 200, nil},
		{"login wrong password", apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":"demo","password":"nope"}`}, 401, []check{errIs("invalid_credentials"), header("WWW-Authenticate", "")}},
		{"login wrong user", apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":"root","password":"s3cret"}`}, 401, []check{errIs("invalid_credentials")}},
		{"login bad JSON", apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":`}, 400, []check{errIs("bad_request")}},
		{"login wrong types", apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":1}`}, 400, []check{errIs("bad_request")}},
		{"login wrong content type", apiTReq{method: "POST", path: "/login", ctype: "text/plain", body: `demo:s3cret`}, 415, []check{errIs("unsupported_media_type")}},
		{"login GET", apiTReq{path: "/login"}, 405, []check{errIs("method_not_allowed"), header("Allow", "POST")}},
		{"me", apiTReq{path: "/me", token: token}, 200, []check{jsonEq(apiTUserJSON(1))}},
		{"me without token", apiTReq{path: "/me"}, 401, []check{errIs("unauthorized"), header("WWW-Authenticate", `Bearer error="invalid_token"`)}},
		{"me with unknown token", apiTReq{path: "/me", token: "0123456789abcdef0123456789abcdef"}, 401, []check{errIs("unauthorized")}},
		{"me with basic auth", apiTReq{path: "/me", header: map[string]string{"Authorization": "Basic ZGVtbzpzM2NyZXQ="}}, 401, []check{errIs("unauthorized")}},
		{"me with lower-case scheme", apiTReq{path: "/me", header: map[string]string{"Authorization": "bearer " + token}}, 200, nil},
		{"reports", apiTReq{path: "/private/reports", token: token}, 200, []check{jsonEq(`{"data":[{"id":1,"title":"Q1"},{"id":2,"title":"Q2"},{"id":3,"title":"Q3"}]}`)}},
		{"reports without token", apiTReq{path: "/private/reports"}, 401, []check{errIs("unauthorized")}},
		{"status 200", apiTReq{path: "/status/200"}, 200, []check{jsonEq(`{"error":"status","message":"status 200"}`)}},
		{"status 404", apiTReq{path: "/status/404"}, 404, []check{jsonEq(`{"error":"status","message":"status 404"}`)}},
		{"status 418", apiTReq{path: "/status/418"}, 418, []check{errIs("status")}},
		{"status 429 retry", apiTReq{path: "/status/429?retry_after=3"}, 429, []check{errIs("status"), header("Retry-After", "3")}},
		{"status 500", apiTReq{path: "/status/500"}, 500, []check{errIs("status")}},
		{"status 503 POST", apiTReq{method: "POST", path: "/status/503", ctype: "application/json", body: `{}`}, 503, []check{errIs("status")}},
		{"status 599", apiTReq{path: "/status/599"}, 599, []check{errIs("status")}},
		{"status 204", apiTReq{path: "/status/204"}, 204, []check{apiTEmpty}},
		{"status 304", apiTReq{path: "/status/304"}, 304, []check{apiTEmpty, header("Location", "../health")}},
		{"status 300", apiTReq{path: "/status/300"}, 300, []check{errIs("status"), header("Location", "../health")}},
		{"status 302 followed", apiTReq{path: "/status/302"}, 200, []check{jsonEq(`{"status":"ok"}`)}},
		{"status 307 followed", apiTReq{path: "/status/307"}, 200, []check{jsonEq(`{"status":"ok"}`)}},
		{"status 100", apiTReq{path: "/status/100"}, 400, []check{errIs("bad_request")}},
		{"status 600", apiTReq{path: "/status/600"}, 400, []check{errIs("bad_request")}},
		{"status 99", apiTReq{path: "/status/99"}, 400, []check{errIs("bad_request")}},
		{"status text", apiTReq{path: "/status/teapot"}, 400, []check{errIs("bad_request")}},
		{"status bad retry", apiTReq{path: "/status/503?retry_after=soon"}, 400, []check{errIs("bad_request")}},
		{"slow", apiTReq{path: "/slow?ms=5"}, 200, []check{jsonEq(`{"slept_ms":5}`)}},
		{"slow zero", apiTReq{path: "/slow?ms=0"}, 200, []check{jsonEq(`{"slept_ms":0}`)}},
		{"slow negative", apiTReq{path: "/slow?ms=-5"}, 400, []check{errIs("bad_request")}},
		{"slow bad", apiTReq{path: "/slow?ms=1e3"}, 400, []check{errIs("bad_request")}},
		{"text", apiTReq{path: "/text"}, 200, []check{header("Content-Type", "text/plain; charset=utf-8"), apiTBody("hello, not json")}},
		{"big", apiTReq{path: "/big?bytes=5"}, 200, []check{header("Content-Type", "application/json"), apiTBody(`"aaaaa"`)}},
		{"big empty", apiTReq{path: "/big?bytes=0"}, 200, []check{apiTBody(`""`)}},
		{"big default", apiTReq{path: "/big"}, 200, []check{header("Content-Length", "1026")}},
		{"big negative", apiTReq{path: "/big?bytes=-1"}, 400, []check{errIs("bad_request")}},
		{"echo GET", apiTReq{path: "/echo?a=1&a=2&b=x%20y", header: map[string]string{"X-Custom": "v"}}, 200, []check{
			jsonEqField("method", `"GET"`), jsonEqField("path", `"/echo"`), jsonEqField("body", "null"),
			jsonEqField("query", `{"a":["1","2"],"b":["x y"]}`), jsonEqField("request_uri", `"/echo?a=1&a=2&b=x%20y"`),
			apiTEchoHeader("x-custom", "v")}},
		{"echo POST", apiTReq{method: "POST", path: "/echo", ctype: "application/json", body: ` {"n": 12345678901234567890, "s": "é"} `}, 200, []check{
			jsonEqField("method", `"POST"`), jsonEqField("body", `{"n":12345678901234567890,"s":"é"}`),
			apiTEchoHeader("content-type", "application/json")}},
		{"echo PUT", apiTReq{method: "PUT", path: "/echo", body: `[1,2]`}, 200, []check{jsonEqField("method", `"PUT"`), jsonEqField("body", `[1,2]`)}},
		{"echo PATCH", apiTReq{method: "PATCH", path: "/echo", body: `"x"`}, 200, []check{jsonEqField("method", `"PATCH"`)}},
		{"echo DELETE", apiTReq{method: "DELETE", path: "/echo"}, 200, []check{jsonEqField("method", `"DELETE"`), jsonEqField("body", "null")}},
		{"echo sub-path", apiTReq{path: "/echo/a%2Fb/c?x=1"}, 200, []check{jsonEqField("path", `"/echo/a/b/c"`), jsonEqField("request_uri", `"/echo/a%2Fb/c?x=1"`)}},
		{"echo bad JSON", apiTReq{method: "POST", path: "/echo", body: `{nope`}, 400, []check{errIs("bad_request")}},
		{"unknown route", apiTReq{path: "/nope"}, 404, []check{errIs("not_found")}},
		{"root", apiTReq{path: "/"}, 404, []check{errIs("not_found")}},
		{"wrong method", apiTReq{method: "DELETE", path: "/teams"}, 405, []check{errIs("method_not_allowed"), header("Allow", "GET, HEAD")}},
		{"wrong method on users", apiTReq{method: "DELETE", path: "/users"}, 405, []check{errIs("method_not_allowed")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := apiTDo(t, srv, tt.req)
			r.wantStatus(t, tt.status)
			for _, c := range tt.checks {
				c(t, r)
			}
		})
	}
	// Every registered pattern was exercised.
	st := api.Stats()
	for _, p := range []string{"GET /health", "GET /users", "GET /users/42", "GET /users/3/posts", "GET /teams",
		"GET /teams/5", "GET /paged/users", "GET /offset/users", "GET /cursor/users", "GET /cursor-flat/users",
		"GET /linked/users", "GET /nested/users", "GET /clamped/users", "GET /stuck/users", "POST /login",
		"GET /me", "GET /private/reports", "GET /status/200", "GET /slow", "GET /text", "GET /big", "GET /echo"} {
		if st.ByPath[p] == 0 {
			t.Errorf("Stats.ByPath[%q] = 0", p)
		}
	}
}

// jsonEqField checks that the top-level field key of a JSON object body
// equals the JSON value want.
func jsonEqField(key, want string) func(t *testing.T, r apiTResp) {
	return func(t *testing.T, r apiTResp) {
		t.Helper()
		var m map[string]any
		r.decode(t, &m)
		var exp any
		if err := json.Unmarshal([]byte(want), &exp); err != nil {
			t.Fatal(err)
		}
		got, ok := m[key]
		if !ok {
			t.Fatalf("no %q in %s", key, r.body)
		}
		// Compare through JSON so numbers compare exactly.
		gb, _ := json.Marshal(got)
		eb, _ := json.Marshal(exp)
		if !bytes.Equal(gb, eb) {
			t.Fatalf("%q = %s, want %s", key, gb, eb)
		}
	}
}

func apiTEmpty(t *testing.T, r apiTResp) {
	t.Helper()
	if len(r.body) != 0 {
		t.Fatalf("body %q, want none", r.body)
	}
}

func apiTBody(want string) func(t *testing.T, r apiTResp) {
	return func(t *testing.T, r apiTResp) {
		t.Helper()
		if string(r.body) != want {
			t.Fatalf("body %q, want %q", r.body, want)
		}
	}
}

func apiTEchoHeader(name, want string) func(t *testing.T, r apiTResp) {
	return func(t *testing.T, r apiTResp) {
		t.Helper()
		var e struct {
			Headers map[string][]string `json:"headers"`
		}
		r.decode(t, &e)
		if got := e.Headers[name]; len(got) != 1 || got[0] != want {
			t.Fatalf("echoed header %q = %q, want [%q]; all: %v", name, got, want, e.Headers)
		}
	}
}

// apiTUserJSON is the JSON of seeded user id.
func apiTUserJSON(id int) string {
	users, _ := apiSeed(id)
	b, err := json.Marshal(users[id-1])
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestAPI_UsersCRUD(t *testing.T) {
	api, srv, clock := apiTStartClock(t)
	now := clock.Now().Truncate(time.Second)

	r := apiTDo(t, srv, apiTReq{method: "POST", path: "/users", ctype: "application/json; charset=utf-8",
		body: `{"id":7,"name":"  Margaret Hamilton ","email":"mh@example.com","team_id":3,"created_at":"1999-01-01T00:00:00Z","extra":1}`})
	r.wantStatus(t, http.StatusCreated)
	var u apiTUser
	r.decode(t, &u)
	want := apiTUser{ID: 251, Name: "Margaret Hamilton", Email: "mh@example.com", TeamID: 3, Active: true, CreatedAt: now}
	if !u.same(want) {
		t.Fatalf("created %+v, want %+v", u, want)
	}
	if loc := r.header.Get("Location"); loc != "users/251" {
		t.Fatalf("Location %q", loc)
	}
	if ref, _ := url.Parse(r.header.Get("Location")); r.url.ResolveReference(ref).Path != "/users/251" {
		t.Fatalf("Location resolves to %v", r.url.ResolveReference(ref))
	}
	var got apiTUser
	apiTGet(t, srv, "/users/251").decode(t, &got)
	if !got.same(want) {
		t.Fatalf("GET after POST = %+v", got)
	}

	// PUT replaces every field; omitted fields take their defaults.
	r = apiTDo(t, srv, apiTReq{method: "PUT", path: "/users/251", ctype: "application/json",
		body: `{"name":"M. Hamilton","email":"m@h"}`})
	r.wantStatus(t, http.StatusOK)
	r.decode(t, &u)
	want = apiTUser{ID: 251, Name: "M. Hamilton", Email: "m@h", TeamID: 0, Active: true, CreatedAt: now}
	if !u.same(want) {
		t.Fatalf("PUT = %+v, want %+v", u, want)
	}

	// PATCH merges.
	r = apiTDo(t, srv, apiTReq{method: "PATCH", path: "/users/251", ctype: "application/merge-patch+json",
		body: `{"active":false,"team_id":2}`})
	r.wantStatus(t, http.StatusOK)
	r.decode(t, &u)
	want.Active, want.TeamID = false, 2
	if !u.same(want) {
		t.Fatalf("PATCH = %+v, want %+v", u, want)
	}
	var team apiTTeam
	apiTGet(t, srv, "/teams/2").decode(t, &team)
	if team.MemberIDs[len(team.MemberIDs)-1] != 251 || len(team.MemberIDs) != 51 {
		t.Fatalf("team 2 members %v", team.MemberIDs)
	}
	// null resets a field to its default.
	r = apiTDo(t, srv, apiTReq{method: "PATCH", path: "/users/251", ctype: "application/json", body: `{"active":null,"team_id":null}`})
	r.wantStatus(t, http.StatusOK)
	r.decode(t, &u)
	if !u.Active || u.TeamID != 0 {
		t.Fatalf("PATCH with nulls = %+v", u)
	}
	// An empty patch changes nothing.
	before := apiTGet(t, srv, "/users/5").body
	r = apiTDo(t, srv, apiTReq{method: "PATCH", path: "/users/5", ctype: "application/json", body: `{}`})
	r.wantStatus(t, http.StatusOK)
	if !bytes.Equal(r.body, before) {
		t.Fatalf("empty PATCH: %s, want %s", r.body, before)
	}

	// DELETE.
	r = apiTDo(t, srv, apiTReq{method: "DELETE", path: "/users/251"})
	r.wantStatus(t, http.StatusNoContent)
	apiTEmpty(t, r)
	apiTGet(t, srv, "/users/251").wantError(t, 404, "not_found")
	apiTDo(t, srv, apiTReq{method: "DELETE", path: "/users/251"}).wantError(t, 404, "not_found")
	apiTDo(t, srv, apiTReq{method: "DELETE", path: "/users/zzz"}).wantError(t, 404, "not_found")
	apiTDo(t, srv, apiTReq{method: "PUT", path: "/users/251", ctype: "application/json", body: `{"name":"a","email":"a@b"}`}).wantError(t, 404, "not_found")
	apiTDo(t, srv, apiTReq{method: "PATCH", path: "/users/x", ctype: "application/json", body: `{}`}).wantError(t, 404, "not_found")

	// Deleting a user deletes their posts; new ids are max+1.
	apiTDo(t, srv, apiTReq{method: "DELETE", path: "/users/2"}).wantStatus(t, 204)
	apiTGet(t, srv, "/users/2/posts").wantError(t, 404, "not_found")
	var posts []apiTPost
	apiTGet(t, srv, "/users/1/posts").decode(t, &posts)
	if len(posts) != 2 {
		t.Fatalf("user 1 posts %v", posts)
	}
	apiTDo(t, srv, apiTReq{method: "DELETE", path: "/users/250"}).wantStatus(t, 204)
	r = apiTDo(t, srv, apiTReq{method: "POST", path: "/users", ctype: "application/json", body: `{"name":"N","email":"n@x","active":false}`})
	r.wantStatus(t, 201)
	r.decode(t, &u)
	if u.ID != 250 || u.Active {
		t.Fatalf("created %+v, want id 250 (max+1) and inactive", u)
	}
	var list struct {
		Total int `json:"total"`
	}
	apiTGet(t, srv, "/users").decode(t, &list)
	if list.Total != 249 {
		t.Fatalf("total %d, want 249", list.Total)
	}

	// /me is user 1; when it is gone /me is a 404.
	tok := apiTLogin(t, srv)
	apiTDo(t, srv, apiTReq{method: "DELETE", path: "/users/1"}).wantStatus(t, 204)
	apiTDo(t, srv, apiTReq{path: "/me", token: tok}).wantError(t, 404, "not_found")

	// Reset brings the seed back.
	api.Reset()
	apiTGet(t, srv, "/users").decode(t, &list)
	if list.Total != 250 {
		t.Fatalf("total after Reset %d", list.Total)
	}
	if got := apiTGet(t, srv, "/users/1").body; string(got) != apiTUserJSON(1)+"\n" {
		t.Fatalf("user 1 after Reset %s", got)
	}
	// An empty API creates id 1.
	_, srv0 := apiTStart(t, WithUsers(0))
	r = apiTDo(t, srv0, apiTReq{method: "POST", path: "/users", ctype: "application/json", body: `{"name":"first","email":"f@x"}`})
	r.wantStatus(t, 201)
	r.decode(t, &u)
	if u.ID != 1 {
		t.Fatalf("first user in an empty API has id %d", u.ID)
	}
}

func TestAPI_Validation(t *testing.T) {
	_, srv := apiTStart(t)
	const ct = "application/json"
	tests := []struct {
		name   string
		req    apiTReq
		status int
		code   string
		fields map[string]string
	}{
		{"empty object", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{}`}, 422, "validation_failed",
			map[string]string{"name": "is required", "email": "must contain @"}},
		{"blank name", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":" \t ","email":"a@b"}`}, 422, "validation_failed",
			map[string]string{"name": "is required"}},
		{"bad email", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":"a","email":"nope"}`}, 422, "validation_failed",
			map[string]string{"email": "must contain @"}},
		{"unknown team", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":"a","email":"a@b","team_id":6}`}, 422, "validation_failed",
			map[string]string{"team_id": "unknown team"}},
		{"negative team", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":"a","email":"a@b","team_id":-1}`}, 422, "validation_failed",
			map[string]string{"team_id": "unknown team"}},
		{"wrong types", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":5,"email":["a@b"],"team_id":"1","active":"yes"}`}, 422, "validation_failed",
			map[string]string{"name": "must be a string", "email": "must be a string", "team_id": "must be an integer", "active": "must be a boolean"}},
		{"huge team id", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":"a","email":"a@b","team_id":1e400}`}, 422, "validation_failed",
			map[string]string{"team_id": "must be an integer"}},
		{"fractional team id", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":"a","email":"a@b","team_id":1.5}`}, 422, "validation_failed",
			map[string]string{"team_id": "must be an integer"}},
		{"not JSON", apiTReq{method: "POST", path: "/users", ctype: ct, body: `name=a`}, 400, "bad_request", nil},
		{"truncated JSON", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":"a"`}, 400, "bad_request", nil},
		{"trailing garbage", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":"a","email":"a@b"} x`}, 400, "bad_request", nil},
		{"two values", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{} {}`}, 400, "bad_request", nil},
		{"array", apiTReq{method: "POST", path: "/users", ctype: ct, body: `[{"name":"a","email":"a@b"}]`}, 400, "bad_request", nil},
		{"null", apiTReq{method: "POST", path: "/users", ctype: ct, body: `null`}, 400, "bad_request", nil},
		{"empty body", apiTReq{method: "POST", path: "/users", ctype: ct}, 400, "bad_request", nil},
		{"no content type", apiTReq{method: "POST", path: "/users", body: `{"name":"a","email":"a@b"}`}, 415, "unsupported_media_type", nil},
		{"text content type", apiTReq{method: "POST", path: "/users", ctype: "text/plain", body: `{"name":"a","email":"a@b"}`}, 415, "unsupported_media_type", nil},
		{"form content type", apiTReq{method: "POST", path: "/users", ctype: "application/x-www-form-urlencoded", body: `name=a`}, 415, "unsupported_media_type", nil},
		{"malformed content type", apiTReq{method: "POST", path: "/users", ctype: "application/json; =", body: `{}`}, 415, "unsupported_media_type", nil},
		{"too large", apiTReq{method: "POST", path: "/users", ctype: ct, body: `{"name":"` + strings.Repeat("a", apiMaxBody) + `"}`}, 413, "payload_too_large", nil},
		{"PUT invalid", apiTReq{method: "PUT", path: "/users/1", ctype: ct, body: `{"name":"a"}`}, 422, "validation_failed",
			map[string]string{"email": "must contain @"}},
		{"PUT not JSON", apiTReq{method: "PUT", path: "/users/1", ctype: ct, body: `}`}, 400, "bad_request", nil},
		{"PUT wrong content type", apiTReq{method: "PUT", path: "/users/1", ctype: "text/json", body: `{}`}, 415, "unsupported_media_type", nil},
		{"PATCH invalid", apiTReq{method: "PATCH", path: "/users/1", ctype: ct, body: `{"email":"x","name":""}`}, 422, "validation_failed",
			map[string]string{"email": "must contain @", "name": "is required"}},
		{"PATCH null name", apiTReq{method: "PATCH", path: "/users/1", ctype: ct, body: `{"name":null}`}, 422, "validation_failed",
			map[string]string{"name": "is required"}},
		{"PATCH unknown team", apiTReq{method: "PATCH", path: "/users/1", ctype: ct, body: `{"team_id":99}`}, 422, "validation_failed",
			map[string]string{"team_id": "unknown team"}},
		{"PATCH array", apiTReq{method: "PATCH", path: "/users/1", ctype: ct, body: `[]`}, 400, "bad_request", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := apiTDo(t, srv, tt.req).wantError(t, tt.status, tt.code)
			if !reflect.DeepEqual(e.Fields, tt.fields) {
				t.Fatalf("fields %v, want %v", e.Fields, tt.fields)
			}
		})
	}
	// Nothing was created or changed.
	var list struct {
		Total int `json:"total"`
	}
	apiTGet(t, srv, "/users").decode(t, &list)
	if list.Total != 250 || string(apiTGet(t, srv, "/users/1").body) != apiTUserJSON(1)+"\n" {
		t.Fatalf("failed requests changed the data: total %d", list.Total)
	}
}

func TestAPI_TeamUsers(t *testing.T) {
	api, srv := apiTStart(t)
	post := func(path, body string) apiTResp {
		return apiTDo(t, srv, apiTReq{method: "POST", path: path, ctype: "application/json", body: body})
	}
	tests := []struct {
		name   string
		path   string
		body   string
		status int
		code   string
		fields map[string]string
	}{
		{"label mismatch", "/teams/1/users?team=payments", `[{"name":"a","email":"a@b"}]`, 409, "conflict", nil},
		{"label missing", "/teams/1/users", `[{"name":"a","email":"a@b"}]`, 409, "conflict", nil},
		{"team missing", "/teams/9/users?team=platform", `[]`, 404, "not_found", nil},
		{"team bad id", "/teams/x/users?team=platform", `[]`, 404, "not_found", nil},
		{"not an array", "/teams/1/users?team=platform", `{"name":"a","email":"a@b"}`, 400, "bad_request", nil},
		{"not JSON", "/teams/1/users?team=platform", `[{]`, 400, "bad_request", nil},
		{"invalid items", "/teams/1/users?team=Platform",
			`[{"name":"ok","email":"ok@x"},{"name":"b","email":"bee"},{"email":"c@x","team_id":2},7,{"name":"d","email":"d@x","team_id":"1"}]`,
			422, "validation_failed", map[string]string{
				"[1].email": "must contain @", "[2].name": "is required", "[2].team_id": "must be omitted or 1",
				"[3]": "must be an object", "[4].team_id": "must be an integer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := post(tt.path, tt.body).wantError(t, tt.status, tt.code)
			if !reflect.DeepEqual(e.Fields, tt.fields) {
				t.Fatalf("fields %v, want %v", e.Fields, tt.fields)
			}
		})
	}
	apiTDo(t, srv, apiTReq{method: "POST", path: "/teams/1/users?team=platform", ctype: "text/plain", body: `[]`}).
		wantError(t, 415, "unsupported_media_type")
	if n := apiTUserCount(api); n != 250 {
		t.Fatalf("failed bulk creates left %d users", n)
	}

	// A label with characters that need escaping, matched case-insensitively.
	r := post("/teams/5/users?team="+url.QueryEscape("data & ml"),
		`[{"name":"X","email":"x@x"},{"name":"Y","email":"y@y","team_id":5,"active":false}]`)
	r.wantStatus(t, http.StatusCreated)
	var team apiTTeam
	r.decode(t, &team)
	if team.ID != 5 || team.Name != "Data & ML" || len(team.MemberIDs) != 52 ||
		!slices.Equal(team.MemberIDs[50:], []int{251, 252}) {
		t.Fatalf("team after bulk create %+v", team)
	}
	var u apiTUser
	apiTGet(t, srv, "/users/252").decode(t, &u)
	if u.Name != "Y" || u.TeamID != 5 || u.Active {
		t.Fatalf("user 252 = %+v", u)
	}
	// An empty array creates nothing.
	r = post("/teams/2/users?team=PAYMENTS", `[]`)
	r.wantStatus(t, http.StatusCreated)
	r.decode(t, &team)
	if len(team.MemberIDs) != 50 {
		t.Fatalf("team 2 %+v", team)
	}
}

// apiTLinks parses Link header lines into rel -> target, and returns the
// link-values of each line. It is deliberately simple: the targets this API
// writes contain no commas or semicolons.
func apiTLinks(t *testing.T, lines []string) (map[string]string, [][]string) {
	t.Helper()
	rels := map[string]string{}
	var values [][]string
	for _, line := range lines {
		var vs []string
		for _, lv := range strings.Split(line, ",") {
			lv = strings.TrimSpace(lv)
			vs = append(vs, lv)
			target, params, ok := strings.Cut(lv, ";")
			if !ok || !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
				t.Fatalf("malformed link-value %q", lv)
			}
			params = strings.TrimSpace(params)
			rel, ok := strings.CutPrefix(params, "rel=")
			if !ok {
				t.Fatalf("link-value %q has no rel", lv)
			}
			for _, r := range strings.Fields(strings.Trim(rel, `"`)) {
				if _, dup := rels[r]; dup {
					t.Fatalf("rel %q twice in %q", r, lines)
				}
				rels[r] = target[1 : len(target)-1]
			}
		}
		values = append(values, vs)
	}
	return rels, values
}

func TestAPI_LinkHeader(t *testing.T) {
	_, srv := apiTStart(t)
	ref := func(page int) string { return fmt.Sprintf("<users?page=%d&per_page=10>", page) }
	tests := []struct {
		page  int
		lines []string
	}{
		{1, []string{ref(1) + `; rel="first"`, ref(2) + `; rel="next", ` + ref(25) + `; rel="last"`}},
		{2, []string{ref(1) + `; rel="first", ` + ref(1) + `; rel="prev"`, ref(3) + `; rel="next", ` + ref(25) + `; rel="last"`}},
		{12, []string{ref(1) + `; rel="first", ` + ref(11) + `; rel="prev"`, ref(13) + `; rel="next", ` + ref(25) + `; rel="last"`}},
		{24, []string{ref(1) + `; rel="first", ` + ref(23) + `; rel="prev"`, ref(25) + `; rel="next last"`}},
		{25, []string{ref(1) + `; rel="first", ` + ref(24) + `; rel="prev"`, ref(25) + `; rel="last"`}},
		{26, []string{ref(1) + `; rel="first", ` + ref(25) + `; rel="prev"`, ref(25) + `; rel="last"`}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("page ", tt.page), func(t *testing.T) {
			r := apiTGet(t, srv, fmt.Sprintf("/linked/users?page=%d&per_page=10", tt.page))
			r.wantStatus(t, http.StatusOK)
			if got := r.header.Values("Link"); !slices.Equal(got, tt.lines) {
				t.Fatalf("Link lines:\n%q\nwant\n%q", got, tt.lines)
			}
			rels, _ := apiTLinks(t, r.header.Values("Link"))
			_, hasNext := rels["next"]
			if hasNext != (tt.page < 25) {
				t.Fatalf("next present: %v", hasNext)
			}
			var us []apiTUser
			r.decode(t, &us)
			if tt.page <= 25 && (len(us) != 10 || us[0].ID != tt.page*10-9) || tt.page > 25 && len(us) != 0 {
				t.Fatalf("page %d ids %v", tt.page, apiTIDs(us))
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		r := apiTGet(t, srv, "/linked/users")
		want := []string{`<users?page=1&per_page=20>; rel="first"`,
			`<users?page=2&per_page=20>; rel="next", <users?page=13&per_page=20>; rel="last"`}
		if got := r.header.Values("Link"); !slices.Equal(got, want) {
			t.Fatalf("Link %q, want %q", got, want)
		}
	})
	t.Run("second-to-last", func(t *testing.T) {
		r := apiTGet(t, srv, "/linked/users?per_page=200")
		r.wantError(t, 400, "bad_request")
		r = apiTGet(t, srv, "/linked/users?per_page=100&page=2")
		want := []string{`<users?page=1&per_page=100>; rel="first", <users?page=1&per_page=100>; rel="prev"`,
			`<users?page=3&per_page=100>; rel="next last"`}
		if got := r.header.Values("Link"); !slices.Equal(got, want) {
			t.Fatalf("Link %q, want %q", got, want)
		}
	})
	t.Run("filters kept", func(t *testing.T) {
		// Active users of team 3 whose name contains "a k": 13, 53, 173.
		r := apiTGet(t, srv, "/linked/users?q=a+k&team_id=3&per_page=1&active=true&x=%3C%2C%3E")
		const f = "&active=true&q=a+k&team_id=3&x=%3C%2C%3E"
		want := []string{`<users?page=1&per_page=1` + f + `>; rel="first"`,
			`<users?page=2&per_page=1` + f + `>; rel="next", <users?page=3&per_page=1` + f + `>; rel="last"`}
		if got := r.header.Values("Link"); !slices.Equal(got, want) {
			t.Fatalf("Link %q, want %q", got, want)
		}
		var us []apiTUser
		r.decode(t, &us)
		if !slices.Equal(apiTIDs(us), []int{13}) {
			t.Fatalf("ids %v", apiTIDs(us))
		}
		if got := apiTWalkLinked(t, srv, "/linked/users", "q=a+k&team_id=3&active=true&", 1); !slices.Equal(got, []int{13, 53, 173}) {
			t.Fatalf("walk %v", got)
		}
	})
	t.Run("single page", func(t *testing.T) {
		_, srv := apiTStart(t, WithUsers(3))
		r := apiTGet(t, srv, "/linked/users")
		want := []string{`<users?page=1&per_page=20>; rel="first"`, `<users?page=1&per_page=20>; rel="last"`}
		if got := r.header.Values("Link"); !slices.Equal(got, want) {
			t.Fatalf("Link %q, want %q", got, want)
		}
		_, srv = apiTStart(t, WithUsers(0))
		r = apiTGet(t, srv, "/linked/users")
		if got := r.header.Values("Link"); !slices.Equal(got, want) || string(r.body) != "[]\n" {
			t.Fatalf("Link %q body %s", got, r.body)
		}
		// Two pages: the first page's next is also the last.
		_, srv = apiTStart(t, WithUsers(30))
		r = apiTGet(t, srv, "/linked/users")
		want = []string{`<users?page=1&per_page=20>; rel="first"`, `<users?page=2&per_page=20>; rel="next last"`}
		if got := r.header.Values("Link"); !slices.Equal(got, want) {
			t.Fatalf("Link %q, want %q", got, want)
		}
	})
}

// apiTWalk walks a pagination style from path (with the query q, which may
// be empty) and returns the user ids in the order served.
type apiTWalk func(t *testing.T, srv *httptest.Server, prefix, q string, size int) []int

const apiTMaxPages = 1000

func apiTWalkPages(itemsKey, sizeParam string) apiTWalk {
	return func(t *testing.T, srv *httptest.Server, prefix, q string, size int) []int {
		var ids []int
		for page := 1; page < apiTMaxPages; page++ {
			r := apiTGet(t, srv, fmt.Sprintf("%s?%spage=%d&%s=%d", prefix, q, page, sizeParam, size))
			r.wantStatus(t, 200)
			var body map[string]json.RawMessage
			r.decode(t, &body)
			raw := body[itemsKey]
			if itemsKey == "payload.records" {
				var p map[string]json.RawMessage
				json.Unmarshal(body["payload"], &p)
				raw = p["records"]
				if string(body["page"]) != strconv.Itoa(page) {
					t.Fatalf("page %s, want %d", body["page"], page)
				}
			}
			var us []apiTUser
			if err := json.Unmarshal(raw, &us); err != nil || us == nil {
				t.Fatalf("items %q of %s: %v", itemsKey, r.body, err)
			}
			if len(us) == 0 {
				return ids
			}
			ids = append(ids, apiTIDs(us)...)
		}
		t.Fatal("walk did not end")
		return nil
	}
}

func apiTWalkOffset(t *testing.T, srv *httptest.Server, prefix, q string, size int) []int {
	var ids []int
	offset := 0
	for range apiTMaxPages {
		r := apiTGet(t, srv, fmt.Sprintf("%s?%soffset=%d&limit=%d", prefix, q, offset, size))
		var body struct {
			Items                []apiTUser
			Offset, Limit, Total int
		}
		r.decode(t, &body)
		if body.Items == nil || body.Offset != offset || body.Limit != size {
			t.Fatalf("offset page %s", r.body)
		}
		ids = append(ids, apiTIDs(body.Items)...)
		offset += len(body.Items)
		if offset >= body.Total {
			if len(ids) != body.Total {
				t.Fatalf("walked %d, total %d", len(ids), body.Total)
			}
			return ids
		}
	}
	t.Fatal("walk did not end")
	return nil
}

func apiTWalkCursor(flat bool) apiTWalk {
	return func(t *testing.T, srv *httptest.Server, prefix, q string, size int) []int {
		var ids []int
		cursor := ""
		for range apiTMaxPages {
			r := apiTGet(t, srv, fmt.Sprintf("%s?%slimit=%d&cursor=%s", prefix, q, size, url.QueryEscape(cursor)))
			var body struct {
				Results    []apiTUser
				NextCursor *string `json:"next_cursor"`
				Meta       *struct {
					NextCursor *string `json:"next_cursor"`
				}
			}
			r.decode(t, &body)
			if body.Results == nil {
				t.Fatalf("cursor page %s", r.body)
			}
			ids = append(ids, apiTIDs(body.Results)...)
			var next *string
			if flat {
				if body.Meta != nil || body.NextCursor == nil {
					t.Fatalf("flat cursor page %s", r.body)
				}
				if next = body.NextCursor; *next == "" {
					return ids
				}
			} else {
				if body.Meta == nil || bytes.Contains(r.body, []byte(`"results":[],`)) && body.Meta.NextCursor != nil {
					t.Fatalf("cursor page %s", r.body)
				}
				if next = body.Meta.NextCursor; next == nil {
					return ids
				}
			}
			if len(body.Results) != size {
				t.Fatalf("a page with a next cursor has %d results, want %d", len(body.Results), size)
			}
			cursor = *next
		}
		t.Fatal("walk did not end")
		return nil
	}
}

// apiTWalkLinked follows rel="next", resolving each target against the
// request URL.
func apiTWalkLinked(t *testing.T, srv *httptest.Server, prefix, q string, size int) []int {
	var ids []int
	u, err := url.Parse(fmt.Sprintf("%s%s?%sper_page=%d", srv.URL, prefix, q, size))
	if err != nil {
		t.Fatal(err)
	}
	for range apiTMaxPages {
		resp, err := srv.Client().Get(u.String())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		r := apiTResp{status: resp.StatusCode, header: resp.Header, body: body}
		r.wantStatus(t, 200)
		var us []apiTUser
		r.decode(t, &us)
		ids = append(ids, apiTIDs(us)...)
		lines := resp.Header.Values("Link")
		if len(lines) != 2 {
			t.Fatalf("%d Link lines, want 2: %q", len(lines), lines)
		}
		rels, _ := apiTLinks(t, lines)
		if rels["first"] == "" || rels["last"] == "" {
			t.Fatalf("Link without first or last: %q", lines)
		}
		next, ok := rels["next"]
		if !ok {
			if rels["last"] != "" {
				last, _ := url.Parse(rels["last"])
				if !strings.HasSuffix(u.ResolveReference(last).Path, prefix) {
					t.Fatalf("last resolves to %v", u.ResolveReference(last))
				}
			}
			return ids
		}
		ref, err := url.Parse(next)
		if err != nil {
			t.Fatalf("next %q: %v", next, err)
		}
		u = u.ResolveReference(ref)
	}
	t.Fatal("walk did not end")
	return nil
}

// apiTWalkClamped walks /clamped/users until a page repeats.
func apiTWalkClamped(t *testing.T, srv *httptest.Server, prefix, q string, size int) []int {
	var ids []int
	var prev []int
	for page := 1; page < apiTMaxPages; page++ {
		var body struct{ Data []apiTUser }
		apiTGet(t, srv, fmt.Sprintf("%s?%spage=%d&page_size=%d", prefix, q, page, size)).decode(t, &body)
		got := apiTIDs(body.Data)
		if len(got) == 0 {
			if page != 1 {
				t.Fatalf("clamped served an empty page %d", page)
			}
			return ids
		}
		if slices.Equal(got, prev) {
			return ids
		}
		ids = append(ids, got...)
		prev = got
	}
	t.Fatal("walk did not end")
	return nil
}

func TestAPI_PaginationWalks(t *testing.T) {
	styles := []struct {
		name string
		path string
		walk apiTWalk
	}{
		{"users", "/users", apiTWalkPages("data", "page_size")},
		{"paged", "/paged/users", apiTWalkPages("data", "page_size")},
		{"nested", "/nested/users", apiTWalkPages("payload.records", "page_size")},
		{"offset", "/offset/users", apiTWalkOffset},
		{"cursor", "/cursor/users", apiTWalkCursor(false)},
		{"cursor-flat", "/cursor-flat/users", apiTWalkCursor(true)},
		{"linked", "/linked/users", apiTWalkLinked},
		{"clamped", "/clamped/users", apiTWalkClamped},
	}
	filters := []struct {
		name string
		q    string
		keep func(id int) bool
	}{
		{"all", "", nil},
		{"active team 2", "active=true&team_id=2&", func(id int) bool { return id%3 != 0 && (id-1)%5 == 1 }},
		{"q", "q=" + url.QueryEscape("hop") + "&", func(id int) bool { return (id-1)%27 == 7 }},
	}
	for _, n := range []int{0, 1, 19, 20, 21, 250} {
		_, srv := apiTStart(t, WithUsers(n))
		for _, st := range styles {
			for _, f := range filters {
				for _, size := range []int{1, 7, 20, 100} {
					if size == 1 && n == 250 && f.name == "all" && st.name != "cursor" {
						continue // long; the cursor walk covers it
					}
					t.Run(fmt.Sprintf("%s/n=%d/%s/size=%d", st.name, n, f.name, size), func(t *testing.T) {
						got := st.walk(t, srv, st.path, f.q, size)
						want := apiTExpected(n, f.keep)
						if !slices.Equal(got, want) {
							t.Fatalf("walked %v,\nwant %v", got, want)
						}
					})
				}
			}
		}
	}
	t.Run("stuck", func(t *testing.T) {
		_, srv := apiTStart(t)
		var first []byte
		cursor := ""
		for i := range 3 {
			r := apiTGet(t, srv, "/stuck/users?cursor="+cursor)
			var body struct {
				Results []apiTUser
				Meta    struct {
					NextCursor *string `json:"next_cursor"`
				}
			}
			r.decode(t, &body)
			if len(body.Results) != 20 || body.Meta.NextCursor == nil || *body.Meta.NextCursor != "stuck" {
				t.Fatalf("stuck page %s", r.body)
			}
			if i == 0 {
				first = r.body
			} else if !bytes.Equal(r.body, first) {
				t.Fatalf("stuck page changed")
			}
			cursor = *body.Meta.NextCursor
		}
	})
}

func TestAPI_TokenTTL(t *testing.T) {
	api, srv, clock := apiTStartClock(t, WithTokenTTL(90*time.Second+time.Millisecond))
	r := apiTDo(t, srv, apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":"demo","password":"s3cret"}`})
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	r.decode(t, &tok)
	if len(tok.AccessToken) != 32 || strings.Trim(tok.AccessToken, "0123456789abcdef") != "" ||
		tok.TokenType != "Bearer" || tok.ExpiresIn != 91 {
		t.Fatalf("token %+v", tok)
	}
	for range 3 {
		apiTDo(t, srv, apiTReq{path: "/me", token: tok.AccessToken}).wantStatus(t, 200)
	}
	clock.Advance(90 * time.Second)
	apiTDo(t, srv, apiTReq{path: "/private/reports", token: tok.AccessToken}).wantStatus(t, 200)
	clock.Advance(time.Millisecond)
	r = apiTDo(t, srv, apiTReq{path: "/me", token: tok.AccessToken})
	r.wantError(t, 401, "unauthorized")
	if h := r.header.Get("WWW-Authenticate"); h != `Bearer error="invalid_token"` {
		t.Fatalf("WWW-Authenticate %q", h)
	}
	apiTDo(t, srv, apiTReq{path: "/me", token: tok.AccessToken}).wantError(t, 401, "unauthorized")
	// A new login gives a fresh token.
	tok2 := apiTLogin(t, srv)
	if tok2 == tok.AccessToken {
		t.Fatal("same token twice")
	}
	apiTDo(t, srv, apiTReq{path: "/me", token: tok2}).wantStatus(t, 200)
	if st := api.Stats(); st.Logins != 2 || st.Unauthorized != 2 {
		t.Fatalf("stats %+v", st)
	}

	// No TTL: no expiry, no expires_in.
	_, srv, clock = apiTStartClock(t, WithTokenTTL(0))
	r = apiTDo(t, srv, apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":"demo","password":"s3cret"}`})
	if bytes.Contains(r.body, []byte("expires_in")) {
		t.Fatalf("login without TTL: %s", r.body)
	}
	var tok3 struct {
		AccessToken string `json:"access_token"`
	}
	r.decode(t, &tok3)
	clock.Advance(100 * 365 * 24 * time.Hour)
	apiTDo(t, srv, apiTReq{path: "/me", token: tok3.AccessToken}).wantStatus(t, 200)

	// Real clock: a token is valid within its TTL (an hour: no machine is
	// that slow)...
	_, srv = apiTStart(t, WithTokenTTL(time.Hour))
	tk := apiTLogin(t, srv)
	apiTDo(t, srv, apiTReq{path: "/me", token: tk}).wantStatus(t, 200)
	// ...and expired once its TTL has passed: the wait starts after the
	// login returned, so it is at least the TTL whatever the machine's load.
	const shortTTL = 100 * time.Millisecond
	_, srv = apiTStart(t, WithTokenTTL(shortTTL))
	tk = apiTLogin(t, srv)
	time.Sleep(shortTTL + 10*time.Millisecond)
	apiTDo(t, srv, apiTReq{path: "/me", token: tk}).wantError(t, 401, "unauthorized")
}

func TestAPI_TokenUses(t *testing.T) {
	api, srv := apiTStart(t, WithTokenUses(3))
	tok := apiTLogin(t, srv)
	// Routes that do not require a token do not use it.
	for range 5 {
		apiTDo(t, srv, apiTReq{path: "/users/1", token: tok}).wantStatus(t, 200)
	}
	for i := range 3 {
		path := []string{"/me", "/private/reports", "/me"}[i]
		apiTDo(t, srv, apiTReq{path: path, token: tok}).wantStatus(t, 200)
	}
	apiTDo(t, srv, apiTReq{path: "/me", token: tok}).wantError(t, 401, "unauthorized")
	apiTDo(t, srv, apiTReq{path: "/me", token: tok}).wantError(t, 401, "unauthorized")
	// Each token has its own count.
	tok2 := apiTLogin(t, srv)
	apiTDo(t, srv, apiTReq{path: "/me", token: tok2}).wantStatus(t, 200)
	if st := api.Stats(); st.Unauthorized != 2 || st.Logins != 2 {
		t.Fatalf("stats %+v", st)
	}
	// A rejected request does not use the token: an unknown one is not
	// created either.
	_, srv1 := apiTStart(t, WithTokenUses(1))
	tok = apiTLogin(t, srv1)
	apiTDo(t, srv1, apiTReq{path: "/me", token: tok}).wantStatus(t, 200)
	apiTDo(t, srv1, apiTReq{path: "/me", token: tok}).wantError(t, 401, "unauthorized")
}

func TestAPI_ExpireTokens(t *testing.T) {
	api, srv := apiTStart(t, WithRequireAuth(true))
	tokens := []string{apiTLogin(t, srv), apiTLogin(t, srv), apiTLogin(t, srv)}
	for _, tok := range tokens {
		apiTDo(t, srv, apiTReq{path: "/users", token: tok}).wantStatus(t, 200)
	}
	api.ExpireTokens()
	var wg sync.WaitGroup
	for range 4 {
		for _, tok := range tokens {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := apiTDo(t, srv, apiTReq{path: "/users/3", token: tok})
				if r.status != 401 || r.header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
					t.Errorf("after ExpireTokens: %d %s", r.status, r.body)
				}
			}()
		}
	}
	wg.Wait()
	if st := api.Stats(); st.Unauthorized != 12 || st.Logins != 3 {
		t.Fatalf("stats %+v", st)
	}
	tok := apiTLogin(t, srv)
	apiTDo(t, srv, apiTReq{path: "/users/3", token: tok}).wantStatus(t, 200)
	// Reset invalidates tokens too, and zeroes the counters.
	api.Reset()
	if st := api.Stats(); st.Requests != 0 || st.Logins != 0 || st.Unauthorized != 0 || len(st.ByPath) != 0 || st.ByPath == nil {
		t.Fatalf("stats after Reset %+v", st)
	}
	apiTDo(t, srv, apiTReq{path: "/users/3", token: tok}).wantError(t, 401, "unauthorized")
}

func TestAPI_RequireAuth(t *testing.T) {
	_, srv := apiTStart(t, WithRequireAuth(true), WithCredentials("alice", "pw"))
	// Login with the new credentials only.
	apiTDo(t, srv, apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":"demo","password":"s3cret"}`}).
		wantError(t, 401, "invalid_credentials")
	r := apiTDo(t, srv, apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":"alice","password":"pw"}`})
	r.wantStatus(t, 200)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.decode(t, &tok)

	open := []apiTReq{{path: "/health"}, {path: "/status/418"}, {method: "POST", path: "/status/500"}}
	for _, rq := range open {
		if r := apiTDo(t, srv, rq); r.status == 401 {
			t.Errorf("%s %s needs a token", rq.method, rq.path)
		}
	}
	protected := []apiTReq{
		{path: "/users"}, {path: "/users/1"}, {path: "/users/1/posts"}, {path: "/teams"}, {path: "/teams/1"},
		{method: "POST", path: "/users", ctype: "application/json", body: `{"name":"a","email":"a@b"}`},
		{method: "PUT", path: "/users/2", ctype: "application/json", body: `{"name":"a","email":"a@b"}`},
		{method: "PATCH", path: "/users/2", ctype: "application/json", body: `{"name":"b"}`},
		{method: "POST", path: "/teams/1/users?team=platform", ctype: "application/json", body: `[]`},
		{path: "/paged/users"}, {path: "/offset/users"}, {path: "/cursor/users"}, {path: "/cursor-flat/users"},
		{path: "/linked/users"}, {path: "/nested/users"}, {path: "/clamped/users"}, {path: "/stuck/users"},
		{path: "/me"}, {path: "/private/reports"}, {path: "/slow?ms=1"}, {path: "/text"}, {path: "/big?bytes=1"},
		{path: "/echo"}, {method: "POST", path: "/echo/x"},
		{method: "DELETE", path: "/users/3"},
	}
	for _, rq := range protected {
		t.Run(rq.method+" "+rq.path, func(t *testing.T) {
			apiTDo(t, srv, rq).wantError(t, 401, "unauthorized")
			rq.token = tok.AccessToken
			if r := apiTDo(t, srv, rq); r.status >= 400 {
				t.Fatalf("with a token: %d %s", r.status, r.body)
			}
		})
	}
}

func TestAPI_Stats(t *testing.T) {
	api, srv := apiTStart(t)
	apiTGet(t, srv, "/users?page=2")
	apiTGet(t, srv, "/users?page=3")
	apiTGet(t, srv, "/users/9")
	apiTGet(t, srv, "/nope")
	apiTDo(t, srv, apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{}`})
	apiTDo(t, srv, apiTReq{method: "DELETE", path: "/health"})
	apiTGet(t, srv, "/me")
	st := api.Stats()
	want := map[string]int{"GET /users": 2, "GET /users/9": 1, "GET /nope": 1, "POST /login": 1, "DELETE /health": 1, "GET /me": 1}
	if st.Requests != 7 || st.Logins != 1 || st.Unauthorized != 1 || !reflect.DeepEqual(st.ByPath, want) {
		t.Fatalf("stats %+v", st)
	}
	// The snapshot is a copy.
	st.ByPath["GET /users"] = 100
	if api.Stats().ByPath["GET /users"] != 2 {
		t.Fatal("Stats shares its map")
	}
}

func TestAPI_StripPrefix(t *testing.T) {
	api := NewAPI()
	mux := http.NewServeMux()
	mux.Handle("/api/v1/", http.StripPrefix("/api/v1", api))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	apiTGet(t, srv, "/api/v1/health").wantStatus(t, 200)
	var u apiTUser
	apiTGet(t, srv, "/api/v1/users/3").decode(t, &u)
	if u.ID != 3 {
		t.Fatalf("user %+v", u)
	}
	// Link targets resolve under the prefix, and the walk covers everyone.
	if got := apiTWalkLinked(t, srv, "/api/v1/linked/users", "team_id=3&", 7); !slices.Equal(got, apiTExpected(250, func(id int) bool { return id%5 == 3 })) {
		t.Fatalf("linked walk under prefix: %v", got)
	}
	r := apiTGet(t, srv, "/api/v1/linked/users?page=2")
	rels, _ := apiTLinks(t, r.header.Values("Link"))
	for rel, target := range rels {
		ref, _ := url.Parse(target)
		if got := r.url.ResolveReference(ref); got.Path != "/api/v1/linked/users" {
			t.Errorf("rel %s resolves to %v", rel, got)
		}
	}
	// Redirects from /status stay under the prefix.
	r = apiTGet(t, srv, "/api/v1/status/302")
	r.wantStatus(t, 200)
	if r.url.Path != "/api/v1/health" {
		t.Fatalf("redirected to %v", r.url)
	}
	// Location of a created user too.
	r = apiTDo(t, srv, apiTReq{method: "POST", path: "/api/v1/users", ctype: "application/json", body: `{"name":"p","email":"p@x"}`})
	r.wantStatus(t, 201)
	loc, _ := url.Parse(r.header.Get("Location"))
	apiTGet(t, srv, r.url.ResolveReference(loc).Path).wantStatus(t, 200)

	// Every walk works under the prefix.
	for _, w := range []struct {
		path string
		walk apiTWalk
	}{
		{"/api/v1/users", apiTWalkPages("data", "page_size")},
		{"/api/v1/offset/users", apiTWalkOffset},
		{"/api/v1/cursor/users", apiTWalkCursor(false)},
		{"/api/v1/cursor-flat/users", apiTWalkCursor(true)},
		{"/api/v1/nested/users", apiTWalkPages("payload.records", "page_size")},
	} {
		if got := w.walk(t, srv, w.path, "", 30); len(got) != 251 {
			t.Fatalf("%s: walked %d users", w.path, len(got))
		}
	}
	// Echo shows both paths; errors are JSON; stats use the stripped path.
	var e struct {
		Path       string `json:"path"`
		RequestURI string `json:"request_uri"`
	}
	apiTGet(t, srv, "/api/v1/echo?x=1").decode(t, &e)
	if e.Path != "/echo" || e.RequestURI != "/api/v1/echo?x=1" {
		t.Fatalf("echo %+v", e)
	}
	apiTGet(t, srv, "/api/v1/nope").wantError(t, 404, "not_found")
	apiTDo(t, srv, apiTReq{method: "PUT", path: "/api/v1/teams"}).wantError(t, 405, "method_not_allowed")
	if api.Stats().ByPath["GET /health"] != 2 { // one direct, one redirected
		t.Fatalf("ByPath %v", api.Stats().ByPath)
	}
}

func TestAPI_SlowCancel(t *testing.T) {
	_, srv := apiTStart(t)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/slow?ms=30000", nil)
	start := time.Now()
	if resp, err := srv.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("want a timeout")
	}
	// The handler returns when the request's context is done, so the
	// server closes promptly.
	srv.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("slow handler kept running for %v", d)
	}
	// A huge ms is capped (checked without waiting).
	_, srv2 := apiTStart(t)
	ctx2, cancel2 := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel2()
	req, _ = http.NewRequestWithContext(ctx2, "GET", srv2.URL+"/slow?ms=9223372036854775807", nil)
	if resp, err := srv2.Client().Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("want a timeout")
	}
	rec := httptest.NewRecorder()
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	NewAPI().ServeHTTP(rec, httptest.NewRequestWithContext(cctx, "GET", "/slow?ms=99999999", nil))
	if rec.Body.String() != `{"slept_ms":30000}`+"\n" {
		t.Fatalf("capped slow: %s", rec.Body)
	}
}

func TestAPI_Big(t *testing.T) {
	_, srv := apiTStart(t)
	for _, tt := range []struct {
		q    string
		want int
	}{{"100000", 100000}, {"65537", 65537}, {"99999999999", 64 << 20}} {
		resp, err := srv.Client().Get(srv.URL + "/big?bytes=" + tt.q)
		if err != nil {
			t.Fatal(err)
		}
		// Check the body while streaming it: '"', want × 'a', '"'.
		n, bad := 0, false
		buf := make([]byte, 64<<10)
		for {
			k, rerr := resp.Body.Read(buf)
			for _, c := range buf[:k] {
				switch {
				case n == 0 || n == tt.want+1:
					bad = bad || c != '"'
				default:
					bad = bad || c != 'a'
				}
				n++
			}
			if rerr != nil {
				err = rerr
				break
			}
		}
		resp.Body.Close()
		if err != io.EOF || bad || n != tt.want+2 || resp.ContentLength != int64(tt.want+2) {
			t.Fatalf("bytes=%s: read %d bytes (bad content: %v), Content-Length %d, %v", tt.q, n, bad, resp.ContentLength, err)
		}
	}
	// A client that hangs up early does not break the server.
	resp, err := srv.Client().Get(srv.URL + "/big?bytes=10000000")
	if err != nil {
		t.Fatal(err)
	}
	io.CopyN(io.Discard, resp.Body, 1000)
	resp.Body.Close()
	apiTGet(t, srv, "/health").wantStatus(t, 200)
}

func TestAPI_Concurrent(t *testing.T) {
	api, srv := apiTStart(t, WithTokenUses(50))
	var wg sync.WaitGroup
	const workers = 16
	errs := make(chan string, workers*100)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := apiTLogin(t, srv)
			for i := range 25 {
				var r apiTResp
				switch (w + i) % 10 {
				case 0:
					r = apiTDo(t, srv, apiTReq{method: "POST", path: "/users", ctype: "application/json",
						body: fmt.Sprintf(`{"name":"w%d-%d","email":"w%d@x","team_id":%d}`, w, i, w, i%5+1)})
				case 1:
					r = apiTGet(t, srv, fmt.Sprintf("/users?page=%d&page_size=13&active=true", i%5+1))
				case 2:
					r = apiTDo(t, srv, apiTReq{method: "PATCH", path: fmt.Sprintf("/users/%d", 10+w), ctype: "application/json",
						body: fmt.Sprintf(`{"name":"p%d"}`, i)})
				case 3:
					r = apiTDo(t, srv, apiTReq{method: "DELETE", path: fmt.Sprintf("/users/%d", 100+w*5+i%5)})
					if r.status == 404 {
						r.status = 204
					}
				case 4:
					r = apiTGet(t, srv, "/cursor/users?limit=30&cursor="+apiEncodeCursor(w*10+1))
				case 5:
					r = apiTDo(t, srv, apiTReq{path: "/me", token: tok})
				case 6:
					r = apiTGet(t, srv, "/linked/users?page=3&per_page=9")
				case 7:
					r = apiTDo(t, srv, apiTReq{method: "POST", path: "/teams/3/users?team=growth", ctype: "application/json",
						body: `[{"name":"g","email":"g@x"}]`})
				case 8:
					r = apiTGet(t, srv, "/teams")
					_ = api.Stats()
				case 9:
					r = apiTDo(t, srv, apiTReq{method: "PUT", path: fmt.Sprintf("/users/%d", 200+w), ctype: "application/json",
						body: `{"name":"r","email":"r@x"}`})
				}
				if r.status >= 400 {
					errs <- fmt.Sprintf("worker %d step %d: %d %s", w, i, r.status, r.body)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	st := api.Stats()
	if st.Requests != workers*26 || st.Logins != workers {
		t.Fatalf("stats: %d requests, %d logins", st.Requests, st.Logins)
	}
	// Ids stay unique and sorted.
	var ids []int
	api.mu.Lock()
	for _, u := range api.users {
		ids = append(ids, u.ID)
	}
	api.mu.Unlock()
	if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Fatal("user ids are not unique and sorted")
	}

	// Reset, ExpireTokens and Stats race with requests without harm.
	var wg2 sync.WaitGroup
	stop := make(chan struct{})
	wg2.Add(1)
	go func() {
		defer wg2.Done()
		for {
			select {
			case <-stop:
				return
			default:
				api.Reset()
				api.ExpireTokens()
				_ = api.Stats()
			}
		}
	}()
	// The requests run while the resetting goroutine runs: it stops once
	// they are done, not after a wall-clock window.
	var requests sync.WaitGroup
	for range 8 {
		requests.Add(1)
		go func() {
			defer requests.Done()
			for range 20 {
				for _, path := range []string{"/users/5", "/offset/users?offset=5", "/clamped/users?page=40"} {
					if r := apiTGet(t, srv, path); r.status >= 500 {
						t.Errorf("%s: %d", path, r.status)
					}
				}
			}
		}()
	}
	requests.Wait()
	close(stop)
	wg2.Wait()
}

// apiTHostile are requests that must be answered with a 4xx and a JSON
// error, never a panic or a 5xx.
var apiTHostile = []struct{ method, target, ctype, body string }{
	{"GET", "/users?page=-9223372036854775808", "", ""},
	{"GET", "/users?page=9223372036854775808", "", ""},
	{"GET", "/users?page_size=-9223372036854775808", "", ""},
	{"GET", "/users?team_id=99999999999999999999", "", ""},
	{"GET", "/offset/users?offset=-9223372036854775808&limit=1", "", ""},
	{"GET", "/cursor/users?cursor=" + apiEncodeCursor(0), "", ""},
	{"GET", "/cursor/users?cursor=" + base64.RawURLEncoding.EncodeToString([]byte("after:-5")), "", ""},
	{"GET", "/cursor/users?cursor=" + base64.RawURLEncoding.EncodeToString([]byte("after:99999999999999999999999")), "", ""},
	{"GET", "/cursor/users?cursor=====", "", ""},
	{"GET", "/cursor/users?limit=0", "", ""},
	{"GET", "/linked/users?page=0", "", ""},
	{"GET", "/nested/users?page=x", "", ""},
	{"GET", "/clamped/users?page_size=-1", "", ""},
	{"GET", "/stuck/users?limit=1000", "", ""},
	{"GET", "/users/%00", "", ""},
	{"GET", "/users/1%2F2", "", ""},
	{"GET", "/users/18446744073709551617/posts", "", ""},
	{"GET", "/teams/9223372036854775807", "", ""},
	{"GET", "/status/-200", "", ""},
	{"GET", "/status/99999999999999999999", "", ""},
	{"GET", "/big?bytes=-9223372036854775808", "", ""},
	{"GET", "/slow?ms=abc", "", ""},
	{"POST", "/users", "application/json", "\x00\xff"},
	{"POST", "/users", "application/json", `{"name":"\ud800","email":""}`},
	{"POST", "/users", "application/json", `{"name":{"a":[[[[[]]]]]},"email":true}`},
	{"POST", "/users", "application/json", strings.Repeat("[", 100000)},
	{"POST", "/users", "application/json; charset=\"", `{}`},
	{"PUT", "/users/1", "application/json", `{"team_id":-9223372036854775809}`},
	{"PATCH", "/users/1", "application/json", `{"active":1}`},
	{"PATCH", "/users/1", "application/json", `"str"`},
	{"POST", "/teams/1/users?team=platform", "application/json", `[null,[],"x",{"team_id":1e999}]`},
	{"POST", "/teams/1/users?team=platform", "application/json", `[` + strings.Repeat(`{},`, 1000) + `{}]`},
	{"POST", "/teams/1/users?team=%ZZ", "application/json", `[]`},
	{"POST", "/login", "application/json", `[]`},
	{"POST", "/login", "application/x-www-form-urlencoded", "%zz=%"},
	{"POST", "/login", "", ""},
	{"POST", "/echo", "", `{"a":`},
	{"TRACE", "/users", "", ""},
	{"OPTIONS", "/users/1", "", ""},
	{"BREW", "/health", "", ""},
	{"GET", "/users/1/posts/2", "", ""},
	{"GET", "/private", "", ""},
	{"GET", "/private/other", "", ""},
}

func TestAPI_HostileRequests(t *testing.T) {
	_, srv := apiTStart(t)
	for _, h := range apiTHostile {
		t.Run(h.method+" "+h.target, func(t *testing.T) {
			req, err := http.NewRequest(h.method, srv.URL+h.target, strings.NewReader(h.body))
			if err != nil {
				t.Fatal(err)
			}
			if h.ctype != "" {
				req.Header.Set("Content-Type", h.ctype)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			r := apiTResp{status: resp.StatusCode, header: resp.Header, body: body}
			if r.status < 400 || r.status >= 500 {
				t.Fatalf("status %d, want 4xx; body %s", r.status, body)
			}
			var e apiTErr
			r.decode(t, &e)
			if e.Error == "" || e.Message == "" {
				t.Fatalf("error body %s", body)
			}
		})
	}
}

// FuzzAPI checks that no request makes the API panic or answer a 5xx
// (other than /status/5xx).
func FuzzAPI(f *testing.F) {
	for _, h := range apiTHostile {
		f.Add(h.method, h.target, h.ctype, []byte(h.body))
	}
	f.Add("GET", "/users?page=2&page_size=3&q=ada", "", []byte(nil))
	f.Add("POST", "/users", "application/json", []byte(`{"name":"a","email":"a@b","team_id":2}`))
	f.Add("PATCH", "/users/3", "application/json", []byte(`{"team_id":4}`))
	f.Add("GET", "/linked/users?page=24&per_page=10", "", []byte(nil))
	f.Add("GET", "/brackets?a[0][b]=x&a[1][c]=y&t[]=1&m[k]=v", "", []byte(nil))
	f.Add("POST", "/brackets", "application/x-www-form-urlencoded", []byte("items[0][price]=p&metadata[k]=v&a=1&a[b]=2"))
	api := NewAPI(WithUsers(30), WithRequireAuth(false))
	f.Fuzz(func(t *testing.T, method, target, ctype string, body []byte) {
		u, err := url.ParseRequestURI(target)
		if err != nil || !strings.HasPrefix(target, "/") || strings.HasPrefix(u.Path, "/slow") ||
			strings.HasPrefix(u.Path, "/big") || strings.HasPrefix(u.Path, "/status") || !httpsyntax.IsToken(method) {
			t.Skip()
		}
		req := &http.Request{Method: method, URL: u, RequestURI: target, Header: http.Header{},
			Body: io.NopCloser(bytes.NewReader(body)), Host: "example.com", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
		req = req.WithContext(context.Background())
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("%s %s: %d with Content-Type %q", method, target, rec.Code, rec.Header().Get("Content-Type"))
		}
	})
}

// apiTUserCount returns the number of users in api.
func apiTUserCount(api *API) int {
	api.mu.Lock()
	defer api.mu.Unlock()
	return len(api.users)
}

// apiTETag returns the ETag the API should send for body.
func apiTETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

// apiTConditional is a GET of path with the given If-None-Match lines.
func apiTConditional(t *testing.T, srv *httptest.Server, path string, inm ...string) apiTResp {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range inm {
		req.Header.Add("If-None-Match", v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return apiTResp{status: resp.StatusCode, header: resp.Header, body: b, url: resp.Request.URL}
}

// wantNotModified checks a 304 with the given ETag and no body.
func (r apiTResp) wantNotModified(t *testing.T, etag string) {
	t.Helper()
	r.wantStatus(t, http.StatusNotModified)
	if got := r.header.Get("ETag"); got != etag {
		t.Fatalf("304 with ETag %q, want %q", got, etag)
	}
	if len(r.body) != 0 {
		t.Fatalf("304 with body %q", r.body)
	}
}

func TestAPI_ETag(t *testing.T) {
	api, srv := apiTStart(t)
	r := apiTGet(t, srv, "/users/1")
	r.wantStatus(t, http.StatusOK)
	etag := r.header.Get("ETag")
	if etag != apiTETag(r.body) || len(etag) != 18 || strings.Trim(etag[1:17], "0123456789abcdef") != "" {
		t.Fatalf("ETag %q for body %s, want %q", etag, r.body, apiTETag(r.body))
	}
	// Stable across requests and APIs; different for another user.
	if r2 := apiTGet(t, srv, "/users/1"); r2.header.Get("ETag") != etag || !bytes.Equal(r2.body, r.body) {
		t.Fatalf("second GET: ETag %q, body %s", r2.header.Get("ETag"), r2.body)
	}
	_, srv2 := apiTStart(t)
	if got := apiTGet(t, srv2, "/users/1").header.Get("ETag"); got != etag {
		t.Fatalf("another API's ETag %q, want %q", got, etag)
	}
	if got := apiTGet(t, srv, "/users/2").header.Get("ETag"); got == etag || got == "" {
		t.Fatalf("user 2's ETag %q (user 1's %q)", got, etag)
	}

	// Matching If-None-Match fields get a 304.
	weak := "W/" + etag
	for _, inm := range [][]string{
		{etag},
		{`"0000000000000000", ` + etag},
		{etag + `,"0000000000000000"`},
		{` "a,b" ,, ` + etag + ` `},
		{"*"},
		{weak},
		{`"x", ` + weak},
		{`"x"`, etag}, // on two header lines
	} {
		apiTConditional(t, srv, "/users/1", inm...).wantNotModified(t, etag)
	}
	// Others get the full response.
	for _, inm := range [][]string{
		{`"0000000000000000"`},
		{`W/"0000000000000000", "x"`},
		{strings.Trim(etag, `"`)},                 // unquoted
		{`"` + strings.ToUpper(etag[1:17]) + `"`}, // tags are case-sensitive
		{"w/" + etag},                             // the prefix is case-sensitive
		{`x, ` + etag},                            // malformed: ignored
		{etag + ` x`},                             // malformed: ignored
		{""},
	} {
		r := apiTConditional(t, srv, "/users/1", inm...)
		r.wantStatus(t, http.StatusOK)
		if r.header.Get("ETag") != etag || !bytes.Equal(r.body, apiTGet(t, srv, "/users/1").body) {
			t.Fatalf("If-None-Match %q: ETag %q, body %s", inm, r.header.Get("ETag"), r.body)
		}
	}
	if st := api.Stats(); st.NotModified != 8 {
		t.Fatalf("NotModified %d, want 8", st.NotModified)
	}

	// A PATCH that changes the user changes the ETag.
	apiTDo(t, srv, apiTReq{method: "PATCH", path: "/users/1", ctype: "application/json", body: `{"name":"Ada King"}`}).
		wantStatus(t, http.StatusOK)
	r = apiTConditional(t, srv, "/users/1", etag)
	r.wantStatus(t, http.StatusOK)
	var u apiTUser
	r.decode(t, &u)
	etag2 := r.header.Get("ETag")
	if u.Name != "Ada King" || etag2 == etag || etag2 != apiTETag(r.body) {
		t.Fatalf("after PATCH: ETag %q (before %q), body %s", etag2, etag, r.body)
	}
	apiTConditional(t, srv, "/users/1", etag2).wantNotModified(t, etag2)
	// A PATCH that changes nothing keeps it; a PUT that changes the user
	// does not.
	apiTDo(t, srv, apiTReq{method: "PATCH", path: "/users/1", ctype: "application/json", body: `{"name":"Ada King"}`}).
		wantStatus(t, http.StatusOK)
	apiTConditional(t, srv, "/users/1", etag2).wantNotModified(t, etag2)
	apiTDo(t, srv, apiTReq{method: "PUT", path: "/users/1", ctype: "application/json", body: `{"name":"Ada King","email":"ada@example.com"}`}).
		wantStatus(t, http.StatusOK)
	r = apiTConditional(t, srv, "/users/1", etag2, etag)
	r.wantStatus(t, http.StatusOK)
	if etag3 := r.header.Get("ETag"); etag3 == etag2 || etag3 == etag || etag3 != apiTETag(r.body) {
		t.Fatalf("after PUT: ETag %q", etag3)
	}

	// Teams too; a new member changes the team's ETag.
	r = apiTGet(t, srv, "/teams/2")
	r.wantStatus(t, http.StatusOK)
	tag := r.header.Get("ETag")
	if tag != apiTETag(r.body) {
		t.Fatalf("team ETag %q, want %q", tag, apiTETag(r.body))
	}
	apiTConditional(t, srv, "/teams/2", "W/"+tag).wantNotModified(t, tag)
	apiTDo(t, srv, apiTReq{method: "POST", path: "/users", ctype: "application/json", body: `{"name":"n","email":"n@x","team_id":2}`}).
		wantStatus(t, http.StatusCreated)
	r = apiTConditional(t, srv, "/teams/2", tag)
	r.wantStatus(t, http.StatusOK)
	var tm apiTTeam
	r.decode(t, &tm)
	if r.header.Get("ETag") == tag || tm.MemberIDs[len(tm.MemberIDs)-1] != 251 {
		t.Fatalf("after a new member: ETag %q, team %+v", r.header.Get("ETag"), tm)
	}

	// No ETag and no 304 for what does not exist.
	for _, path := range []string{"/users/999", "/teams/9"} {
		r := apiTConditional(t, srv, path, "*")
		r.wantError(t, http.StatusNotFound, "not_found")
		if r.header.Get("ETag") != "" {
			t.Fatalf("%s: ETag %q on a 404", path, r.header.Get("ETag"))
		}
	}
	if st := api.Stats(); st.NotModified != 11 {
		t.Fatalf("NotModified %d, want 11", st.NotModified)
	}
	api.Reset()
	if st := api.Stats(); st.NotModified != 0 {
		t.Fatalf("NotModified %d after Reset", st.NotModified)
	}
}

// apiTSign returns the X-Signature of a request.
func apiTSign(key []byte, method, path, ts, body string) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(method + "\n" + path + "\n" + ts + "\n" + body))
	return hex.EncodeToString(mac.Sum(nil))
}

// apiTSigned returns rq signed with key at Unix time ts, over the path of
// rq.path without its query.
func apiTSigned(key []byte, rq apiTReq, ts int64) apiTReq {
	method := rq.method
	if method == "" {
		method = http.MethodGet
	}
	path, _, _ := strings.Cut(rq.path, "?")
	h := map[string]string{}
	for k, v := range rq.header {
		h[k] = v
	}
	h["X-Timestamp"] = strconv.FormatInt(ts, 10)
	h["X-Signature"] = apiTSign(key, method, path, h["X-Timestamp"], rq.body)
	rq.header = h
	return rq
}

func TestAPI_SigningKey(t *testing.T) {
	key := []byte("k3y-for-tests")
	api, srv, clock := apiTStartClock(t, WithSigningKey(key))
	orig := bytes.Clone(key)
	key[0] = 'X' // the option copied the key
	key = orig
	now := clock.Now().Unix()
	sign := func(rq apiTReq) apiTReq { return apiTSigned(key, rq, now) }

	// /health is open; unmatched requests get their 404 and 405.
	apiTGet(t, srv, "/health").wantStatus(t, http.StatusOK)
	apiTGet(t, srv, "/nope").wantError(t, http.StatusNotFound, "not_found")
	apiTDo(t, srv, apiTReq{method: "PUT", path: "/teams"}).wantError(t, http.StatusMethodNotAllowed, "method_not_allowed")

	// Signed GETs work, with or without a query.
	var u apiTUser
	r := apiTDo(t, srv, sign(apiTReq{path: "/users/7"}))
	r.decode(t, &u)
	if r.status != http.StatusOK || u.ID != 7 {
		t.Fatalf("signed GET: %d %s", r.status, r.body)
	}
	apiTDo(t, srv, sign(apiTReq{path: "/users?page=2&page_size=5"})).wantStatus(t, http.StatusOK)

	// A signed POST creates the user, and the route reads the whole body.
	body := `{"name":"Signed Sam","email":"sam@example.com","team_id":3}`
	n := apiTUserCount(api)
	r = apiTDo(t, srv, sign(apiTReq{method: "POST", path: "/users", ctype: "application/json", body: body}))
	r.wantStatus(t, http.StatusCreated)
	var created apiTUser
	r.decode(t, &created)
	if apiTUserCount(api) != n+1 || created.Name != "Signed Sam" || created.TeamID != 3 {
		t.Fatalf("created %+v, %d users (was %d)", created, apiTUserCount(api), n)
	}
	var got apiTUser
	apiTDo(t, srv, sign(apiTReq{path: "/users/" + strconv.Itoa(created.ID)})).decode(t, &got)
	if !got.same(created) {
		t.Fatalf("GET after signed POST: %+v, want %+v", got, created)
	}
	var echo struct {
		Body json.RawMessage `json:"body"`
	}
	apiTDo(t, srv, sign(apiTReq{method: "POST", path: "/echo/a%2Fb", ctype: "application/json", body: `{"a": [1, 2]}`})).decode(t, &echo)
	if string(echo.Body) != `{"a":[1,2]}` {
		t.Fatalf("echoed body %s", echo.Body)
	}
	// The timestamp may be up to 5 minutes either way.
	for _, ts := range []int64{now - 300, now + 300} {
		apiTDo(t, srv, apiTSigned(key, apiTReq{path: "/teams"}, ts)).wantStatus(t, http.StatusOK)
	}
	unauthorized := api.Stats().Unauthorized
	if unauthorized != 0 {
		t.Fatalf("Unauthorized %d after good requests", unauthorized)
	}

	// Rejections.
	good := sign(apiTReq{method: "POST", path: "/users", ctype: "application/json", body: body})
	with := func(rq apiTReq, k, v string) apiTReq {
		h := map[string]string{}
		for hk, hv := range rq.header {
			h[hk] = hv
		}
		h[k] = v
		rq.header = h
		return rq
	}
	altered := good
	altered.body = strings.Replace(body, "Sam", "Sal", 1)
	otherPath := good
	otherPath.path = "/users?x=1" // the query is not signed, but a different method or path is
	dropped := good
	dropped.body = ""
	wrongMethod := sign(apiTReq{path: "/users/1"})
	wrongMethod.method = "DELETE"
	wrongPath := sign(apiTReq{method: "POST", path: "/users/1", ctype: "application/json", body: body})
	wrongPath.path = "/users"
	n = apiTUserCount(api)
	for name, rq := range map[string]apiTReq{
		"unsigned":          {method: "POST", path: "/users", ctype: "application/json", body: body},
		"no signature":      with(good, "X-Signature", ""),
		"no timestamp":      with(good, "X-Timestamp", ""),
		"body altered":      altered,
		"body dropped":      dropped,
		"wrong key":         apiTSigned([]byte("other"), good, now),
		"mangled signature": with(good, "X-Signature", good.header["X-Signature"][:63]+"0"),
		"not hex":           with(good, "X-Signature", "zz"+good.header["X-Signature"][2:]),
		"timestamp changed": with(good, "X-Timestamp", strconv.FormatInt(now+1, 10)),
		"stale":             apiTSigned(key, good, now-301),
		"future":            apiTSigned(key, good, now+301),
		"signed number":     with(apiTSigned(key, good, now), "X-Timestamp", "+"+strconv.FormatInt(now, 10)),
		"wrong method":      wrongMethod,
		"wrong path":        wrongPath,
		"login":             {method: "POST", path: "/login", ctype: "application/json", body: `{"username":"demo","password":"s3cret"}`},
		"status":            {path: "/status/200"},
	} {
		r := apiTDo(t, srv, rq)
		if r.status != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401; body %s", name, r.status, r.body)
			continue
		}
		r.wantError(t, http.StatusUnauthorized, "invalid_signature")
	}
	if apiTUserCount(api) != n {
		t.Fatalf("rejected requests created users: %d, want %d", apiTUserCount(api), n)
	}
	if st := api.Stats(); st.Unauthorized != 16 {
		t.Fatalf("Unauthorized %d, want 16", st.Unauthorized)
	}
	// The query is not part of the signature.
	apiTDo(t, srv, otherPath).wantStatus(t, http.StatusCreated)
	// The clock moves: a signature made 6 minutes ago no longer passes.
	old := sign(apiTReq{path: "/users/1"})
	apiTDo(t, srv, old).wantStatus(t, http.StatusOK)
	clock.Advance(6 * time.Minute)
	apiTDo(t, srv, old).wantError(t, http.StatusUnauthorized, "invalid_signature")
	// An oversized body is a 413 once the headers pass.
	big := `{"name":"` + strings.Repeat("a", apiMaxBody) + `"}`
	apiTDo(t, srv, apiTSigned(key, apiTReq{method: "POST", path: "/users", ctype: "application/json", body: big}, clock.Now().Unix())).
		wantError(t, http.StatusRequestEntityTooLarge, "payload_too_large")
}

func TestAPI_SigningKeyAuth(t *testing.T) {
	key := []byte{0, 1, 2, 3}
	api, srv := apiTStart(t, WithSigningKey(key), WithRequireAuth(true), WithTokenUses(2))
	sign := func(rq apiTReq) apiTReq { return apiTSigned(key, rq, time.Now().Unix()) }
	r := apiTDo(t, srv, sign(apiTReq{method: "POST", path: "/login", ctype: "application/json", body: `{"username":"demo","password":"s3cret"}`}))
	r.wantStatus(t, http.StatusOK)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	r.decode(t, &tok)
	// The signature is checked first, and a rejected request does not use
	// the token.
	for range 3 {
		apiTDo(t, srv, apiTReq{path: "/users/1", token: tok.AccessToken}).wantError(t, 401, "invalid_signature")
	}
	apiTDo(t, srv, sign(apiTReq{path: "/users/1"})).wantError(t, 401, "unauthorized")
	apiTDo(t, srv, sign(apiTReq{path: "/users/1", token: tok.AccessToken})).wantStatus(t, 200)
	apiTDo(t, srv, sign(apiTReq{path: "/me", token: tok.AccessToken})).wantStatus(t, 200)
	apiTDo(t, srv, sign(apiTReq{path: "/me", token: tok.AccessToken})).wantError(t, 401, "unauthorized")
	if st := api.Stats(); st.Unauthorized != 5 || st.Logins != 1 {
		t.Fatalf("stats %+v", st)
	}
	apiTGet(t, srv, "/health").wantStatus(t, 200)

	// Under http.StripPrefix the path signed is the one the API sees.
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", NewAPI(WithSigningKey(key))))
	psrv := httptest.NewServer(mux)
	defer psrv.Close()
	rq := apiTSigned(key, apiTReq{path: "/users/3"}, time.Now().Unix())
	rq.path = "/api/users/3"
	apiTDo(t, psrv, rq).wantStatus(t, 200)
	rq = apiTSigned(key, apiTReq{path: "/api/users/3"}, time.Now().Unix())
	apiTDo(t, psrv, rq).wantError(t, 401, "invalid_signature")

	// An empty key turns signing off, also after a key was given.
	for _, opts := range [][]APIOption{{WithSigningKey(nil)}, {WithSigningKey(key), WithSigningKey([]byte{})}} {
		_, srv := apiTStart(t, opts...)
		apiTGet(t, srv, "/users/1").wantStatus(t, 200)
	}
}

// The routes for the rest of HTTP: the OAuth2 token endpoint, uploads,
// downloads, exports (202 with a Location) and the error model.

func TestAPI_OAuthToken(t *testing.T) {
	t.Parallel()
	api, srv := apiTStart(t)
	form := "application/x-www-form-urlencoded"
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("demo:s3cret"))
	ok := apiTDo(t, srv, apiTReq{method: "POST", path: "/oauth/token", ctype: form, body: "grant_type=client_credentials&client_id=demo&client_secret=s3cret"})
	ok.wantStatus(t, http.StatusOK)
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	ok.decode(t, &tok)
	if tok.AccessToken == "" || tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 || ok.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token response %s, headers %v", ok.body, ok.header)
	}
	apiTDo(t, srv, apiTReq{path: "/me", token: tok.AccessToken}).wantStatus(t, http.StatusOK)
	viaBasic := apiTDo(t, srv, apiTReq{method: "POST", path: "/oauth/token", ctype: form, body: "grant_type=client_credentials", header: map[string]string{"Authorization": basic}})
	viaBasic.wantStatus(t, http.StatusOK)

	tests := []struct {
		name   string
		rq     apiTReq
		status int
		code   string
	}{
		{"JSON body", apiTReq{method: "POST", path: "/oauth/token", ctype: "application/json", body: `{"grant_type":"client_credentials"}`}, 400, "invalid_request"},
		{"no grant type", apiTReq{method: "POST", path: "/oauth/token", ctype: form, body: "client_id=demo&client_secret=s3cret"}, 400, "invalid_request"},
		{"password grant", apiTReq{method: "POST", path: "/oauth/token", ctype: form, body: "grant_type=password&client_id=demo&client_secret=s3cret"}, 400, "unsupported_grant_type"},
		{"wrong secret", apiTReq{method: "POST", path: "/oauth/token", ctype: form, body: "grant_type=client_credentials&client_id=demo&client_secret=no"}, 401, "invalid_client"},
		{"both ways", apiTReq{method: "POST", path: "/oauth/token", ctype: form, body: "grant_type=client_credentials&client_id=demo", header: map[string]string{"Authorization": basic}}, 400, "invalid_request"},
	}
	for _, tt := range tests {
		r := apiTDo(t, srv, tt.rq)
		e := r.wantError(t, tt.status, tt.code)
		var rfc struct {
			Description string `json:"error_description"`
		}
		json.Unmarshal(r.body, &rfc)
		if rfc.Description != e.Message {
			t.Errorf("%s: error_description %q, want the message", tt.name, rfc.Description)
		}
	}
	wrongBasic := apiTDo(t, srv, apiTReq{method: "POST", path: "/oauth/token", ctype: form, body: "grant_type=client_credentials",
		header: map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("demo:no"))}})
	wrongBasic.wantError(t, 401, "invalid_client")
	if wrongBasic.header.Get("WWW-Authenticate") == "" {
		t.Error("a failed Basic client authentication has no WWW-Authenticate")
	}
	if n := api.Stats().Logins; n != 8 {
		t.Errorf("Stats.Logins = %d, want 8", n)
	}
}

// apiTMultipart builds a multipart body: text parts, then one file.
func apiTMultipart(t *testing.T, fields [][2]string, file string, content []byte) (ctype, body string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	if file != "" {
		w, _ := mw.CreateFormFile("doc", file)
		w.Write(content)
	}
	mw.Close()
	return mw.FormDataContentType(), b.String()
}

func TestAPI_Uploads(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	content := bytes.Repeat([]byte("0123456789"), 50_000)
	ctype, body := apiTMultipart(t, [][2]string{{"title", "report"}, {"tag", "a"}, {"tag", "b"}}, "r.txt", content)
	r := apiTDo(t, srv, apiTReq{method: "POST", path: "/uploads", ctype: ctype, body: body})
	r.wantStatus(t, http.StatusCreated)
	var up Upload
	r.decode(t, &up)
	sum := sha256.Sum256(content)
	want := UploadedFile{Field: "doc", Name: "r.txt", ContentType: "application/octet-stream", Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:])}
	if up.ID != 1 || len(up.Files) != 1 || up.Files[0] != want || !slices.Equal(up.Fields["tag"], []string{"a", "b"}) || up.Fields["title"][0] != "report" {
		t.Fatalf("upload report %s", r.body)
	}
	if loc := r.header.Get("Location"); loc != "uploads/1" {
		t.Errorf("Location %q", loc)
	}
	again := apiTGet(t, srv, "/uploads/1")
	again.wantStatus(t, http.StatusOK)
	if !bytes.Equal(again.body, r.body) {
		t.Errorf("GET /uploads/1 = %s, want %s", again.body, r.body)
	}
	apiTGet(t, srv, "/uploads/2").wantError(t, 404, "not_found")

	raw := apiTDo(t, srv, apiTReq{method: "PUT", path: "/files/notes.txt", ctype: "text/plain", body: "hello"})
	raw.wantStatus(t, http.StatusCreated)
	var rawUp Upload
	raw.decode(t, &rawUp)
	if len(rawUp.Files) != 1 || rawUp.Files[0].Name != "notes.txt" || rawUp.Files[0].Size != 5 || rawUp.Files[0].ContentType != "text/plain" {
		t.Errorf("raw upload report %s", raw.body)
	}

	emptyType, emptyBody := apiTMultipart(t, nil, "", nil)
	var jsonPart bytes.Buffer
	mw := multipart.NewWriter(&jsonPart)
	w, _ := mw.CreatePart(textproto.MIMEHeader{"Content-Disposition": {`form-data; name="meta"`}, "Content-Type": {"application/json"}})
	w.Write([]byte("{not json"))
	mw.Close()
	bad := []struct {
		name   string
		rq     apiTReq
		status int
		code   string
	}{
		{"JSON body", apiTReq{method: "POST", path: "/uploads", ctype: "application/json", body: "{}"}, 415, "unsupported_media_type"},
		{"no parts", apiTReq{method: "POST", path: "/uploads", ctype: emptyType, body: emptyBody}, 400, "bad_request"},
		{"malformed", apiTReq{method: "POST", path: "/uploads", ctype: "multipart/form-data; boundary=x", body: "garbage"}, 400, "bad_request"},
		{"invalid JSON part", apiTReq{method: "POST", path: "/uploads", ctype: mw.FormDataContentType(), body: jsonPart.String()}, 400, "bad_request"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) { apiTDo(t, srv, tt.rq).wantError(t, tt.status, tt.code) })
	}
}

func TestAPI_Download(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	for _, n := range []int64{0, 1, 65 << 10, 1 << 20} {
		path := "/download?bytes=" + strconv.FormatInt(n, 10)
		if n == 1<<20 {
			path = "/download" // the default
		}
		r := apiTGet(t, srv, path)
		r.wantStatus(t, http.StatusOK)
		want, _ := io.ReadAll(DownloadContent(n))
		if !bytes.Equal(r.body, want) || r.header.Get("Content-Length") != strconv.FormatInt(n, 10) || r.header.Get("Content-Type") != "application/octet-stream" {
			t.Errorf("%s: %d bytes (want %d), headers %v", path, len(r.body), n, r.header)
		}
	}
	a, _ := io.ReadAll(DownloadContent(100))
	b, _ := io.ReadAll(DownloadContent(100))
	if !bytes.Equal(a, b) || bytes.Count(a, a[:1]) == 100 {
		t.Error("DownloadContent is not deterministic, or is one repeated byte")
	}
	apiTGet(t, srv, "/download?bytes=-1").wantError(t, 400, "bad_request")
	apiTGet(t, srv, "/download?bytes=x").wantError(t, 400, "bad_request")
}

func TestAPI_Exports(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	r := apiTDo(t, srv, apiTReq{method: "POST", path: "/exports", ctype: "application/json", body: `{"bytes":42}`})
	r.wantStatus(t, http.StatusAccepted)
	loc := r.header.Get("Location")
	if loc != "exports/1" {
		t.Fatalf("Location %q", loc)
	}
	next := r.url.ResolveReference(&url.URL{Path: loc})
	done := apiTGet(t, srv, next.Path)
	done.wantStatus(t, http.StatusOK)
	var e struct {
		ID     int    `json:"id"`
		Status string `json:"status"`
		Bytes  int64  `json:"bytes"`
	}
	done.decode(t, &e)
	if e.ID != 1 || e.Status != "done" || e.Bytes != 42 {
		t.Errorf("export %s", done.body)
	}
	apiTDo(t, srv, apiTReq{method: "POST", path: "/exports", ctype: "application/json", body: `{"bytes":-1}`}).wantError(t, 422, "validation_failed")
	apiTGet(t, srv, "/exports/9").wantError(t, 404, "not_found")
}

func TestAPI_ErrorModel(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	r := apiTGet(t, srv, "/users/424242")
	r.wantStatus(t, 404)
	var e APIError
	r.decode(t, &e)
	if e.Code != "not_found" || e.Message == "" || e.Error() != "not_found: "+e.Message {
		t.Errorf("APIError = %+v, Error() %q", e, e.Error())
	}
	v := apiTDo(t, srv, apiTReq{method: "POST", path: "/users", ctype: "application/json", body: `{"name":""}`})
	var ve APIError
	v.decode(t, &ve)
	if ve.Code != "validation_failed" || len(ve.Fields) == 0 {
		t.Errorf("validation error = %+v", ve)
	}
}

// GET /download serves ranges under its ETag, and with stall_after stalls
// a response that starts before the stall, not a resume from it.
func TestAPI_DownloadRanges(t *testing.T) {
	t.Parallel()
	_, srv := apiTStart(t)
	all, _ := io.ReadAll(DownloadContent(1000))
	full := apiTGet(t, srv, "/download?bytes=1000")
	etag := full.header.Get("ETag")
	if etag == "" || strings.HasPrefix(etag, "W/") || full.header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("headers %v: want a strong ETag and Accept-Ranges: bytes", full.header)
	}
	r := apiTDo(t, srv, apiTReq{method: "GET", path: "/download?bytes=1000", header: map[string]string{"Range": "bytes=600-", "If-Range": etag}})
	r.wantStatus(t, http.StatusPartialContent)
	if cr := r.header.Get("Content-Range"); cr != "bytes 600-999/1000" || !bytes.Equal(r.body, all[600:]) {
		t.Errorf("Content-Range %q, %d bytes; want bytes 600-999/1000 and the last 400 bytes", cr, len(r.body))
	}
	// Another resource's ETag: the whole body again.
	r = apiTDo(t, srv, apiTReq{method: "GET", path: "/download?bytes=1000", header: map[string]string{"Range": "bytes=600-", "If-Range": `"download-999"`}})
	r.wantStatus(t, http.StatusOK)
	if !bytes.Equal(r.body, all) {
		t.Errorf("a stale If-Range got %d bytes, want the whole 1000", len(r.body))
	}
	// A resume from the stall goes through.
	r = apiTDo(t, srv, apiTReq{method: "GET", path: "/download?bytes=1000&stall_after=600", header: map[string]string{"Range": "bytes=600-"}})
	r.wantStatus(t, http.StatusPartialContent)
	if !bytes.Equal(r.body, all[600:]) {
		t.Errorf("the resume from the stall got %d bytes, want 400", len(r.body))
	}
	apiTGet(t, srv, "/download?bytes=10&stall_after=10").wantError(t, 400, "bad_request")

	// A response from the start sends 600 bytes, then nothing until the
	// client gives up.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/download?bytes=1000&stall_after=600", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make([]byte, 600)
	if _, err := io.ReadFull(resp.Body, got); err != nil || !bytes.Equal(got, all[:600]) {
		t.Fatalf("the first 600 bytes: %v", err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := resp.Body.Read(make([]byte, 1))
		read <- err
	}()
	select {
	case err := <-read:
		t.Fatalf("a byte past the stall arrived (err %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	if err := <-read; err == nil {
		t.Error("the read past the stall did not fail once the request was cancelled")
	}
}
