package kit_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
	"github.com/kithttp/kit/kittest"
)

type opUserParams struct{ ID int }

type opMemberParams struct {
	ID     int
	Active *bool
}

func opTypes() (p, u reflect.Type) {
	return reflect.TypeFor[opUserParams](), reflect.TypeFor[User]()
}

func TestOperationCallInto(t *testing.T) {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	pt, ut := opTypes()
	op, err := kit.NewOperation(http.MethodGet, "/users/{id}", pt, ut)
	if err != nil {
		t.Fatal(err)
	}
	if got := op.String(); got != "GET /users/{id}" {
		t.Errorf("String() = %q", got)
	}
	ctx := context.Background()
	var u User
	if err := op.CallInto(ctx, c, &opUserParams{ID: 3}, &u); err != nil {
		t.Fatal(err)
	}
	want, err := getUser.Call(ctx, c, struct{ ID int }{3})
	if err != nil {
		t.Fatal(err)
	}
	if u != want {
		t.Errorf("CallInto: %+v; Endpoint.Call: %+v", u, want)
	}
	// The result dropped: decoded and validated all the same.
	if err := op.CallInto(ctx, c, &opUserParams{ID: 3}, nil); err != nil {
		t.Errorf("CallInto with a nil out: %v", err)
	}
	// A status error, with the zero value left in out.
	u = User{ID: 99, Name: "stale"}
	err = op.CallInto(ctx, c, &opUserParams{ID: 1 << 30}, &u)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Errorf("missing user: %v, want a 404 *kit.HTTPError", err)
	}
	if u != (User{}) {
		t.Errorf("out after an error: %+v, want the zero User", u)
	}

	// Arguments of the wrong types are errors, and nothing is sent.
	before := srvRequests(t, srv)
	for _, tc := range []struct {
		name        string
		params, out any
		want        string
	}{
		{"params value", opUserParams{ID: 1}, &u, "params is kit_test.opUserParams, want *kit_test.opUserParams"},
		{"params type", &struct{ ID int }{1}, &u, "params is *struct { ID int }"},
		{"nil params", nil, &u, "params is nil"},
		{"nil params pointer", (*opUserParams)(nil), &u, "params is a nil *kit_test.opUserParams"},
		{"out type", &opUserParams{ID: 1}, &want.Name, "out is *string, want *kit_test.User"},
	} {
		err := op.CallInto(ctx, c, tc.params, tc.out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if after := srvRequests(t, srv); after != before {
		t.Errorf("%d requests sent for calls with bad arguments", after-before)
	}
}

// srvRequests counts what the demo API served, by its stats.
func srvRequests(t *testing.T, srv *httptest.Server) int {
	t.Helper()
	return srv.Config.Handler.(*kittest.API).Stats().Requests
}

func TestOperationResultAndNoParams(t *testing.T) {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// nil params type: kit.NoParams, and params may be nil.
	health, err := kit.NewOperation(http.MethodGet, "/health", nil, reflect.TypeFor[kit.Result[map[string]any]]())
	if err != nil {
		t.Fatal(err)
	}
	var r kit.Result[map[string]any]
	if err := health.CallInto(ctx, c, nil, &r); err != nil {
		t.Fatal(err)
	}
	if r.StatusCode != http.StatusOK || r.Value == nil {
		t.Errorf("health: %d %v", r.StatusCode, r.Value)
	}
	// A Result returned with an error has a Response safe to read.
	pt, _ := opTypes()
	get, err := kit.NewOperation(http.MethodGet, "/users/{id}", pt, reflect.TypeFor[kit.Result[User]]())
	if err != nil {
		t.Fatal(err)
	}
	var ru kit.Result[User]
	err = get.CallInto(ctx, c, &opUserParams{ID: 1 << 30}, &ru)
	if err == nil || ru.Response == nil || ru.StatusCode != http.StatusNotFound || ru.Value != (User{}) {
		t.Errorf("Result after a 404: %v, %+v", err, ru)
	}
	// A nil result type: *kit.Response.
	raw, err := kit.NewOperation(http.MethodGet, "/health", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var resp *kit.Response
	if err := raw.CallInto(ctx, c, nil, &resp); err != nil || resp == nil || resp.StatusCode != http.StatusOK {
		t.Errorf("raw: %v, %v", resp, err)
	}
}

func TestOperationDeclarationErrors(t *testing.T) {
	pt, ut := opTypes()
	if _, err := kit.NewOperation(http.MethodGet, "/users/{nope}", pt, ut); !errors.As(err, new(*kit.DeclarationError)) {
		t.Errorf("bad placeholder: %v, want a *kit.DeclarationError", err)
	}
	if _, err := kit.NewPagedOperation(http.MethodPut, "/users", nil, ut); !errors.As(err, new(*kit.DeclarationError)) {
		t.Errorf("paged PUT: %v, want a *kit.DeclarationError", err)
	}
	if _, err := kit.NewPagedOperation(http.MethodGet, "/users", nil, reflect.TypeFor[*kit.Response]()); !errors.As(err, new(*kit.DeclarationError)) {
		t.Errorf("paged *kit.Response: %v, want a *kit.DeclarationError", err)
	}
	// An undeclared or failed operation: every use reports it.
	ctx := context.Background()
	c, err := kit.NewClient("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	var nilOp *kit.Operation
	if err := nilOp.CallInto(ctx, c, nil, nil); err == nil || !strings.Contains(err.Error(), "not declared") {
		t.Errorf("nil operation: %v", err)
	}
	if nilOp.String() != "<undeclared kit.Operation>" {
		t.Errorf("nil String: %q", nilOp.String())
	}
	var lazy kit.LazyOperation
	calls := 0
	declare := func() (*kit.Operation, error) {
		calls++
		return kit.NewOperation(http.MethodGet, "/users/{nope}", pt, ut)
	}
	op := lazy.Get(declare)
	if lazy.Get(declare) != op || calls != 1 {
		t.Errorf("LazyOperation declared %d times, want once", calls)
	}
	err = op.CallInto(ctx, c, &opUserParams{}, new(User))
	if !errors.As(err, new(*kit.DeclarationError)) {
		t.Errorf("failed declaration: %v, want a *kit.DeclarationError", err)
	}
	for _, err := range op.Pages(ctx, c, nil) {
		if !errors.As(err, new(*kit.DeclarationError)) {
			t.Errorf("failed declaration, Pages: %v", err)
		}
	}
	f := kit.GoOperation[User](ctx, op, c, &opUserParams{})
	if _, err := f.Await(ctx); !errors.As(err, new(*kit.DeclarationError)) {
		t.Errorf("failed declaration, GoOperation: %v", err)
	}
}

func TestLazyOperationConcurrent(t *testing.T) {
	var lazy kit.LazyOperation
	pt, ut := opTypes()
	declare := func() (*kit.Operation, error) { return kit.NewOperation(http.MethodGet, "/users/{id}", pt, ut) }
	var wg sync.WaitGroup
	ops := make([]*kit.Operation, 8)
	for i := range ops {
		wg.Go(func() { ops[i] = lazy.Get(declare) })
	}
	wg.Wait()
	for _, op := range ops {
		if op != ops[0] || op == nil {
			t.Fatalf("goroutines got different operations: %p, %p", op, ops[0])
		}
	}
}

func TestOperationPages(t *testing.T) {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opts := []kit.EndpointOption{kit.PagedBy(kit.PageNumber{PageSize: 10})}
	op, err := kit.NewPagedOperation(http.MethodGet, "/teams/{id}/members", reflect.TypeFor[opMemberParams](), reflect.TypeFor[User](), opts...)
	if err != nil {
		t.Fatal(err)
	}
	active := true
	var got []User
	pages := 0
	for page, err := range op.Pages(ctx, c, &opMemberParams{ID: 2, Active: &active}) {
		if err != nil {
			t.Fatal(err)
		}
		recs, ok := page.Records.([]User)
		if !ok {
			t.Fatalf("Records is %T, want []User", page.Records)
		}
		if page.Response == nil || page.Response.StatusCode != http.StatusOK || page.Response.Header.Get("Content-Type") == "" {
			t.Fatalf("page %d: response %+v", pages+1, page.Response)
		}
		got = append(got, recs...)
		pages++
	}
	var want []User
	for u, err := range teamMembers.Iterate(ctx, c, MemberQuery{ID: 2, Active: &active}) {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, u)
	}
	if !reflect.DeepEqual(got, want) || len(got) == 0 || pages < 2 {
		t.Errorf("Operation walk: %d records in %d pages; PagedEndpoint walk: %d records", len(got), pages, len(want))
	}

	// Misuse: a walk of a call, a call of a walk, wrong params.
	get, _ := kit.NewOperation(http.MethodGet, "/users/{id}", reflect.TypeFor[opUserParams](), reflect.TypeFor[User]())
	for _, err := range get.Pages(ctx, c, &opUserParams{ID: 1}) {
		if err == nil || !strings.Contains(err.Error(), "not paged") {
			t.Errorf("Pages of a call: %v", err)
		}
	}
	if err := op.CallInto(ctx, c, &opMemberParams{ID: 2}, new(User)); err == nil || !strings.Contains(err.Error(), "is paged") {
		t.Errorf("CallInto of a walk: %v", err)
	}
	n := 0
	for _, err := range op.Pages(ctx, c, &opUserParams{ID: 2}) {
		n++
		if err == nil || !strings.Contains(err.Error(), "params is *kit_test.opUserParams") {
			t.Errorf("Pages with wrong params: %v", err)
		}
	}
	if n != 1 {
		t.Errorf("Pages with wrong params yielded %d times, want once", n)
	}
	// Raw records: a nil record type is any.
	raw, err := kit.NewPagedOperation(http.MethodGet, "/teams/{id}/members", reflect.TypeFor[opMemberParams](), nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for page, err := range raw.Pages(ctx, c, &opMemberParams{ID: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		recs := page.Records.([]any)
		if len(recs) == 0 {
			t.Fatal("no raw records")
		}
		if _, ok := recs[0].(map[string]any); !ok {
			t.Fatalf("raw record %T", recs[0])
		}
		break
	}
}

func TestOperationAsync(t *testing.T) {
	leakcheck.Check(t)
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(context.Background())
	ctx := context.Background()
	pt, ut := opTypes()
	op, err := kit.NewOperation(http.MethodGet, "/users/{id}", pt, ut)
	if err != nil {
		t.Fatal(err)
	}
	fs := []*kit.Future[User]{
		kit.GoOperation[User](ctx, op, ac, &opUserParams{ID: 3}),
		kit.GoOperation[User](ctx, op, ac, &opUserParams{ID: 4}),
	}
	for i, f := range fs {
		u, err := f.Await(ctx)
		if err != nil || u.ID != 3+i {
			t.Errorf("future %d: %+v, %v", i, u, err)
		}
	}
	// The Future's type must be the result type; the sync protocol is refused.
	if _, err := kit.GoOperation[string](ctx, op, ac, &opUserParams{ID: 3}).Await(ctx); err == nil || !strings.Contains(err.Error(), "want kit_test.User") {
		t.Errorf("GoOperation[string]: %v", err)
	}
	if err := op.CallInto(ctx, ac, &opUserParams{ID: 3}, new(User)); !errors.As(err, new(*kit.EngineError)) {
		t.Errorf("CallInto on an async client: %v, want a *kit.EngineError", err)
	}
	paged, err := kit.NewPagedOperation(http.MethodGet, "/teams/{id}/members", reflect.TypeFor[opMemberParams](), ut,
		kit.PagedBy(kit.PageNumber{PageSize: 10}), kit.WithPrefetch(2))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for page, err := range paged.GoPages(ctx, ac, &opMemberParams{ID: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Records.([]User))
	}
	want := 0
	for _, err := range teamMembers.GoIterate(ctx, ac, MemberQuery{ID: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		want++
	}
	if n != want || n == 0 {
		t.Errorf("GoPages: %d records, GoIterate: %d", n, want)
	}
}

// TestLazyOperationOf declares operations from typed nil pointers, as
// generated code does, and checks they call and walk as the operations
// NewOperation and NewPagedOperation declare.
func TestLazyOperationOf(t *testing.T) {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	var getUser kit.LazyOperation
	op := getUser.Of(http.MethodGet, "/users/{id}", (*opUserParams)(nil), (*User)(nil))
	if again := getUser.Of(http.MethodGet, "/users/{id}", (*opUserParams)(nil), (*User)(nil)); again != op {
		t.Fatal("Of declared the operation twice")
	}
	var u User
	if err := op.CallInto(ctx, c, &opUserParams{ID: 3}, &u); err != nil || u.ID != 3 {
		t.Fatalf("CallInto: %+v, %v", u, err)
	}
	if got := op.String(); got != "GET /users/{id}" {
		t.Errorf("String: %q", got)
	}

	// nil params and result: NoParams and *kit.Response.
	var health kit.LazyOperation
	var resp *kit.Response
	if err := health.Of(http.MethodGet, "/users/1", nil, nil).CallInto(ctx, c, nil, &resp); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("nil params and result: %v, %v", resp, err)
	}

	var members kit.LazyOperation
	walk := members.PagedOf(http.MethodGet, "/teams/{id}/members", (*opMemberParams)(nil), (*User)(nil), kit.PageNumber{PageSize: 10})
	n := 0
	for page, err := range walk.Pages(ctx, c, &opMemberParams{ID: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		n += len(page.Records.([]User))
	}
	if n == 0 {
		t.Fatal("PagedOf: the walk yielded no records")
	}
}

// TestLazyOperationOfMistakes: what Of cannot declare, every use of the
// operation reports, and nothing is sent.
func TestLazyOperationOfMistakes(t *testing.T) {
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent.Add(1) }))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		name    string
		op      func(*kit.LazyOperation) *kit.Operation
		wantErr string
	}{
		{"params not a pointer", func(l *kit.LazyOperation) *kit.Operation {
			return l.Of(http.MethodGet, "/users/{id}", opUserParams{}, (*User)(nil))
		}, "params is a kit_test.opUserParams, want a typed nil pointer"},
		{"result not a pointer", func(l *kit.LazyOperation) *kit.Operation {
			return l.Of(http.MethodGet, "/users/{id}", (*opUserParams)(nil), User{})
		}, "result is a kit_test.User"},
		{"bad path", func(l *kit.LazyOperation) *kit.Operation {
			return l.Of(http.MethodGet, "/users/{nope}", (*opUserParams)(nil), (*User)(nil))
		}, "nope"},
		{"paged PUT", func(l *kit.LazyOperation) *kit.Operation {
			return l.PagedOf(http.MethodPut, "/users", nil, (*User)(nil), kit.LinkHeader{})
		}, "GET or POST"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var l kit.LazyOperation
			op := tc.op(&l)
			if tc.op(&l) != op {
				t.Fatal("a failed declaration was not kept")
			}
			err := op.CallInto(ctx, c, &opUserParams{ID: 1}, new(User))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("CallInto: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d requests sent by operations that failed to declare", n)
	}
}
