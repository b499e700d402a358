package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
	"github.com/kithttp/kit/kittest"
)

func TestAsyncResourceCRUD(t *testing.T) {
	t.Parallel()
	_, ac := setupAsync(t, kittest.NewAPI())
	users := kit.NewAsyncResource[apiUser](ac, "/users")
	ctx := t.Context()

	created, err := users.Create(ctx, apiUser{Name: "Ada", Email: "ada@example.com", TeamID: 1}).Await(ctx)
	if err != nil || created.ID != seeded+1 {
		t.Fatalf("Create = %+v, %v", created, err)
	}
	// Fan out: several futures in flight at once.
	gets := make([]*kit.Future[apiUser], 10)
	for i := range gets {
		gets[i] = users.Get(ctx, i+1)
	}
	for i, f := range gets {
		u, err := f.Await(ctx)
		if err != nil || u.ID != i+1 {
			t.Fatalf("Get(%d) = %+v, %v", i+1, u, err)
		}
	}
	created.Name = "Ada L."
	if u, err := users.Update(ctx, created.ID, created).Await(ctx); err != nil || u.Name != "Ada L." {
		t.Fatalf("Update = %+v, %v", u, err)
	}
	if u, err := users.Patch(ctx, created.ID, struct {
		TeamID int `json:"team_id"`
	}{5}).Await(ctx); err != nil || u.TeamID != 5 {
		t.Fatalf("Patch = %+v, %v", u, err)
	}
	list, err := users.List(ctx, map[string]any{"team_id": 5, "page_size": 100}).Await(ctx)
	if err != nil || len(list) != seeded/5+1 {
		t.Fatalf("List = %d users, %v", len(list), err)
	}
	resp, err := users.Delete(ctx, created.ID).Await(ctx)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("Delete = %v, %v", resp, err)
	}
	_, err = users.Get(ctx, created.ID).Await(ctx)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Fatalf("Get after Delete: %v", err)
	}
}

// TestPrefetchFetchesAheadAndBreakCancels checks that with WithPrefetch the
// next page is requested while the caller still holds the current one, and
// that breaking out cancels the request in flight and leaves no goroutine.
func TestPrefetchFetchesAheadAndBreakCancels(t *testing.T) {
	requested := make(chan int, 10)
	cancelled := make(chan int, 10)
	_, ac := setupAsync(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		requested <- page
		if page >= 3 {
			<-r.Context().Done() // hold page 3 until the client gives up on it
			cancelled <- page
			return
		}
		fmt.Fprintf(w, `{"data":[{"id":%d,"name":"a","email":"a@b.c"},{"id":%d,"name":"b","email":"b@b.c"}]}`, 2*page-1, 2*page)
	}))
	r := kit.NewAsyncResource[apiUser](ac, "/x", kit.WithPaginator(kit.PageNumber{PageSize: 2}), kit.WithPrefetch(2))
	for u, err := range r.All(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if u.ID == 1 {
			// The caller is still on page 1: pages 2 and 3 are requested
			// ahead of it (at once, so in any order).
			got := []int{<-requested, <-requested, <-requested}
			slices.Sort(got)
			if !slices.Equal(got, []int{1, 2, 3}) {
				t.Fatalf("requested pages %v, want 1, 2 and 3", got)
			}
			break
		}
	}
	if got := <-cancelled; got != 3 {
		t.Fatalf("cancelled page %d, want 3", got)
	}
	if err := ac.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	leakcheck.Check(t)
}

func TestAsyncResourceAfterClose(t *testing.T) {
	t.Parallel()
	api := kittest.NewAPI()
	_, ac := setupAsync(t, api)
	r := kit.NewAsyncResource[apiUser](ac, "/users")
	if err := ac.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	_, errGet := r.Get(ctx, 1).Await(ctx)
	_, errList := r.List(ctx, nil).Await(ctx)
	_, errCreate := r.Create(ctx, apiUser{Name: "a", Email: "a@b.c"}).Await(ctx)
	var errIter error
	for _, err := range r.All(ctx) {
		errIter = err
	}
	for op, err := range map[string]error{"Get": errGet, "List": errList, "Create": errCreate, "All": errIter} {
		if !errors.Is(err, kit.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", op, err)
		}
	}
	if n := api.Stats().Requests; n != 0 {
		t.Fatalf("%d requests reached the server after Close", n)
	}
}

func TestAsyncResourceNeedsAsyncEngine(t *testing.T) {
	t.Parallel()
	eng := &kittest.RecordingEngine{}
	c := newClient(t, "http://127.0.0.1:1", kit.WithEngine(eng))
	r := kit.NewAsyncResource[apiUser](c, "/users")
	_, err := r.Get(t.Context(), 1).Await(t.Context())
	var ee *kit.EngineError
	if !errors.As(err, &ee) || ee.Lacks != "kit.AsyncEngine" || !errors.Is(err, kit.ErrEngineProtocol) {
		t.Fatalf("got %v, want an *EngineError lacking kit.AsyncEngine", err)
	}
	for _, err := range r.All(t.Context()) {
		if !errors.As(err, &ee) {
			t.Fatalf("All: got %v, want an *EngineError", err)
		}
	}
	// And the other way round: a sync resource on an async client.
	_, ac := setupAsync(t, kittest.NewAPI())
	_, err = kit.NewResource[apiUser](ac, "/users").Get(t.Context(), 1)
	if !errors.As(err, &ee) || ee.Lacks != "kit.Engine" {
		t.Fatalf("got %v, want an *EngineError lacking kit.Engine", err)
	}
	if n := len(eng.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

func TestAsyncResourceNoPath(t *testing.T) {
	t.Parallel()
	_, ac := setupAsync(t, kittest.NewAPI())
	r := kit.NewAsyncResource[apiUser](ac, "")
	_, err := r.Delete(t.Context(), 1).Await(t.Context())
	if !errors.Is(err, kit.ErrNoPath) {
		t.Fatalf("Delete: %v, want ErrNoPath", err)
	}
	for _, err := range r.Iterate(t.Context(), nil) {
		if !errors.Is(err, kit.ErrNoPath) {
			t.Fatalf("Iterate: %v, want ErrNoPath", err)
		}
	}
}

func TestPrefetchErrorYieldedOnce(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	_, ac := setupAsync(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		calls.Add(1)
		if page == 3 {
			http.Error(w, `{"error":"boom"}`, http.StatusBadGateway)
			return
		}
		fmt.Fprintf(w, `{"data":[{"id":%d,"name":"a","email":"a@b.c"}]}`, page)
	}))
	r := kit.NewAsyncResource[apiUser](ac, "/x", kit.WithPaginator(kit.PageNumber{PageSize: 1}), kit.WithPrefetch(4))
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
	if fmt.Sprint(ids) != "[1 2]" || len(errs) != 1 || !errors.As(errs[0], &he) || he.StatusCode != http.StatusBadGateway {
		t.Fatalf("ids %v, errs %v", ids, errs)
	}
	// Pages 4 to 6 may have been requested ahead (at most n-1 = 3 past
	// the failed page), never more: the walk stops at the error.
	if n := calls.Load(); n < 3 || n > 6 {
		t.Fatalf("%d requests, want 3 to 6 (nothing after the error and what was in flight)", n)
	}
}

// The benchmarks below compare a walk of 50 pages through a server with
// 2 ms of latency, by a consumer that spends about as long on each page,
// with the sync Resource and with an AsyncResource prefetching 2 pages.

const prefetchPagesN = 50

// latencyPages serves the pages.
func latencyPages() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Millisecond)
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if page > prefetchPagesN {
			fmt.Fprint(w, `{"data":[]}`)
			return
		}
		fmt.Fprint(w, `{"data":[`)
		for i := range 10 {
			if i > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"id":%d,"name":"n","email":"e@x.io"}`, (page-1)*10+i+1)
		}
		fmt.Fprint(w, `]}`)
	}
}

// consume stands for the caller's work on a page: about 2 ms.
func consume(n int) {
	if n%10 == 0 {
		time.Sleep(2 * time.Millisecond)
	}
}

func BenchmarkWalk50PagesSync(b *testing.B) {
	_, c := setup(b, latencyPages())
	r := kit.NewResource[apiUser](c, "/x", kit.WithPaginator(kit.PageNumber{PageSize: 10}))
	for b.Loop() {
		n := 0
		for _, err := range r.All(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
			n++
			consume(n)
		}
		if n != prefetchPagesN*10 {
			b.Fatalf("%d records", n)
		}
	}
}

func BenchmarkWalk50PagesPrefetch2(b *testing.B) {
	_, ac := setupAsync(b, latencyPages())
	r := kit.NewAsyncResource[apiUser](ac, "/x", kit.WithPaginator(kit.PageNumber{PageSize: 10}), kit.WithPrefetch(2))
	for b.Loop() {
		n := 0
		for _, err := range r.All(context.Background()) {
			if err != nil {
				b.Fatal(err)
			}
			n++
			consume(n)
		}
		if n != prefetchPagesN*10 {
			b.Fatalf("%d records", n)
		}
	}
}

// TestAsyncResourceIsBinding checks that an *AsyncResource is a Binding,
// as *Resource is: an endpoint of its own (here, a user's posts) is
// started through the resource, on its client.
func TestAsyncResourceIsBinding(t *testing.T) {
	t.Parallel()
	_, ac := setupAsync(t, kittest.NewAPI())
	type post struct {
		ID     int `json:"id"`
		UserID int `json:"user_id"`
	}
	userPosts := kit.Get[struct{ ID int }, []post]("/users/{id}/posts")
	var users kit.Binding = kit.NewAsyncResource[apiUser](ac, "/users")
	posts, err := userPosts.Go(t.Context(), users, struct{ ID int }{2}).Await(t.Context())
	if err != nil || len(posts) == 0 {
		t.Fatalf("posts of user 2: %v, %v", posts, err)
	}
	for _, p := range posts {
		if p.UserID != 2 {
			t.Errorf("post %d of user %d, want user 2", p.ID, p.UserID)
		}
	}
	var zero *kit.AsyncResource[apiUser]
	if _, err := userPosts.Go(t.Context(), zero, struct{ ID int }{2}).Await(t.Context()); !errors.Is(err, kit.ErrNilBinding) {
		t.Errorf("through a nil *AsyncResource: %v, want ErrNilBinding", err)
	}
}
