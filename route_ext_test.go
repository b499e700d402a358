package kit_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// routeCase is one call and what the server must see of it. The client's
// base URL is the server's URL + "/api".
type routeCase struct {
	name       string
	call       coreCaller
	wantLine   string            // "GET /api/x?y=1"
	wantBody   string            // JSON, compared as JSON; "" means no body at all
	wantHeader map[string]string // extra headers that must be present
	noHeader   []string          // headers that must be absent
}

func runRouteCases(t *testing.T, tests []routeCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(nil)
			c := newClient(t, serve(t, rec).URL+"/api")
			if err := tt.call(t.Context(), c); err != nil {
				t.Fatalf("Call: %v", err)
			}
			r := rec.only(t)
			if got := r.line(); got != tt.wantLine {
				t.Errorf("request line = %q, want %q", got, tt.wantLine)
			}
			checkBody(t, r, tt.wantBody)
			for k, want := range tt.wantHeader {
				if got := r.Header.Values(k); strings.Join(got, ",") != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			for _, k := range tt.noHeader {
				if got, ok := r.Header[http.CanonicalHeaderKey(k)]; ok {
					t.Errorf("header %s = %q, want it absent", k, got)
				}
			}
		})
	}
}

// checkBody checks a request's body against want (JSON; "" for none) and the
// Content-Type that goes with it.
func checkBody(t *testing.T, r seenReq, want string) {
	t.Helper()
	if want == "" {
		if len(r.Body) != 0 {
			t.Errorf("body = %s, want none", r.Body)
		}
		if ct, ok := r.Header["Content-Type"]; ok {
			t.Errorf("Content-Type = %q on a request without a body", ct)
		}
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var got, exp any
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("body %q is not JSON: %v", r.Body, err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("bad want %q: %v", want, err)
	}
	if g, w := fmt.Sprint(got), fmt.Sprint(exp); g != w {
		t.Errorf("body = %s, want %s", r.Body, want)
	}
}

func TestRoutePathEscapedAsOneSegment(t *testing.T) {
	t.Parallel()
	type P struct{ Name string }
	ep := kit.Get[P, *kit.Response]("/files/{name}/meta")
	tests := []struct{ value, want string }{
		{"plain", "/api/files/plain/meta"},
		{"a/b", "/api/files/a%2Fb/meta"},
		{"../etc/passwd", "/api/files/..%2Fetc%2Fpasswd/meta"},
		{"a b", "/api/files/a%20b/meta"},
		{"é", "/api/files/%C3%A9/meta"},
		{"日本", "/api/files/%E6%97%A5%E6%9C%AC/meta"},
		{"a?b#c", "/api/files/a%3Fb%23c/meta"},
		{"100%", "/api/files/100%25/meta"},
		{"a;b", "/api/files/a%3Bb/meta"},
		{"...", "/api/files/.../meta"},
		{".hidden", "/api/files/.hidden/meta"},
	}
	var cases []routeCase
	for _, tt := range tests {
		cases = append(cases, routeCase{
			name:     tt.value,
			call:     coreCall(ep, P{tt.value}),
			wantLine: "GET " + tt.want,
		})
	}
	runRouteCases(t, cases)
}

func TestRoutePathValueRejected(t *testing.T) {
	t.Parallel()
	type P struct {
		ID   string
		Name *string `kit:"name"`
	}
	one := kit.Get[P, *kit.Response]("/users/{id}")
	two := kit.Get[P, *kit.Response]("/users/{id}/{name}")
	asMap := kit.Get[map[string]any, *kit.Response]("/users/{id}")
	omit := kit.Get[struct {
		ID int `kit:"id,omitempty"`
	}, *kit.Response]("/users/{id}")
	dot, dotdot, empty := ".", "..", ""
	tests := []struct {
		name string
		call coreCaller
		want string
	}{
		{"empty", coreCall(one, P{ID: ""}), `{id} is ""`},
		{"dot", coreCall(one, P{ID: "."}), `{id} is "."`},
		{"dotdot", coreCall(one, P{ID: ".."}), `{id} is ".."`},
		{"second dot", coreCall(two, P{ID: "7", Name: &dot}), `{name} is "."`},
		{"second dotdot", coreCall(two, P{ID: "7", Name: &dotdot}), `{name} is ".."`},
		{"second empty", coreCall(two, P{ID: "7", Name: &empty}), `{name} is ""`},
		{"nil pointer", coreCall(two, P{ID: "7"}), "nil"},
		{"map missing", coreCall(asMap, map[string]any{"q": 1}), "{id}"},
		{"map empty string", coreCall(asMap, map[string]any{"id": ""}), `{id} is ""`},
		{"map dotdot", coreCall(asMap, map[string]any{"id": ".."}), `{id} is ".."`},
		{"omitempty zero", coreCall(omit, struct {
			ID int `kit:"id,omitempty"`
		}{}), "{id}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(nil)
			_, c := setup(t, rec)
			err := tt.call(t.Context(), c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
			if n := len(rec.requests()); n != 0 {
				t.Errorf("server saw %d requests, want none", n)
			}
		})
	}
}

// teamUsers routes to path, body and query: POST /teams/{id}/users with body payload
// and query team.
type teamUsers struct {
	ID      int
	Payload []coreUser
	Team    *string
}

func TestRouteSpecExample(t *testing.T) {
	t.Parallel()
	rec := newRecorder(replyJSON(http.StatusCreated, `{"id":7,"name":"core"}`))
	c := newClient(t, serve(t, rec).URL+"/api/v1/")
	ep := kit.Post[teamUsers, coreTeam]("/teams/{id}/users")
	team := "core team"
	got, err := ep.Call(t.Context(), c, teamUsers{
		ID:      7,
		Payload: []coreUser{{ID: 1, Name: "Ada", Email: "ada@example.com"}, {ID: 2, Name: "Bob", Email: "bob@example.com"}},
		Team:    &team,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := (coreTeam{ID: 7, Name: "core"}); got != want {
		t.Errorf("result = %+v, want %+v", got, want)
	}
	r := rec.only(t)
	if got, want := r.line(), "POST /api/v1/teams/7/users?team=core+team"; got != want {
		t.Errorf("request line = %q, want %q", got, want)
	}
	if got, want := string(r.Body), `[{"id":1,"name":"Ada","email":"ada@example.com"},{"id":2,"name":"Bob","email":"bob@example.com"}]`; got != want {
		t.Errorf("body = %s, want %s", got, want)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", got)
	}

	// Team nil: dropped entirely.
	if _, err := ep.Call(t.Context(), c, teamUsers{ID: 8, Payload: []coreUser{}}); err != nil {
		t.Fatal(err)
	}
	r = rec.requests()[1]
	if got, want := r.line(), "POST /api/v1/teams/8/users"; got != want {
		t.Errorf("without team: request line = %q, want %q", got, want)
	}
	if got := string(r.Body); got != "[]" {
		t.Errorf("empty non-nil payload: body = %q, want []", got)
	}
}

// Types for routing by type.
type (
	// coreColor is a TextMarshaler with a pointer receiver: text, not a model.
	coreColor struct{ R, G, B uint8 }
	// coreLevel is a fmt.Stringer.
	coreLevel int
	// coreTagged is a data model that also has a String method for logs: it
	// is still a data model (only time.Time and TextMarshalers are not).
	coreTagged struct {
		Name string `json:"name"`
	}
	// corePaging is embedded in parameter structs.
	corePaging struct {
		Page    int
		PerPage int `kit:"per_page,omitempty"`
	}
	// coreHidden is an unexported-named embedded struct with exported fields.
	coreHidden struct{ Sort string }
)

func (c *coreColor) MarshalText() ([]byte, error) {
	return fmt.Appendf(nil, "#%02x%02x%02x", c.R, c.G, c.B), nil
}

func (l coreLevel) String() string { return [...]string{"low", "high"}[l] }

func (m coreTagged) String() string { return "tagged " + m.Name }

type coreInner = coreHidden

func TestRouteBodies(t *testing.T) {
	t.Parallel()
	note := &coreNote{Text: "ptr"}
	runRouteCases(t, []routeCase{
		{
			name:     "struct",
			call:     coreCall(kit.Post[struct{ Note coreNote }, *kit.Response]("/notes"), struct{ Note coreNote }{coreNote{"hi"}}),
			wantLine: "POST /api/notes",
			wantBody: `{"text":"hi"}`,
		},
		{
			name:     "zero struct is sent",
			call:     coreCall(kit.Post[struct{ Note coreNote }, *kit.Response]("/notes"), struct{ Note coreNote }{}),
			wantLine: "POST /api/notes",
			wantBody: `{"text":""}`,
		},
		{
			name:     "pointer to struct",
			call:     coreCall(kit.Put[struct{ Note *coreNote }, *kit.Response]("/notes"), struct{ Note *coreNote }{note}),
			wantLine: "PUT /api/notes",
			wantBody: `{"text":"ptr"}`,
		},
		{
			name:     "nil pointer body dropped",
			call:     coreCall(kit.Put[struct{ Note *coreNote }, *kit.Response]("/notes"), struct{ Note *coreNote }{}),
			wantLine: "PUT /api/notes",
			noHeader: []string{"Content-Type"},
		},
		{
			name:     "slice of pointers",
			call:     coreCall(kit.Post[struct{ Notes []*coreNote }, *kit.Response]("/notes"), struct{ Notes []*coreNote }{[]*coreNote{note, {"b"}}}),
			wantLine: "POST /api/notes",
			wantBody: `[{"text":"ptr"},{"text":"b"}]`,
		},
		{
			name:     "nil slice body dropped",
			call:     coreCall(kit.Post[struct{ Notes []coreNote }, *kit.Response]("/notes"), struct{ Notes []coreNote }{}),
			wantLine: "POST /api/notes",
		},
		{
			name:     "array of models",
			call:     coreCall(kit.Post[struct{ Notes [2]coreNote }, *kit.Response]("/notes"), struct{ Notes [2]coreNote }{[2]coreNote{{"a"}, {"b"}}}),
			wantLine: "POST /api/notes",
			wantBody: `[{"text":"a"},{"text":"b"}]`,
		},
		{
			name: "body with path and query",
			call: coreCall(kit.Patch[struct {
				ID    int
				Force bool
				Note  coreNote `kit:"ignored_name"`
			}, *kit.Response]("/notes/{id}"), struct {
				ID    int
				Force bool
				Note  coreNote `kit:"ignored_name"`
			}{ID: 3, Force: true, Note: coreNote{"x"}}),
			wantLine: "PATCH /api/notes/3?force=true",
			wantBody: `{"text":"x"}`,
		},
		{
			name:     "model with a String method is still a body",
			call:     coreCall(kit.Post[struct{ M coreTagged }, *kit.Response]("/tagged"), struct{ M coreTagged }{coreTagged{"n"}}),
			wantLine: "POST /api/tagged",
			wantBody: `{"name":"n"}`,
		},
		{
			name:     "pointer model with a String method is still a body",
			call:     coreCall(kit.Post[struct{ M *coreTagged }, *kit.Response]("/tagged"), struct{ M *coreTagged }{&coreTagged{"p"}}),
			wantLine: "POST /api/tagged",
			wantBody: `{"name":"p"}`,
		},
		{
			name:     "model with a String method fills a placeholder with its text",
			call:     coreCall(kit.Get[struct{ ID coreTagged }, *kit.Response]("/tagged/{id}"), struct{ ID coreTagged }{coreTagged{"n"}}),
			wantLine: "GET /api/tagged/tagged%20n",
		},
		{
			name:     "GET without body has no Content-Type",
			call:     coreCall(kit.Get[kit.NoParams, *kit.Response]("/x"), kit.NoParams{}),
			wantLine: "GET /api/x",
			noHeader: []string{"Content-Type"},
		},
		{
			name:     "DELETE without body has no Content-Type",
			call:     coreCall(kit.Delete[struct{ ID int }, *kit.Response]("/x/{id}"), struct{ ID int }{0}),
			wantLine: "DELETE /api/x/0",
			noHeader: []string{"Content-Type"},
		},
	})
}

func TestRouteNilAndZero(t *testing.T) {
	t.Parallel()
	type nils struct {
		Q *string
		N *int
		S []string
		M map[string]string
		I any
		T *time.Time
		C *coreColor
		B *coreNote
	}
	type zeros struct {
		Q string
		N int
		B bool
		F float64
		P *int
		S []string // empty, not nil: nothing to repeat
	}
	zero := 0
	type omit struct {
		Q string `kit:",omitempty"`
		N int    `kit:"n,omitempty"`
		P *int   `kit:"p,omitempty"`
		S []int  `kit:",omitempty"`
		R string
	}
	runRouteCases(t, []routeCase{
		{
			// DELETE: nils has a body field, which a GET may not have.
			name:     "nil everything dropped",
			call:     coreCall(kit.Delete[nils, *kit.Response]("/x"), nils{}),
			wantLine: "DELETE /api/x",
		},
		{
			name:     "non-nil zero values sent",
			call:     coreCall(kit.Get[zeros, *kit.Response]("/x"), zeros{P: &zero, S: []string{}}),
			wantLine: "GET /api/x?b=false&f=0&n=0&p=0&q=",
		},
		{
			name:     "omitempty",
			call:     coreCall(kit.Get[omit, *kit.Response]("/x"), omit{P: &zero}),
			wantLine: "GET /api/x?p=0&r=",
		},
		{
			name:     "omitempty with values",
			call:     coreCall(kit.Get[omit, *kit.Response]("/x"), omit{Q: "a", N: 2, S: []int{1}}),
			wantLine: "GET /api/x?n=2&q=a&r=&s=1",
		},
	})
}

func TestRouteNamesAndTags(t *testing.T) {
	t.Parallel()
	type names struct {
		PerPage    int
		UserID     int
		HTTPServer string
		Q          string
		Limit      int    `kit:"max"`
		Secret     string `kit:"-"`
		RequestID  string `kit:"X-Request-Id,header"`
		Tags       []string
		Accept     []string `kit:"X-Accept-Lang,header"`
		Empty      string   `kit:"X-Empty,header,omitempty"`
		unexported string
	}
	p := names{PerPage: 10, UserID: 3, HTTPServer: "s", Q: "x y", Limit: 5, Secret: "hidden",
		RequestID: "req-1", Tags: []string{"a", "b", "a"}, Accept: []string{"en", "fr"}, unexported: "no"}
	runRouteCases(t, []routeCase{{
		name:       "snake case, tags, skip, headers",
		call:       coreCall(kit.Get[names, *kit.Response]("/x"), p),
		wantLine:   "GET /api/x?http_server=s&max=5&per_page=10&q=x+y&tags=a&tags=b&tags=a&user_id=3",
		wantHeader: map[string]string{"X-Request-Id": "req-1", "X-Accept-Lang": "en,fr"},
		noHeader:   []string{"X-Empty", "Secret"},
	}})
}

func TestRouteHeaderParamsOnNoAuth(t *testing.T) {
	t.Parallel()
	type P struct {
		Key string `kit:"X-Api-Version,header"`
	}
	runRouteCases(t, []routeCase{{
		name:       "header on NoAuth endpoint",
		call:       coreCall(kit.Get[P, *kit.Response]("/x", kit.NoAuth()), P{"2024-01-01"}),
		wantLine:   "GET /api/x",
		wantHeader: map[string]string{"X-Api-Version": "2024-01-01"},
	}})
}

func TestRouteMaps(t *testing.T) {
	t.Parallel()
	type withMaps struct {
		Filter map[string]string
		Extra  map[string]any
		Multi  map[string][]int
		Q      string
	}
	var nilAny map[string]any
	runRouteCases(t, []routeCase{
		{
			name: "map fields become query entries",
			call: coreCall(kit.Post[withMaps, *kit.Response]("/x"), withMaps{
				Filter: map[string]string{"state": "open", "sort": "asc"},
				Extra:  map[string]any{"n": 1, "flag": true, "nil": nil, "list": []string{"p", "q"}},
				Multi:  map[string][]int{"id": {1, 2}},
				Q:      "z",
			}),
			wantLine: "POST /api/x?flag=true&id=1&id=2&list=p&list=q&n=1&q=z&sort=asc&state=open",
			noHeader: []string{"Content-Type"}, // a map is never a body
		},
		{
			name:     "P map[string]any fills placeholders",
			call:     coreCall(kit.Get[map[string]any, *kit.Response]("/users/{id}/posts"), map[string]any{"id": 7, "q": "go", "tag": []string{"a", "b"}}),
			wantLine: "GET /api/users/7/posts?q=go&tag=a&tag=b",
		},
		{
			name:     "P map[string]any escapes placeholders",
			call:     coreCall(kit.Get[map[string]any, *kit.Response]("/users/{id}"), map[string]any{"id": "a/b c"}),
			wantLine: "GET /api/users/a%2Fb%20c",
		},
		{
			name:     "P map[string]string fills placeholders",
			call:     coreCall(kit.Get[map[string]string, *kit.Response]("/users/{id}"), map[string]string{"id": "ada", "fields": "name"}),
			wantLine: "GET /api/users/ada?fields=name",
		},
		{
			name:     "P url.Values",
			call:     coreCall(kit.Get[url.Values, *kit.Response]("/search"), url.Values{"q": {"go"}, "tag": {"a", "b"}}),
			wantLine: "GET /api/search?q=go&tag=a&tag=b",
		},
		{
			name:     "P url.Values fills placeholders",
			call:     coreCall(kit.Get[url.Values, *kit.Response]("/users/{id}"), url.Values{"id": {"7"}, "tag": {"a", "b"}}),
			wantLine: "GET /api/users/7?tag=a&tag=b",
		},
		{
			name:     "P nil map",
			call:     coreCall(kit.Get[map[string]any, *kit.Response]("/x"), nilAny),
			wantLine: "GET /api/x",
		},
		{
			name:     "P map[string]int",
			call:     coreCall(kit.Get[map[string]int, *kit.Response]("/x"), map[string]int{"b": 2, "a": 1}),
			wantLine: "GET /api/x?a=1&b=2",
		},
	})
}

func TestRouteMapPlaceholderNeedsOneValue(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Get[url.Values, *kit.Response]("/users/{id}")
	_, err := ep.Call(t.Context(), c, url.Values{"id": {"1", "2"}})
	if err == nil || !strings.Contains(err.Error(), "id") {
		t.Errorf("two values for {id}: err = %v, want an error naming id", err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("server saw %d requests, want none", n)
	}
}

func TestRouteTextForms(t *testing.T) {
	t.Parallel()
	// Each case sends one query parameter "v"; want is its encoded text.
	type textCase struct {
		name string
		call coreCaller
		want string
	}
	v := func(name string, call coreCaller, want string) textCase { return textCase{name, call, want} }
	q := func(want string) string { return url.QueryEscape(want) }
	nano := time.Date(2024, 3, 5, 6, 7, 8, 120_000_000, time.UTC)
	whole := time.Date(2024, 3, 5, 6, 7, 8, 0, time.UTC)
	zoned := time.Date(2024, 3, 5, 6, 7, 8, 0, time.FixedZone("", 2*3600))
	red := coreColor{R: 255}
	high := coreLevel(1)
	var iface any = coreLevel(0)
	tests := []textCase{
		v("bool true", callV(true), "true"),
		v("bool false", callV(false), "false"),
		v("int", callV(-42), "-42"),
		v("int8", callV(int8(-128)), "-128"),
		v("int64 max", callV(int64(math.MaxInt64)), "9223372036854775807"),
		v("uint", callV(uint(7)), "7"),
		v("uint64 max", callV(uint64(math.MaxUint64)), "18446744073709551615"),
		v("uintptr", callV(uintptr(9)), "9"),
		v("float 0.1", callV(0.1), "0.1"),
		v("float 1.5", callV(1.5), "1.5"),
		v("float 100", callV(100.0), "100"),
		v("float 1e20", callV(1e20), "100000000000000000000"),
		v("float 1e21", callV(1e21), q("1e+21")),
		v("float 1e-7", callV(1e-7), q("1e-07")),
		v("float 0.000001", callV(0.000001), "0.000001"),
		v("float -0", callV(math.Copysign(0, -1)), "-0"),
		v("float max", callV(math.MaxFloat64), q("1.7976931348623157e+308")),
		v("float32 0.1", callV(float32(0.1)), "0.1"),
		v("float32 16777216", callV(float32(16777216)), "16777216"),
		v("string", callV("a&b=c"), q("a&b=c")),
		v("time with fraction", callV(nano), q("2024-03-05T06:07:08.12Z")),
		v("time whole seconds", callV(whole), q("2024-03-05T06:07:08Z")),
		v("time with offset", callV(zoned), q("2024-03-05T06:07:08+02:00")),
		v("time pointer", callV(&whole), q("2024-03-05T06:07:08Z")),
		v("text marshaler pointer receiver", callV(red), q("#ff0000")),
		v("text marshaler pointer", callV(&red), q("#ff0000")),
		v("stringer", callV(high), "high"),
		v("stringer pointer", callV(&high), "high"),
		v("interface holding stringer", callV(iface), "low"),
		v("pointer to int", callV(corePtr(5)), "5"),
		v("pointer to pointer", callV(corePtr(corePtr("pp"))), "pp"),
		v("named string", callV(coreName("n")), "n"),
	}
	var cases []routeCase
	for _, tt := range tests {
		cases = append(cases, routeCase{name: tt.name, call: tt.call, wantLine: "GET /api/x?v=" + tt.want})
	}
	runRouteCases(t, cases)
}

type coreName string

func corePtr[T any](v T) *T { return &v }

// callV calls GET /x with one parameter V of value's type.
func callV[T any](value T) coreCaller {
	return coreCall(kit.Get[struct{ V T }, *kit.Response]("/x"), struct{ V T }{value})
}

func TestRouteSlicesRepeatKeys(t *testing.T) {
	t.Parallel()
	t1 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	runRouteCases(t, []routeCase{
		{name: "strings", call: callV([]string{"a", "b", "a"}), wantLine: "GET /api/x?v=a&v=b&v=a"},
		{name: "ints", call: callV([]int{3, 1, 2}), wantLine: "GET /api/x?v=3&v=1&v=2"},
		{name: "array", call: callV([2]uint{1, 2}), wantLine: "GET /api/x?v=1&v=2"},
		{name: "floats", call: callV([]float64{0.1, 1e21}), wantLine: "GET /api/x?v=0.1&v=1e%2B21"},
		{name: "times", call: callV([]time.Time{t1}), wantLine: "GET /api/x?v=2024-01-01T00%3A00%3A00Z"},
		{name: "pointers with nil", call: callV([]*int{corePtr(1), nil, corePtr(2)}), wantLine: "GET /api/x?v=1&v=2"},
		{name: "any", call: callV([]any{1, "b", true}), wantLine: "GET /api/x?v=1&v=b&v=true"},
		{name: "empty", call: callV([]string{}), wantLine: "GET /api/x"},
		{name: "stringers", call: callV([]coreLevel{0, 1}), wantLine: "GET /api/x?v=low&v=high"},
	})
}

func TestRouteNaNIsAnError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call coreCaller
	}{
		{"NaN", callV(math.NaN())},
		{"+Inf", callV(math.Inf(1))},
		{"-Inf float32", callV(float32(math.Inf(-1)))},
		{"NaN in slice", callV([]float64{1, math.NaN()})},
		{"NaN in map", coreCall(kit.Get[map[string]any, *kit.Response]("/x"), map[string]any{"v": math.NaN()})},
		{"NaN in path", coreCall(kit.Get[struct{ ID float64 }, *kit.Response]("/x/{id}"), struct{ ID float64 }{math.NaN()})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(nil)
			_, c := setup(t, rec)
			err := tt.call(t.Context(), c)
			if err == nil || (!strings.Contains(err.Error(), "NaN") && !strings.Contains(err.Error(), "Inf")) {
				t.Errorf("err = %v, want one naming the value", err)
			}
			if n := len(rec.requests()); n != 0 {
				t.Errorf("server saw %d requests, want none", n)
			}
		})
	}
}

func TestRouteInterfaceFieldsByDynamicType(t *testing.T) {
	t.Parallel()
	type P struct {
		ID any
		V  any
	}
	ep := kit.Post[P, *kit.Response]("/x/{id}")
	var nilNote *coreNote
	runRouteCases(t, []routeCase{
		{name: "int", call: coreCall(ep, P{ID: 1, V: 5}), wantLine: "POST /api/x/1?v=5"},
		{name: "string path", call: coreCall(ep, P{ID: "a/b", V: "s"}), wantLine: "POST /api/x/a%2Fb?v=s"},
		{name: "nil dropped", call: coreCall(ep, P{ID: 1, V: nil}), wantLine: "POST /api/x/1"},
		{name: "nil pointer dropped", call: coreCall(ep, P{ID: 1, V: nilNote}), wantLine: "POST /api/x/1"},
		{name: "struct is body", call: coreCall(ep, P{ID: 1, V: coreNote{"b"}}), wantLine: "POST /api/x/1", wantBody: `{"text":"b"}`},
		{name: "pointer struct is body", call: coreCall(ep, P{ID: 1, V: &coreNote{"p"}}), wantLine: "POST /api/x/1", wantBody: `{"text":"p"}`},
		{name: "slice of models is body", call: coreCall(ep, P{ID: 1, V: []coreNote{{"a"}}}), wantLine: "POST /api/x/1", wantBody: `[{"text":"a"}]`},
		{name: "map is query", call: coreCall(ep, P{ID: 1, V: map[string]int{"k": 2}}), wantLine: "POST /api/x/1?k=2"},
		{name: "slice repeats", call: coreCall(ep, P{ID: 1, V: []string{"a", "b"}}), wantLine: "POST /api/x/1?v=a&v=b"},
		{name: "time is text", call: coreCall(ep, P{ID: 1, V: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}), wantLine: "POST /api/x/1?v=2024-01-01T00%3A00%3A00Z"},
		{name: "stringer", call: coreCall(ep, P{ID: coreLevel(1), V: coreLevel(0)}), wantLine: "POST /api/x/high?v=low"},
	})
}

func TestRouteInterfaceFieldErrors(t *testing.T) {
	t.Parallel()
	type P struct {
		ID any
		V  any
		B  *coreNote
	}
	ep := kit.Post[P, *kit.Response]("/x/{id}")
	tests := []struct {
		name string
		p    P
	}{
		{"struct in path", P{ID: coreNote{"x"}}},
		{"nil in path", P{ID: nil}},
		{"second body", P{ID: 1, V: coreNote{"a"}, B: &coreNote{"b"}}},
		{"channel", P{ID: 1, V: make(chan int)}},
		{"func", P{ID: 1, V: func() {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(nil)
			_, c := setup(t, rec)
			_, err := ep.Call(t.Context(), c, tt.p)
			if err == nil {
				t.Fatal("err = nil, want an error")
			}
			if !strings.Contains(err.Error(), "POST /x/{id}") {
				t.Errorf("err = %q, want it to name the endpoint", err)
			}
			if n := len(rec.requests()); n != 0 {
				t.Errorf("server saw %d requests, want none", n)
			}
		})
	}
}

func TestRouteEmbeddedFieldsPromoted(t *testing.T) {
	t.Parallel()
	type P struct {
		corePaging
		coreInner
		ID int
		Q  string
	}
	type withTag struct {
		Note coreNote `kit:"note"`
		corePaging
	}
	type withPtr struct {
		*corePaging
		Q string
	}
	runRouteCases(t, []routeCase{
		{
			name:     "promoted through a nil pointer: dropped",
			call:     coreCall(kit.Get[withPtr, *kit.Response]("/x"), withPtr{Q: "a"}),
			wantLine: "GET /api/x?q=a",
		},
		{
			name:     "promoted through a pointer",
			call:     coreCall(kit.Get[withPtr, *kit.Response]("/x"), withPtr{corePaging: &corePaging{Page: 3}, Q: "a"}),
			wantLine: "GET /api/x?page=3&q=a",
		},
		{
			name:     "promoted",
			call:     coreCall(kit.Get[P, *kit.Response]("/users/{id}"), P{corePaging: corePaging{Page: 2, PerPage: 50}, coreInner: coreInner{Sort: "name"}, ID: 1, Q: "x"}),
			wantLine: "GET /api/users/1?page=2&per_page=50&q=x&sort=name",
		},
		{
			name:     "promoted omitempty",
			call:     coreCall(kit.Get[P, *kit.Response]("/users/{id}"), P{ID: 1}),
			wantLine: "GET /api/users/1?page=0&q=&sort=",
		},
		{
			name:     "promoted next to a body",
			call:     coreCall(kit.Post[withTag, *kit.Response]("/notes"), withTag{Note: coreNote{"n"}, corePaging: corePaging{Page: 1}}),
			wantLine: "POST /api/notes?page=1",
			wantBody: `{"text":"n"}`,
		},
	})
}

func TestRouteStaticQueryInTemplate(t *testing.T) {
	t.Parallel()
	type P struct {
		Q    string
		Type string `kit:"type,omitempty"`
	}
	ep := kit.Get[P, *kit.Response]("/search?type=repo&sort=stars")
	runRouteCases(t, []routeCase{
		{name: "static only", call: coreCall(ep, P{Q: "kit"}), wantLine: "GET /api/search?q=kit&sort=stars&type=repo"},
		{name: "static and call", call: coreCall(ep, P{Q: "kit", Type: "user"}), wantLine: "GET /api/search?q=kit&sort=stars&type=repo&type=user"},
	})
}

func TestRouteStandardHeaders(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	calls := []coreCaller{
		coreCall(kit.Get[kit.NoParams, *kit.Response]("/a"), kit.NoParams{}),
		coreCall(kit.Get[kit.NoParams, any]("/a", kit.NoAuth()), kit.NoParams{}),
		coreCall(kit.Post[struct{ N coreNote }, coreNote]("/b"), struct{ N coreNote }{}),
		coreCall(kit.Delete[struct{ ID int }, *kit.Response]("/c/{id}"), struct{ ID int }{1}),
		coreCall(kit.Put[struct{ N *coreNote }, *kit.Response]("/d"), struct{ N *coreNote }{}),
	}
	for _, call := range calls {
		if err := call(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	wantCT := []string{"", "", "application/json", "", ""}
	for i, r := range rec.requests() {
		if got := r.Header.Values("Accept"); len(got) != 1 || got[0] != "application/json" {
			t.Errorf("request %d (%s): Accept = %q, want application/json", i, r.line(), got)
		}
		if got := r.Header.Get("Content-Type"); got != wantCT[i] {
			t.Errorf("request %d (%s): Content-Type = %q, want %q", i, r.line(), got, wantCT[i])
		}
		if got := r.Header.Get("User-Agent"); !strings.HasPrefix(got, "kit-go/") {
			t.Errorf("request %d (%s): User-Agent = %q, want kit's default", i, r.line(), got)
		}
	}
}

func TestRouteQueryParamErrorsNameTheField(t *testing.T) {
	t.Parallel()
	_, c := setup(t, replyJSON(http.StatusOK, `{}`))
	_, err := kit.Get[struct{ Ratio float64 }, any]("/x").Call(t.Context(), c, struct{ Ratio float64 }{math.NaN()})
	if err == nil || !strings.Contains(err.Error(), "Ratio") {
		t.Errorf("err = %v, want it to name the field", err)
	}
	var de *kit.DeclarationError
	if errors.As(err, &de) {
		t.Errorf("a call-time error is a *DeclarationError: %v", err)
	}
}

func TestRouteBodyThatDoesNotEncode(t *testing.T) {
	t.Parallel()
	type measure struct {
		Value float64 `json:"value"`
	}
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	_, err := kit.Post[struct{ M measure }, any]("/m").Call(t.Context(), c, struct{ M measure }{measure{math.NaN()}})
	if err == nil || !strings.Contains(err.Error(), "POST /m") {
		t.Errorf("err = %v, want an encoding error naming the endpoint", err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("server saw %d requests, want none", n)
	}
}
