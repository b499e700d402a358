package kit_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// memberParams addresses a team's members: {id} from the path, the active
// filter as a query parameter, and a header, all sent on every page.
type memberParams struct {
	ID     int
	Active *bool
	Trace  string `kit:"X-Trace,header"`
}

// memberStyles are kittest's /teams/{id}/members collections.
var memberStyles = []struct {
	name, path string
	p          kit.Paginator
}{
	{"PageNumber", "/teams/{id}/members", kit.PageNumber{PageSize: 7}},
	{"Offset", "/offset/teams/{id}/members", kit.Offset{Limit: 7}},
	{"Cursor", "/cursor/teams/{id}/members", kit.Cursor{NextKey: "meta.next_cursor"}},
	{"LinkHeader", "/linked/teams/{id}/members", kit.LinkHeader{}},
}

// TestPagedEveryStyle walks a nested collection in each pagination style,
// with Iterate (sync) and GoIterate (lazy and pipelined): the team's
// members, in order, filtered on every page, the header on every page.
func TestPagedEveryStyle(t *testing.T) {
	t.Parallel()
	active := true
	var want []int // the active members of team 3
	for id := 1; id <= seeded; id++ {
		if (id-1)%5+1 == 3 && id%3 != 0 {
			want = append(want, id)
		}
	}
	walks := []struct {
		name  string
		async bool
		opts  []kit.EndpointOption
	}{
		{"Iterate", false, nil},
		{"Iterate/prefetch ignored", false, []kit.EndpointOption{kit.WithPrefetch(4)}},
		{"GoIterate", true, nil},
		{"GoIterate/prefetch=4", true, []kit.EndpointOption{kit.WithPrefetch(4)}},
	}
	for _, st := range memberStyles {
		for _, wk := range walks {
			t.Run(st.name+"/"+wk.name, func(t *testing.T) {
				t.Parallel()
				api := kittest.NewAPI()
				rec := newRecorder(api.ServeHTTP)
				tw := syncTwin
				if wk.async {
					tw = asyncTwin
				}
				_, b := tw.setup(t, rec)
				ep := kit.Paged[memberParams, apiUser](st.path, append([]kit.EndpointOption{kit.WithPaginator(st.p)}, wk.opts...)...)
				p := memberParams{ID: 3, Active: &active, Trace: "t-1"}
				seq := ep.Iterate
				if wk.async {
					seq = ep.GoIterate
				}
				var got []int
				for u, err := range seq(t.Context(), b, p) {
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, u.ID)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("walked %v,\nwant %v", got, want)
				}
				reqs := rec.requests()
				if len(reqs) < 2 {
					t.Fatalf("%d requests, want several pages", len(reqs))
				}
				prefix := strings.Replace(st.path, "{id}", "3", 1)
				for _, r := range reqs {
					if r.URL.Path != prefix || r.URL.Query().Get("active") != "true" || r.Header.Get("X-Trace") != "t-1" {
						t.Fatalf("page request %s (X-Trace %q) lacks the path, the filter or the header", r.line(), r.Header.Get("X-Trace"))
					}
				}
			})
		}
	}
}

// TestPagedRouting: placeholders are escaped as one segment under the base
// URL's path, and the template's static query, P's query and the
// paginator's parameters are on every page; the caller's P is untouched.
func TestPagedRouting(t *testing.T) {
	t.Parallel()
	rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "3" {
			replyJSON(200, `[]`)(w, r)
			return
		}
		replyJSON(200, `[{"id":`+r.URL.Query().Get("page")+`,"name":"a","email":"a@b.c"}]`)(w, r)
	})
	srv := serve(t, rec)
	c := newClient(t, srv.URL+"/api/")
	type params struct {
		Org  string
		Tags []string
	}
	ep := kit.Paged[params, apiUser]("/orgs/{org}/repos?type=all", kit.WithPaginator(kit.PageNumber{PageSize: 1}))
	p := params{Org: "a/b c", Tags: []string{"x", "y"}}
	n := 0
	for _, err := range ep.Iterate(t.Context(), c, p) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d records, want 2", n)
	}
	var lines []string
	for _, r := range rec.requests() {
		lines = append(lines, r.line())
	}
	want := []string{
		"GET /api/orgs/a%2Fb%20c/repos?page=1&page_size=1&tags=x&tags=y&type=all",
		"GET /api/orgs/a%2Fb%20c/repos?page=2&page_size=1&tags=x&tags=y&type=all",
		"GET /api/orgs/a%2Fb%20c/repos?page=3&page_size=1&tags=x&tags=y&type=all",
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("requests\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if p.Org != "a/b c" || !slices.Equal(p.Tags, []string{"x", "y"}) {
		t.Fatalf("P was modified: %+v", p)
	}

	// P may be a map: entries named like a placeholder fill the path.
	mep := kit.Paged[map[string]any, apiUser]("/teams/{id}/members")
	_, c2 := setupAPI(t)
	n = 0
	for u, err := range mep.Iterate(t.Context(), c2, map[string]any{"id": 2, "page_size": 20}) {
		if err != nil {
			t.Fatal(err)
		}
		if u.TeamID != 2 {
			t.Fatalf("user %+v is not in team 2", u)
		}
		n++
	}
	if n != seeded/5 {
		t.Fatalf("%d members, want %d", n, seeded/5)
	}
}

// TestPagedPages: Pages and GoPages yield the same pages, each with its
// response, an empty last one included.
func TestPagedPages(t *testing.T) {
	t.Parallel()
	ep := kit.Paged[struct{ ID int }, apiUser]("/teams/{id}/members", kit.WithPaginator(kit.PageNumber{PageSize: 10}), kit.WithPrefetch(3))
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, kittest.NewAPI())
			pages := ep.Pages
			if tw.async {
				pages = ep.GoPages
			}
			var sizes []int
			for page, err := range pages(t.Context(), b, struct{ ID int }{1}) {
				if err != nil {
					t.Fatal(err)
				}
				var meta struct{ Total int }
				if err := page.Response.JSON(&meta); err != nil || meta.Total != seeded/5 || page.Response.StatusCode != 200 {
					t.Fatalf("page response: total %d, status %d, %v", meta.Total, page.Response.StatusCode, err)
				}
				sizes = append(sizes, len(page.Records))
			}
			if !slices.Equal(sizes, []int{10, 10, 10, 10, 10, 0}) {
				t.Fatalf("pages of %v records", sizes)
			}
		})
	}
}

// TestPagedLazyAndGuards: a sync walk of a paged endpoint is lazy, bounded
// by WithMaxPages and guarded like a resource's.
func TestPagedLazyAndGuards(t *testing.T) {
	t.Parallel()
	api, c := setupAPI(t)
	ep := kit.Paged[struct{ ID int }, apiUser]("/teams/{id}/members", kit.WithPaginator(kit.PageNumber{PageSize: 5}))
	n := 0
	for _, err := range ep.Iterate(t.Context(), c, struct{ ID int }{4}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 10 {
			break
		}
	}
	if got := api.Stats().ByPath["GET /teams/4/members"]; got != 2 {
		t.Fatalf("10 records of pages of 5 took %d requests, want 2", got)
	}

	bounded := kit.Paged[struct{ ID int }, apiUser]("/teams/{id}/members", kit.WithPaginator(kit.PageNumber{PageSize: 5}), kit.WithMaxPages(3))
	n = 0
	for _, err := range bounded.Iterate(t.Context(), c, struct{ ID int }{4}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 15 {
		t.Fatalf("WithMaxPages(3) of pages of 5 gave %d records", n)
	}

	clamped := kit.Paged[kit.NoParams, apiUser]("/clamped/users", kit.WithPaginator(kit.PageNumber{PageSize: 50}))
	var last error
	n = 0
	for _, err := range clamped.Iterate(t.Context(), c, kit.NoParams{}) {
		if err != nil {
			last = err
			continue
		}
		n++
	}
	if !errors.Is(last, kit.ErrPageLoop) || n != seeded {
		t.Fatalf("%d records, then %v; want %d and ErrPageLoop", n, last, seeded)
	}
}

// TestPagedEngineErrors: Iterate and Pages need kit.Engine, GoIterate and
// GoPages kit.AsyncEngine; without it the walk yields an *EngineError
// naming the endpoint, and sends nothing.
func TestPagedEngineErrors(t *testing.T) {
	t.Parallel()
	api := kittest.NewAPI()
	_, c := setup(t, api)
	_, ac := setupAsync(t, api)
	ep := kit.Paged[struct{ ID int }, apiUser]("/teams/{id}/members")
	p := struct{ ID int }{1}
	for _, tc := range []struct {
		name  string
		err   error
		lacks string
	}{
		{"Iterate on an AsyncClient", firstError(ep.Iterate(t.Context(), ac, p)), "kit.Engine"},
		{"Pages on an AsyncClient", firstError(records(ep.Pages(t.Context(), ac, p))), "kit.Engine"},
		{"GoIterate on a Client", firstError(ep.GoIterate(t.Context(), c, p)), "kit.AsyncEngine"},
		{"GoPages on a Client", firstError(records(ep.GoPages(t.Context(), c, p))), "kit.AsyncEngine"},
	} {
		var ee *kit.EngineError
		if !errors.As(tc.err, &ee) || ee.Lacks != tc.lacks || ee.Endpoint != "GET /teams/{id}/members" || !errors.Is(tc.err, kit.ErrEngineProtocol) {
			t.Errorf("%s: %v, want an *EngineError lacking %s", tc.name, tc.err, tc.lacks)
		}
	}
	if n := api.Stats().Requests; n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestPagedCallErrors: what keeps a walk from starting is yielded once,
// and nothing is sent.
func TestPagedCallErrors(t *testing.T) {
	t.Parallel()
	api := kittest.NewAPI()
	_, c := setup(t, api)
	_, closed := setupAsync(t, api)
	if err := closed.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	type dyn struct {
		ID   int
		Body any
	}
	byID := kit.Paged[struct{ ID string }, apiUser]("/teams/{id}/members")
	var undeclared *kit.PagedEndpoint[kit.NoParams, apiUser]
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"path value ..", firstError(byID.Iterate(ctx, c, struct{ ID string }{".."})), `path parameter {id} is ".."`},
		{"empty path value", firstError(byID.Iterate(ctx, c, struct{ ID string }{})), `path parameter {id} is ""`},
		{"a body at call time", firstError(kit.Paged[dyn, apiUser]("/teams/{id}/members").Iterate(ctx, c, dyn{1, apiUser{}})), "sends no body"},
		{"nil binding", firstError(byID.Iterate(ctx, nil, struct{ ID string }{"1"})), "nil binding"},
		{"undeclared", firstError(undeclared.Iterate(ctx, c, kit.NoParams{})), "was not declared"},
		{"zero value", firstError((&kit.PagedEndpoint[kit.NoParams, apiUser]{}).GoIterate(ctx, c, kit.NoParams{})), "was not declared"},
		{"after Close", firstError(byID.GoIterate(ctx, closed, struct{ ID string }{"1"})), "client is closed"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) || !strings.HasPrefix(tc.err.Error(), "kit: ") {
			t.Errorf("%s: %v, want an error with %q", tc.name, tc.err, tc.want)
		}
	}
	if err := firstError(byID.Iterate(ctx, nil, struct{ ID string }{"1"})); !errors.Is(err, kit.ErrNilBinding) {
		t.Errorf("nil binding: %v, want ErrNilBinding", err)
	}
	if err := firstError(byID.GoIterate(ctx, closed, struct{ ID string }{"1"})); !errors.Is(err, kit.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	if n := api.Stats().Requests; n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestPagedDeclarationErrors: Paged panics and NewPaged returns a
// *DeclarationError for a bad declaration; the pagination options are
// refused on endpoints that are not paged.
func TestPagedDeclarationErrors(t *testing.T) {
	t.Parallel()
	type body struct {
		ID   int
		User apiUser
	}
	errOf := func(_ any, err error) error { return err }
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"placeholder without field", errOf(kit.NewPaged[struct{ Org string }, apiUser]("/teams/{id}/members")), "placeholder {id} has no field"},
		{"body field", errOf(kit.NewPaged[body, apiUser]("/teams/{id}/members")), "field User (kit_test.apiUser) would be the request body, and GET requests have no body"},
		{"*Response records", errOf(kit.NewPaged[kit.NoParams, *kit.Response]("/users")), "record type *kit.Response"},
		{"negative max pages", errOf(kit.NewPaged[kit.NoParams, apiUser]("/users", kit.WithMaxPages(-1))), "WithMaxPages(-1): must not be negative"},
		{"negative prefetch", errOf(kit.NewPaged[kit.NoParams, apiUser]("/users", kit.WithPrefetch(-2))), "WithPrefetch(-2): must not be negative"},
		{"bad path", errOf(kit.NewPaged[kit.NoParams, apiUser]("/users/{id")), "unterminated"},
		{"bad items key", errOf(kit.NewPaged[kit.NoParams, apiUser]("/users", kit.WithPaginator(kit.PageNumber{ItemsKey: "a..b"}))), "items key"},
		{"paginator on Get", errOf(kit.NewEndpoint[kit.NoParams, []apiUser]("GET", "/users", kit.WithPaginator(kit.Cursor{}))), "kit.WithPaginator applies to a paged endpoint (kit.Paged) or a resource, not to an endpoint declared with kit.Get"},
		{"prefetch on a custom method", errOf(kit.NewEndpoint[kit.NoParams, []apiUser]("QUERY", "/users", kit.WithPrefetch(2))), "declared with kit.NewEndpoint"},
		{"max pages on Post", errOf(kit.NewEndpoint[kit.NoParams, apiUser]("POST", "/users", kit.WithMaxPages(2))), "kit.WithMaxPages applies"},
	} {
		var de *kit.DeclarationError
		if !errors.As(tc.err, &de) || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *DeclarationError with %q", tc.name, tc.err, tc.want)
		}
	}
	defer func() {
		var de *kit.DeclarationError
		if err, _ := recover().(error); !errors.As(err, &de) || de.Method != "GET" || de.Path != "/x/{y}" {
			t.Fatalf("Paged panicked with %v, want a *DeclarationError", err)
		}
	}()
	kit.Paged[kit.NoParams, apiUser]("/x/{y}")
	t.Fatal("Paged did not panic")
}

func TestPagedString(t *testing.T) {
	t.Parallel()
	ep := kit.Paged[struct{ User string }, any]("/users/{user}/repos")
	var undeclared *kit.PagedEndpoint[kit.NoParams, any]
	if got := ep.String(); got != "GET /users/{user}/repos" {
		t.Errorf("String() = %q", got)
	}
	if got := undeclared.String(); got != "<undeclared kit.PagedEndpoint>" {
		t.Errorf("String() of nil = %q", got)
	}
	// The options print what they hold, and are both kinds of option.
	var (
		_ kit.ResourceOption = kit.WithPrefetch(2)
		_ kit.EndpointOption = kit.WithPrefetch(2)
	)
	if got := fmt.Sprint(kit.WithPrefetch(8), kit.WithMaxPages(3)); got != "kit.WithPrefetch(8) kit.WithMaxPages(3)" {
		t.Errorf("options print as %q", got)
	}
}

// firstError returns the first error a record walk yields.
func firstError[T any](seq func(func(T, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

// records turns a page walk into a walk of its records, for firstError.
func records[T any](pages func(func(*kit.Page[T], error) bool)) func(func(T, error) bool) {
	return func(yield func(T, error) bool) {
		for page, err := range pages {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, r := range page.Records {
				if !yield(r, nil) {
					return
				}
			}
		}
	}
}
