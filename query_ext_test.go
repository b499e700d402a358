package kit_test

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

// auditRange and auditFilter are query objects: a struct written in
// brackets under a name, with JSON names, as OpenAPI's deepObject style
// sends them.
type auditRange struct {
	GT *int64 `json:"gt,omitempty"`
	LT *int64 `json:"lt,omitempty"`
}

type auditOwner struct {
	Login string `json:"login"`
}

type auditFilter struct {
	State  string      `json:"state,omitempty"`
	Labels []string    `json:"labels,omitempty"`
	Owner  *auditOwner `json:"owner,omitempty"`
}

// auditQuery is the optional query of an endpoint, as kitgen openapi
// writes an <Op>Params struct.
type auditQuery struct {
	Limit    *int              `kit:"limit,omitempty"`
	Metadata map[string]string `kit:"metadata,query,omitempty"`
	Created  *auditRange       `kit:"created,query"`
	Filter   auditFilter       `kit:"filter,query,omitempty"`
}

// TestNamedQueryObject sends maps and structs marked `kit:"name,query"`
// as name[key]=v, nested to any depth (OpenAPI's deepObject), from P's own
// fields, a spread struct, an embedded one and a resource query; a nil or
// empty one sends nothing.
func TestNamedQueryObject(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusOK, `[]`))
	_, c := setup(t, rec)
	gt, lt, limit := int64(1700000000), int64(1800000000), 2
	full := auditQuery{
		Limit:    &limit,
		Metadata: map[string]string{"order": "6735", "b c": "d&e"},
		Created:  &auditRange{GT: &gt, LT: &lt},
		Filter:   auditFilter{State: "open", Labels: []string{"bug", "ui"}, Owner: &auditOwner{Login: "ann"}},
	}
	type own struct {
		Q auditQuery `kit:",query"`
	}
	type embedded struct {
		auditQuery
		ID int
	}
	spread := kit.Get[own, any]("/audit")
	emb := kit.Get[embedded, any]("/audit/{id}")
	direct := kit.Get[struct {
		Tags map[string][]string `kit:"tags,query"`
		Any  map[string]any      `kit:"any,query"`
	}, any]("/audit")
	if _, err := spread.Call(t.Context(), c, own{Q: full}); err != nil {
		t.Fatal(err)
	}
	if _, err := spread.Call(t.Context(), c, own{}); err != nil {
		t.Fatal(err)
	}
	if _, err := emb.Call(t.Context(), c, embedded{auditQuery: auditQuery{Created: &auditRange{GT: &gt}}, ID: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := direct.Call(t.Context(), c, struct {
		Tags map[string][]string `kit:"tags,query"`
		Any  map[string]any      `kit:"any,query"`
	}{Tags: map[string][]string{"k": {"1", "2"}}, Any: map[string]any{"n": 3, "m": map[string]bool{"x": true}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := kit.NewResource[apiUser](c, "/users").List(t.Context(), auditQuery{Metadata: map[string]string{"team": "2"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"created[gt]=1700000000&created[lt]=1800000000&filter[labels]=bug&filter[labels]=ui&filter[owner][login]=ann&filter[state]=open&limit=2&metadata[b c]=d&e&metadata[order]=6735",
		"",
		"created[gt]=1700000000",
		"any[m][x]=true&any[n]=3&tags[k]=1&tags[k]=2",
		"metadata[team]=2",
	}
	reqs := rec.requests()
	if len(reqs) != len(want) {
		t.Fatalf("%d requests, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		if got, _ := url.QueryUnescape(r.URL.RawQuery); got != want[i] {
			t.Errorf("request %d query %s, want %s", i, got, want[i])
		}
	}
	// The wire form is escaped: the brackets and the values' & and space.
	if q := reqs[0].URL.Query(); q.Get("metadata[b c]") != "d&e" || q.Get("filter[owner][login]") != "ann" {
		t.Errorf("the server reads %v", q)
	}
	if reqs[2].URL.Path != "/audit/7" {
		t.Errorf("embedded: path %s", reqs[2].URL.Path)
	}
}

// TestNamedQueryObjectRefused: what no bracketed query can express is a
// *DeclarationError at declaration, or an error before anything is sent.
func TestNamedQueryObjectRefused(t *testing.T) {
	t.Parallel()
	decl := map[string]func() error{
		"int keys": func() error {
			_, err := kit.NewEndpoint[struct {
				M map[int]string `kit:"m,query"`
			}, any]("GET", "/x")
			return err
		},
		"a channel inside": func() error {
			_, err := kit.NewEndpoint[struct {
				S struct{ C chan int } `kit:"s,query"`
			}, any]("GET", "/x")
			return err
		},
		"a file inside": func() error {
			_, err := kit.NewEndpoint[struct {
				S struct{ F kit.File } `kit:"s,query"`
			}, any]("GET", "/x")
			return err
		},
		"sent twice": func() error {
			_, err := kit.NewEndpoint[struct {
				A map[string]string `kit:"m,query"`
				B auditRange        `kit:"m,query"`
			}, any]("GET", "/x")
			return err
		},
		"a channel unnamed": func() error {
			_, err := kit.NewEndpoint[struct {
				C chan int `kit:"c,query"`
			}, any]("GET", "/x")
			return err
		},
	}
	wants := map[string]string{
		"int keys":          "field M (map[int]string) cannot be query parameter m: type map[int]string: a map's keys are written as form keys",
		"a channel inside":  "field S (`kit:\"s,query\"`): field C of struct { C chan int }: type chan int has no text form",
		"a file inside":     "field F of struct { F kit.File } is a kit.File",
		"sent twice":        `field A and field B both send query parameters "m[...]"`,
		"a channel unnamed": "field C cannot be sent: type chan int has no text form",
	}
	for name, f := range decl {
		err := f()
		var de *kit.DeclarationError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), wants[name]) {
			t.Errorf("%s: %v, want a *DeclarationError with %q", name, err, wants[name])
		}
	}

	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Get[auditQuery, any]("/audit")
	_, err := ep.Call(t.Context(), c, auditQuery{Metadata: map[string]string{"a]b": "1"}})
	if err == nil || !strings.Contains(err.Error(), `map key "a]b" cannot be written`) {
		t.Errorf("a bracket in a key: %v", err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestNamedQueryObjectKittest filters kittest's /filter/users with query
// objects, which the server reads as deepObject keys (and refuses in any
// other shape).
func TestNamedQueryObjectKittest(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	type idRange struct {
		GT  *int `json:"gt,omitempty"`
		LTE *int `json:"lte,omitempty"`
	}
	type filter struct {
		TeamID int   `json:"team_id,omitempty"`
		Active *bool `json:"active,omitempty"`
	}
	list := kit.Get[struct {
		ID     idRange `kit:"id,query"`
		Filter filter  `kit:"filter,query"`
	}, []apiUser]("/filter/users")
	gt, lte, active := 5, 40, true
	users, err := list.Call(t.Context(), c, struct {
		ID     idRange `kit:"id,query"`
		Filter filter  `kit:"filter,query"`
	}{idRange{GT: &gt, LTE: &lte}, filter{TeamID: 2, Active: &active}})
	if err != nil {
		t.Fatal(err)
	}
	if len(users) == 0 {
		t.Fatal("no users")
	}
	for _, u := range users {
		if u.ID <= gt || u.ID > lte || u.TeamID != 2 || !u.Active {
			t.Errorf("user %+v does not match", u)
		}
	}
}
