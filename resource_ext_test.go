package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// apiUser is the user record of kittest.NewAPI.
type apiUser struct {
	ID     int    `json:"id,omitempty"`
	Name   string `json:"name" validate:"required"`
	Email  string `json:"email" validate:"required,email"`
	TeamID int    `json:"team_id"`
	Active bool   `json:"active"`
}

type apiPost struct {
	ID     int    `json:"id"`
	UserID int    `json:"user_id"`
	Title  string `json:"title"`
}

const seeded = 250 // kittest.NewAPI's default number of users

func TestResourceCRUD(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	users := kit.NewResource[apiUser](c, "/users")
	ctx := t.Context()

	created, err := users.Create(ctx, apiUser{Name: "Ada", Email: "ada@example.com", TeamID: 2})
	if err != nil {
		t.Fatal(err)
	}
	if created.ID != seeded+1 || created.Name != "Ada" {
		t.Fatalf("Create = %+v", created)
	}
	got, err := users.Get(ctx, created.ID)
	if err != nil || got != created {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, created)
	}
	got.Name = "Ada L."
	updated, err := users.Update(ctx, created.ID, got)
	if err != nil || updated.Name != "Ada L." {
		t.Fatalf("Update = %+v, %v", updated, err)
	}
	patched, err := users.Patch(ctx, created.ID, struct {
		TeamID int `json:"team_id"`
	}{4})
	if err != nil || patched.TeamID != 4 || patched.Name != "Ada L." {
		t.Fatalf("Patch = %+v, %v", patched, err)
	}
	resp, err := users.Delete(ctx, created.ID)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("Delete = %v, %v", resp, err)
	}
	_, err = users.Get(ctx, created.ID)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Fatalf("Get after Delete: %v", err)
	}
}

func TestResourceListQueryForms(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	users := kit.NewResource[apiUser](c, "/users")
	type filter struct {
		TeamID   int   `kit:"team_id"`
		Active   *bool `kit:"active"`
		PageSize int
	}
	active := true
	queries := map[string]any{
		"map":        map[string]any{"team_id": 3, "active": true, "page_size": 100},
		"url.Values": url.Values{"team_id": {"3"}, "active": {"true"}, "page_size": {"100"}},
		"struct":     filter{TeamID: 3, Active: &active, PageSize: 100},
		"*struct":    &filter{TeamID: 3, Active: &active, PageSize: 100},
	}
	for name, q := range queries {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			list, err := users.List(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			if len(list) == 0 {
				t.Fatal("no users")
			}
			for _, u := range list {
				if u.TeamID != 3 || !u.Active {
					t.Fatalf("user %+v does not match the filter", u)
				}
			}
		})
	}
	if _, err := users.List(t.Context(), 42); err == nil {
		t.Fatal("List(42): want an error")
	}
}

func TestResourceNoPath(t *testing.T) {
	t.Parallel()
	eng := &kittest.RecordingEngine{}
	c := newClient(t, "http://127.0.0.1:1", kit.WithEngine(eng))
	r := kit.NewResource[apiUser](c, "")
	ctx := t.Context()
	_, errList := r.List(ctx, nil)
	_, errGet := r.Get(ctx, 1)
	_, errCreate := r.Create(ctx, apiUser{Name: "a", Email: "a@b.c"})
	_, errUpdate := r.Update(ctx, 1, apiUser{Name: "a", Email: "a@b.c"})
	_, errDelete := r.Delete(ctx, 1)
	var errIter error
	for _, err := range r.All(ctx) {
		errIter = err
	}
	for op, err := range map[string]error{"List": errList, "Get": errGet, "Create": errCreate, "Update": errUpdate, "Delete": errDelete, "Iterate": errIter} {
		if !errors.Is(err, kit.ErrNoPath) {
			t.Errorf("%s: got %v, want ErrNoPath", op, err)
			continue
		}
		if !strings.Contains(err.Error(), op) {
			t.Errorf("%s: error %q does not name the method", op, err)
		}
	}
	if n := len(eng.Requests()); n != 0 {
		t.Fatalf("%d requests sent, want none", n)
	}
}

func TestResourceAnyRejectsMapBody(t *testing.T) {
	t.Parallel()
	eng := &kittest.RecordingEngine{}
	c := newClient(t, "http://127.0.0.1:1", kit.WithEngine(eng))
	r := kit.NewResource[any](c, "/users")
	_, err := r.Create(t.Context(), map[string]any{"name": "x"})
	if !errors.Is(err, kit.ErrNotModel) {
		t.Fatalf("Create(map): %v, want ErrNotModel", err)
	}
	_, err = r.Update(t.Context(), 1, map[string]any{"name": "x"})
	if !errors.Is(err, kit.ErrNotModel) {
		t.Fatalf("Update(map): %v, want ErrNotModel", err)
	}
	if n := len(eng.Requests()); n != 0 {
		t.Fatalf("%d requests sent, want none", n)
	}
	// A data model is fine, and raw JSON comes back.
	got, err := r.Create(t.Context(), apiUser{Name: "x", Email: "x@y.z"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.(map[string]any); !ok {
		t.Fatalf("Create on a T=any resource returned %T, want map[string]any", got)
	}
}

func TestResourceRawJSON(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	r := kit.NewResource[any](c, "/users")
	got, err := r.Get(t.Context(), 7)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := got.(map[string]any)
	if !ok || m["id"] != float64(7) {
		t.Fatalf("Get = %#v", got)
	}
}

// styles are kittest.NewAPI's collections, one per pagination style and
// records location.
var styles = []struct {
	name string
	path string
	p    kit.Paginator
}{
	{"PageNumber/data", "/paged/users", kit.PageNumber{PageSize: 40}},
	{"PageNumber/nested", "/nested/users", kit.PageNumber{PageSize: 33, ItemsKey: "payload.records"}},
	{"Offset/items", "/offset/users", kit.Offset{Limit: 45}},
	{"Cursor/results", "/cursor/users", kit.Cursor{NextKey: "meta.next_cursor"}},
	{"Cursor/flat", "/cursor-flat/users", kit.Cursor{}},
	{"LinkHeader/array", "/linked/users", &kit.LinkHeader{}},
}

func TestIterateEveryStyle(t *testing.T) {
	t.Parallel()
	// A Resource, and AsyncResources without and with prefetching.
	walkers := []struct {
		name string
		tw   twin
		opts []kit.ResourceOption
	}{
		{"sync", syncTwin, nil},
		{"async/prefetch=0", asyncTwin, []kit.ResourceOption{kit.WithPrefetch(0)}},
		{"async/prefetch=1", asyncTwin, []kit.ResourceOption{kit.WithPrefetch(1)}},
		{"async/prefetch=3", asyncTwin, []kit.ResourceOption{kit.WithPrefetch(3)}},
	}
	for _, w := range walkers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			_, b := w.tw.setup(t, kittest.NewAPI())
			for _, st := range styles {
				t.Run(st.name, func(t *testing.T) {
					t.Parallel()
					opts := append([]kit.ResourceOption{kit.WithPaginator(st.p)}, w.opts...)
					next := 1
					for u, err := range twinAll[apiUser](t.Context(), w.tw, b, st.path, opts...) {
						if err != nil {
							t.Fatal(err)
						}
						if u.ID != next {
							t.Fatalf("got user %d, want %d", u.ID, next)
						}
						next++
					}
					if next-1 != seeded {
						t.Fatalf("walked %d users, want %d", next-1, seeded)
					}
				})
			}
		})
	}
}

func TestIterateFiltersOnEveryPage(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	for _, st := range styles {
		t.Run(st.name, func(t *testing.T) {
			r := kit.NewResource[apiUser](c, st.path, kit.WithPaginator(st.p))
			query := url.Values{"team_id": {"2"}}
			n := 0
			for u, err := range r.Iterate(t.Context(), query) {
				if err != nil {
					t.Fatal(err)
				}
				if u.TeamID != 2 {
					t.Fatalf("user %+v is not in team 2", u)
				}
				n++
			}
			if n != seeded/5 {
				t.Fatalf("got %d users of team 2, want %d", n, seeded/5)
			}
			if len(query) != 1 || query.Get("team_id") != "2" {
				t.Fatalf("caller's query was modified: %v", query)
			}
		})
	}
}

// TestIterateIsLazy: a walk fetches no page ahead of the caller, with a
// Resource and with an AsyncResource that has no WithPrefetch.
func TestIterateIsLazy(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			api := kittest.NewAPI()
			_, b := tw.setup(t, api)
			taken := 0
			for _, err := range twinAll[apiUser](t.Context(), tw, b, "/paged/users", kit.WithPaginator(kit.PageNumber{PageSize: 5})) {
				if err != nil {
					t.Fatal(err)
				}
				taken++
				if taken == 10 {
					break
				}
			}
			if got := api.Stats().ByPath["GET /paged/users"]; got != 2 {
				t.Fatalf("taking 10 records of pages of 5 made %d requests, want 2", got)
			}
		})
	}
}

func TestIterateContextCancel(t *testing.T) {
	t.Parallel()
	api, c := setupAPI(t)
	r := kit.NewResource[apiUser](c, "/paged/users", kit.WithPaginator(kit.PageNumber{PageSize: 5}))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n, errs := 0, 0
	for _, err := range r.All(ctx) {
		if err != nil {
			errs++
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
			continue
		}
		n++
		if n == 5 {
			cancel()
		}
	}
	if n != 5 || errs != 1 {
		t.Fatalf("got %d records and %d errors, want 5 and 1", n, errs)
	}
	if got := api.Stats().ByPath["GET /paged/users"]; got != 1 {
		t.Fatalf("%d requests, want 1", got)
	}
}

func TestIterateErrorYieldedOnce(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 2 {
			http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
			return
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		fmt.Fprintf(w, `{"data":[{"id":%d,"name":"a","email":"a@b.c"},{"id":%d,"name":"b","email":"b@b.c"}]}`, 2*page-1, 2*page)
	}))
	r := kit.NewResource[apiUser](c, "/x", kit.WithPaginator(kit.PageNumber{PageSize: 2}))
	var ids []int
	var errs []error
	for u, err := range r.All(t.Context()) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, u.ID)
	}
	var he *kit.HTTPError
	if len(ids) != 2 || len(errs) != 1 || !errors.As(errs[0], &he) || he.StatusCode != 500 {
		t.Fatalf("ids %v, errs %v; want [1 2] and one 500", ids, errs)
	}
	if calls.Load() != 2 {
		t.Fatalf("%d requests after the error, want 2 in all", calls.Load())
	}
}

func TestPagesIncludeEmptyLastPage(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	r := kit.NewResource[apiUser](c, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 50}))
	var sizes []int
	for page, err := range r.Pages(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Total int `json:"total"`
		}
		if err := page.Response.JSON(&meta); err != nil || meta.Total != seeded {
			t.Fatalf("page metadata: %+v, %v", meta, err)
		}
		sizes = append(sizes, len(page.Records))
	}
	want := []int{50, 50, 50, 50, 50, 0}
	if fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Fatalf("page sizes %v, want %v", sizes, want)
	}
}

func TestWalkGuards(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	t.Run("clamped page number", func(t *testing.T) {
		r := kit.NewResource[apiUser](c, "/clamped/users", kit.WithPaginator(kit.PageNumber{PageSize: 50}))
		seen := map[int]bool{}
		var walkErr error
		for u, err := range r.All(t.Context()) {
			if err != nil {
				walkErr = err
				continue
			}
			if seen[u.ID] {
				t.Fatalf("user %d yielded twice", u.ID)
			}
			seen[u.ID] = true
		}
		if !errors.Is(walkErr, kit.ErrPageLoop) || len(seen) != seeded {
			t.Fatalf("got %d users and %v; want %d and ErrPageLoop", len(seen), walkErr, seeded)
		}
	})
	t.Run("stuck cursor", func(t *testing.T) {
		r := kit.NewResource[apiUser](c, "/stuck/users", kit.WithPaginator(kit.Cursor{NextKey: "meta.next_cursor"}))
		n, errs := 0, 0
		for _, err := range r.All(t.Context()) {
			if err != nil {
				if !errors.Is(err, kit.ErrPageLoop) {
					t.Fatalf("got %v, want ErrPageLoop", err)
				}
				errs++
				continue
			}
			n++
		}
		if errs != 1 || n == 0 || n > 2*100 {
			t.Fatalf("got %d records and %d errors", n, errs)
		}
	})
	t.Run("max pages", func(t *testing.T) {
		r := kit.NewResource[apiUser](c, "/paged/users", kit.WithPaginator(kit.PageNumber{PageSize: 10}), kit.WithMaxPages(3))
		n := 0
		for _, err := range r.All(t.Context()) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if n != 30 {
			t.Fatalf("got %d records, want 30", n)
		}
	})
}

func TestRecordsLocation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, itemsKey string
		want                 int
		wantErr              string
	}{
		{"top-level array", `[{"id":1},{"id":2}]`, "", 2, ""},
		{"data first", `{"results":[{"id":9}],"data":[{"id":1},{"id":2}]}`, "", 2, ""},
		{"items", `{"items":[{"id":1}]}`, "", 1, ""},
		{"results", `{"meta":{},"results":[{"id":1},{"id":2},{"id":3}]}`, "", 3, ""},
		{"data not an array", `{"data":{"id":1},"items":[{"id":1}]}`, "", 1, ""},
		{"null is empty", `{"data":null}`, "", 0, ""},
		{"items key", `{"data":[1],"payload":{"records":[{"id":1}]}}`, "payload.records", 1, ""},
		{"no list", `{"rows":[{"id":1}]}`, "", 0, "data, items, results"},
		{"items key missing", `{"data":[{"id":1}]}`, "payload.records", 0, `"payload.records"`},
		{"items key not array", `{"payload":{"records":7}}`, "payload.records", 0, "a number"},
		{"not json", `<html>`, "", 0, "invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.WriteString(w, tt.body)
			}))
			r := kit.NewResource[struct {
				ID int `json:"id"`
			}](c, "/x", kit.WithPaginator(kit.Cursor{ItemsKey: tt.itemsKey}))
			list, err := r.List(t.Context(), nil)
			if tt.wantErr != "" {
				var de *kit.DecodeError
				if !errors.As(err, &de) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want a *kit.DecodeError mentioning %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(list) != tt.want {
				t.Fatalf("got %d records, %v; want %d", len(list), err, tt.want)
			}
		})
	}
}

// reversePaginator is a custom paginator: it walks page numbers down from
// the caller's "from" parameter to 1.
type reversePaginator struct{}

func (reversePaginator) FirstPage(params url.Values) kit.PageRequest {
	params.Set("page_size", "10")
	params.Set("page", params.Get("from"))
	params.Del("from")
	return kit.PageRequest{Params: params}
}

func (reversePaginator) NextPage(resp *kit.Response, prev kit.PageRequest) (*kit.PageRequest, error) {
	page, err := strconv.Atoi(prev.Params.Get("page"))
	if err != nil {
		return nil, err
	}
	if page <= 1 {
		return nil, nil
	}
	next := prev.Clone()
	next.Params.Set("page", strconv.Itoa(page-1))
	return &next, nil
}

func TestCustomPaginator(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	r := kit.NewResource[apiUser](c, "/paged/users", kit.WithPaginator(reversePaginator{}))
	var first []int
	for page, err := range r.Pages(t.Context(), map[string]any{"from": 3}) {
		if err != nil {
			t.Fatal(err)
		}
		first = append(first, page.Records[0].ID)
	}
	if fmt.Sprint(first) != "[21 11 1]" {
		t.Fatalf("first ids of each page %v, want [21 11 1]", first)
	}
}

// Users is a resource with a custom endpoint: a user type embeds
// *kit.Resource and calls endpoint values with itself as the binding.
type Users struct{ *kit.Resource[apiUser] }

var userPosts = kit.Get[struct{ ID int }, []apiPost]("/users/{id}/posts")

func (u Users) Posts(ctx context.Context, id int) ([]apiPost, error) {
	return userPosts.Call(ctx, u, struct{ ID int }{id})
}

func TestResourceCustomEndpoint(t *testing.T) {
	t.Parallel()
	_, c := setupAPI(t)
	users := Users{kit.NewResource[apiUser](c, "/users")}
	posts, err := users.Posts(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(posts) != 2 || posts[0].UserID != 3 {
		t.Fatalf("posts = %+v", posts)
	}
	// Custom endpoints work on a resource without a path too.
	bare := Users{kit.NewResource[apiUser](c, "")}
	if _, err := bare.Posts(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
}
