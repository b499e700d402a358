// Fault-injection suite: every kind of call through every fault of
// kittest.FaultServer. Matrix: 14 call kinds (Endpoint.Call, Endpoint.Go,
// Resource Get, List, Create, Update, Delete, iteration with PageNumber,
// Offset, Cursor and LinkHeader, AsyncResource iteration with
// WithPrefetch(2), pipelined AsyncResource iteration with Offset and
// WithPrefetch(8), and PagedEndpoint.GoIterate of a nested collection
// with WithPrefetch(4)) × 10 faults (refused, reset mid-body, truncated
// body, cut JSON, malformed JSON, wrong content type, body over the limit,
// stall until the deadline, 503 without retry, redirect loop) = 140, less 5
// that do not apply to Delete (a 204 with no body, returned raw) = 135
// cases. In a pipelined walk the fault hits whichever page request reaches
// the server first; the collections are long enough that it is never one
// past the end, whose error would be discarded. Plus 4 iterations
// recovering by retry (one per paginator, every record once and in order)
// and 3 async ones (a prefetching walk, a pipelined one, a paged
// endpoint's), non-advancing cursor and Link header (ErrPageLoop, sync and
// async), and a 401 storm for a call and for a pipelined walk. Each passes
// under go test -race.
package kit_test

import (
	"context"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

type faultUser struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

var faultGetUser = kit.Get[struct{ ID int }, faultUser]("/users/{id}")

// faultMembers is a nested collection walked in a pipeline: team 1 has 50
// users, 5 full pages of 10 and an empty one.
var faultMembers = kit.Paged[struct{ ID int }, faultUser]("/teams/{id}/members",
	kit.WithPaginator(kit.PageNumber{PageSize: 10}), kit.WithPrefetch(4))

type faultKind struct {
	name string
	// method is the HTTP method the call sends ("" means GET).
	method string
	run    func(ctx context.Context, url string) error
}

func faultKinds(t *testing.T) []faultKind {
	client := func(url string) *kit.Client {
		c, err := kit.NewClient(url, kit.WithMaxBodySize(64<<10))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	iter := func(path string, p kit.Paginator) func(ctx context.Context, url string) error {
		return func(ctx context.Context, url string) error {
			r := kit.NewResource[faultUser](client(url), path, kit.WithPaginator(p))
			for _, err := range r.All(ctx) {
				if err != nil {
					return err
				}
			}
			return nil
		}
	}
	return []faultKind{
		{"Call", "", func(ctx context.Context, url string) error {
			_, err := faultGetUser.Call(ctx, client(url), struct{ ID int }{7})
			return err
		}},
		{"Go", "", func(ctx context.Context, url string) error {
			ac, err := kit.NewAsyncClient(url, kit.WithMaxBodySize(64<<10))
			if err != nil {
				t.Fatal(err)
			}
			defer ac.Close(context.Background())
			_, err = faultGetUser.Go(ctx, ac, struct{ ID int }{7}).Await(context.Background())
			return err
		}},
		{"Resource.Get", "", func(ctx context.Context, url string) error {
			_, err := kit.NewResource[faultUser](client(url), "/users").Get(ctx, 7)
			return err
		}},
		{"Resource.List", "", func(ctx context.Context, url string) error {
			_, err := kit.NewResource[faultUser](client(url), "/users").List(ctx, nil)
			return err
		}},
		{"Resource.Create", "POST", func(ctx context.Context, url string) error {
			_, err := kit.NewResource[faultUser](client(url), "/users").Create(ctx, faultUser{Name: "Ada"})
			return err
		}},
		{"Resource.Update", "PUT", func(ctx context.Context, url string) error {
			_, err := kit.NewResource[faultUser](client(url), "/users").Update(ctx, 7, faultUser{ID: 7, Name: "Ada"})
			return err
		}},
		{"Resource.Delete", "DELETE", func(ctx context.Context, url string) error {
			_, err := kit.NewResource[faultUser](client(url), "/users").Delete(ctx, 7)
			return err
		}},
		{"AsyncResource.Prefetch2", "", func(ctx context.Context, url string) error {
			ac, err := kit.NewAsyncClient(url, kit.WithMaxBodySize(64<<10))
			if err != nil {
				t.Fatal(err)
			}
			defer ac.Close(context.Background())
			r := kit.NewAsyncResource[faultUser](ac, "/paged/users", kit.WithPaginator(kit.PageNumber{PageSize: 50}), kit.WithPrefetch(2))
			for _, err := range r.All(ctx) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"AsyncResource.Pipelined8", "", func(ctx context.Context, url string) error {
			ac, err := kit.NewAsyncClient(url, kit.WithMaxBodySize(64<<10))
			if err != nil {
				t.Fatal(err)
			}
			defer ac.Close(context.Background())
			r := kit.NewAsyncResource[faultUser](ac, "/offset/users", kit.WithPaginator(kit.Offset{Limit: 25}), kit.WithPrefetch(8))
			for _, err := range r.All(ctx) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"PagedEndpoint.GoIterate4", "", func(ctx context.Context, url string) error {
			ac, err := kit.NewAsyncClient(url, kit.WithMaxBodySize(64<<10))
			if err != nil {
				t.Fatal(err)
			}
			defer ac.Close(context.Background())
			for _, err := range faultMembers.GoIterate(ctx, ac, struct{ ID int }{1}) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"PageNumber", "", iter("/paged/users", kit.PageNumber{PageSize: 50})},
		{"Offset", "", iter("/offset/users", kit.Offset{Limit: 50})},
		{"Cursor", "", iter("/cursor/users", kit.Cursor{NextKey: "meta.next_cursor", ItemsKey: "results"})},
		{"LinkHeader", "", iter("/linked/users", kit.LinkHeader{})},
	}
}

// checkFaultErr checks that err is one line naming a method and the server.
func checkFaultErr(t *testing.T, err error, method, url string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error text is not one line: %q", msg)
	}
	if !strings.Contains(msg, method) || !strings.Contains(msg, url) {
		t.Errorf("error text does not name the method and URL: %q", msg)
	}
}

var deleteNA = map[string]bool{"reset": true, "truncated": true, "cut-json": true, "malformed": true, "wrong-type": true}

func TestFaultMatrix(t *testing.T) {
	faults := []struct {
		name  string
		fault kittest.Fault
		check func(t *testing.T, err error)
	}{
		{"refused", kittest.FaultNone, nil},
		{"reset", kittest.FaultReset, nil},
		{"truncated", kittest.FaultTruncated, nil},
		{"cut-json", kittest.FaultCutJSON, func(t *testing.T, err error) {
			var de *kit.DecodeError
			if !errors.As(err, &de) {
				t.Errorf("want *kit.DecodeError, got %v", err)
			}
		}},
		{"malformed", kittest.FaultMalformed, func(t *testing.T, err error) {
			var de *kit.DecodeError
			if !errors.As(err, &de) {
				t.Errorf("want *kit.DecodeError, got %v", err)
			}
		}},
		{"wrong-type", kittest.FaultWrongType, func(t *testing.T, err error) {
			var de *kit.DecodeError
			if !errors.As(err, &de) {
				t.Errorf("want *kit.DecodeError, got %v", err)
			}
		}},
		{"huge", kittest.FaultHuge, func(t *testing.T, err error) {
			if !errors.Is(err, kit.ErrBodyTooLarge) {
				t.Errorf("want ErrBodyTooLarge, got %v", err)
			}
		}},
		{"stall", kittest.FaultStall, func(t *testing.T, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("want context.DeadlineExceeded, got %v", err)
			}
		}},
		{"503", kittest.FaultStatus, func(t *testing.T, err error) {
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 503 {
				t.Errorf("want *kit.HTTPError 503, got %v", err)
			}
		}},
		{"redirect-loop", kittest.FaultRedirectLoop, func(t *testing.T, err error) {
			if !errors.Is(err, kit.ErrTooManyRedirects) {
				t.Errorf("want ErrTooManyRedirects, got %v", err)
			}
		}},
	}
	for _, k := range faultKinds(t) {
		for _, f := range faults {
			if k.name == "Resource.Delete" && deleteNA[f.name] {
				// DELETE /users/7 answers 204 with no body, and Delete
				// returns the raw *Response: there is no body to cut or
				// decode, so these faults do not apply.
				continue
			}
			t.Run(k.name+"/"+f.name, func(t *testing.T) {
				fs := kittest.NewFaultServer(t, kittest.NewAPI())
				url := fs.URL()
				if f.name == "refused" {
					fs.Close()
				} else {
					fs.Script(f.fault)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				defer cancel()
				if f.name != "stall" {
					ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
					defer cancel()
				}
				err := k.run(ctx, url)
				method := k.method
				if method == "" {
					method = "GET"
				}
				checkFaultErr(t, err, method, url)
				if f.check != nil {
					f.check(t, err)
				}
			})
		}
	}
}

func TestFaultRetryRecoversIteration(t *testing.T) {
	for _, k := range []struct {
		path string
		p    kit.Paginator
	}{
		{"/paged/users", kit.PageNumber{PageSize: 40}},
		{"/offset/users", kit.Offset{Limit: 40}},
		{"/cursor/users", kit.Cursor{NextKey: "meta.next_cursor", ItemsKey: "results"}},
		{"/linked/users", kit.LinkHeader{}},
	} {
		t.Run(k.path, func(t *testing.T) {
			fs := kittest.NewFaultServer(t, kittest.NewAPI(kittest.WithUsers(100)))
			fs.SetRetryAfter("0")
			c, err := kit.NewClient(fs.URL(), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond}))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			r := kit.NewResource[faultUser](c, k.path, kit.WithPaginator(k.p))
			fs.Script(kittest.FaultNone, 503, kittest.FaultReset, 502, kittest.FaultTruncated)
			want := 1
			for u, err := range r.All(context.Background()) {
				if err != nil {
					t.Fatal(err)
				}
				if u.ID != want {
					t.Fatalf("record %d: got id %d", want, u.ID)
				}
				want++
			}
			if want != 101 {
				t.Fatalf("got %d records, want 100", want-1)
			}
		})
	}
}

func TestFaultStuckCursor(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	c, err := kit.NewClient(fs.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := kit.NewResource[faultUser](c, "/stuck/users", kit.WithPaginator(kit.Cursor{NextKey: "meta.next_cursor"}))
	var last error
	n := 0
	for _, err := range r.All(context.Background()) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	if !errors.Is(last, kit.ErrPageLoop) || n != 20 {
		t.Fatalf("got %d records, err %v; want 20 and ErrPageLoop", n, last)
	}
}

func TestFault401Storm(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.SetFallback(kittest.Fault401)
	fetches := 0
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		fetches++
		return kit.Token{Value: "rejected"}, nil
	})
	c, err := kit.NewClient(fs.URL(), kit.WithAuth(auth))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = faultGetUser.Call(context.Background(), c, struct{ ID int }{7})
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 {
		t.Fatalf("want *kit.HTTPError 401, got %v", err)
	}
	checkFaultErr(t, err, "GET", fs.URL())
	if fetches != 2 || fs.Requests() != 2 {
		t.Fatalf("fetches %d, requests %d; want 2 (first use and one refresh) and 2", fetches, fs.Requests())
	}
}

// TestFault401StormPipelined: every page of a pipelined walk gets a 401;
// each request of the window is refreshed for and sent again at most once
// (a request first sent after a refresh, with the new token, may refresh
// again: exactly one shared refresh is TestPipelineOneRefresh's, with a
// server that holds the window together), and the walk ends with the first
// page's 401.
func TestFault401StormPipelined(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.SetFallback(kittest.Fault401)
	var fetches atomic.Int32
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		fetches.Add(1)
		return kit.Token{Value: "rejected"}, nil
	})
	ac, err := kit.NewAsyncClient(fs.URL(), kit.WithAuth(auth))
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(context.Background())
	var errs []error
	for _, err := range faultMembers.GoIterate(t.Context(), ac, struct{ ID int }{1}) {
		errs = append(errs, err)
	}
	var he *kit.HTTPError
	if len(errs) != 1 || !errors.As(errs[0], &he) || he.StatusCode != 401 || !strings.Contains(he.URL, "page=1&") {
		t.Fatalf("errs %v, want one 401 for page 1", errs)
	}
	checkFaultErr(t, errs[0], "GET", fs.URL())
	if n, reqs := fetches.Load(), fs.Requests(); n < 2 || n > 5 || reqs < 2 || reqs > 8 {
		t.Fatalf("fetches %d, requests %d; want 2 to 5 (first use, at most one refresh per request of a window of 4) and 2 to 8 (each sent at most twice)", n, reqs)
	}
}

// TestFaultStuckLink: a server whose next link points at the page just
// served, for sync and prefetching async walks: ErrPageLoop, each record
// once.
func TestFaultStuckLink(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `<users?page=1>; rel="next"`)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"id":1,"name":"a","email":"a@b.c"},{"id":2,"name":"b","email":"b@b.c"}]`)
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(context.Background())
	walks := map[string]func(context.Context, ...kit.CallOption) iter.Seq2[faultUser, error]{
		"sync":  kit.NewResource[faultUser](c, "/users", kit.WithPaginator(kit.LinkHeader{})).All,
		"async": kit.NewAsyncResource[faultUser](ac, "/users", kit.WithPaginator(kit.LinkHeader{}), kit.WithPrefetch(2)).All,
	}
	for name, all := range walks {
		seen := map[int]bool{}
		var last error
		for u, err := range all(t.Context()) {
			if err != nil {
				last = err
				continue
			}
			if seen[u.ID] {
				t.Fatalf("%s: record %d yielded twice", name, u.ID)
			}
			seen[u.ID] = true
		}
		if !errors.Is(last, kit.ErrPageLoop) || len(seen) != 2 {
			t.Fatalf("%s: got %d records, err %v; want 2 and ErrPageLoop", name, len(seen), last)
		}
	}
}

// TestFaultRetryRecoversAsync: the async paths recover by retry too, an
// endpoint future and a prefetching walk (every record once, in order).
func TestFaultRetryRecoversAsync(t *testing.T) {
	client := func(t *testing.T) (*kittest.FaultServer, *kit.AsyncClient) {
		fs := kittest.NewFaultServer(t, kittest.NewAPI(kittest.WithUsers(100)))
		fs.SetRetryAfter("0")
		ac, err := kit.NewAsyncClient(fs.URL(), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 5, BaseDelay: time.Millisecond}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ac.Close(context.Background()) })
		return fs, ac
	}
	t.Run("Go", func(t *testing.T) {
		fs, ac := client(t)
		fs.Script(503, kittest.FaultReset, 502)
		u, err := faultGetUser.Go(t.Context(), ac, struct{ ID int }{7}).Await(t.Context())
		if err != nil || u.ID != 7 {
			t.Fatalf("Go after 3 faults: %+v, %v", u, err)
		}
	})
	// Walks: the faults hit whichever requests of a window arrive first,
	// at most 4 on one page, so 5 attempts always suffice.
	for _, w := range []struct {
		name string
		walk func(ctx context.Context, ac *kit.AsyncClient) iter.Seq2[faultUser, error]
		step int // between ids
	}{
		{"prefetch 2", func(ctx context.Context, ac *kit.AsyncClient) iter.Seq2[faultUser, error] {
			return kit.NewAsyncResource[faultUser](ac, "/paged/users", kit.WithPaginator(kit.PageNumber{PageSize: 30}), kit.WithPrefetch(2)).All(ctx)
		}, 1},
		{"pipelined 8", func(ctx context.Context, ac *kit.AsyncClient) iter.Seq2[faultUser, error] {
			return kit.NewAsyncResource[faultUser](ac, "/offset/users", kit.WithPaginator(kit.Offset{Limit: 10}), kit.WithPrefetch(8)).All(ctx)
		}, 1},
		{"paged endpoint", func(ctx context.Context, ac *kit.AsyncClient) iter.Seq2[faultUser, error] {
			return faultMembers.GoIterate(ctx, ac, struct{ ID int }{1}) // team 1: ids 1, 6, 11, ...
		}, 5},
	} {
		t.Run(w.name, func(t *testing.T) {
			fs, ac := client(t)
			fs.Script(kittest.FaultNone, 503, kittest.FaultTruncated, 502, kittest.FaultReset)
			want := 1
			for u, err := range w.walk(t.Context(), ac) {
				if err != nil {
					t.Fatal(err)
				}
				if u.ID != want {
					t.Fatalf("got id %d, want %d", u.ID, want)
				}
				want += w.step
			}
			if want != 101 {
				t.Fatalf("walk ended before id %d", want)
			}
		})
	}
}
