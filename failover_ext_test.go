package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// deadURL is the URL of a port on 127.0.0.1 that nothing listens on: a
// dial to it is refused.
func deadURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

// seen is what an origin of these tests received.
type foSeen struct {
	mu   sync.Mutex
	reqs []foReq
}

type foReq struct {
	method, path, query, auth, key, body string
}

func (s *foSeen) add(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, foReq{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("Idempotency-Key"), string(b)})
}

func (s *foSeen) all() []foReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]foReq(nil), s.reqs...)
}

// origin starts a server that records what it gets and answers a user
// named name (id 7), a page of /items, or a server-sent event stream.
func origin(t *testing.T, name string) (*httptest.Server, *foSeen) {
	t.Helper()
	s := &foSeen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		switch {
		case strings.HasSuffix(r.URL.Path, "/events"):
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: 1\ndata: {\"id\":1,\"name\":%q}\n\nid: 2\ndata: {\"id\":2,\"name\":%q}\n\n", name, name)
		case strings.HasSuffix(r.URL.Path, "/items"):
			page := r.URL.Query().Get("page")
			w.Header().Set("Content-Type", "application/json")
			switch page {
			case "", "1":
				// An absolute link on this server.
				w.Header().Set("Link", fmt.Sprintf(`<http://%s%s?page=2>; rel="next"`, r.Host, r.URL.Path))
				fmt.Fprintf(w, `[{"id":1,"name":%q},{"id":2,"name":%q}]`, name, name)
			case "2":
				// A relative one: resolved against this server.
				w.Header().Set("Link", `<items?page=3>; rel="next"`)
				fmt.Fprintf(w, `[{"id":3,"name":%q}]`, name)
			default:
				fmt.Fprintf(w, `[{"id":4,"name":%q}]`, name)
			}
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":7,"name":%q}`, name)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, s
}

var (
	foGet    = kit.Get[struct{}, faultUser]("/users/7")
	foPost   = kit.Post[foBody, faultUser]("/users")
	foItems  = kit.Paged[kit.NoParams, faultUser]("/items", kit.WithPaginator(kit.LinkHeader{}))
	foPaged  = kit.Paged[kit.NoParams, faultUser]("/items", kit.WithPaginator(kit.PageNumber{PageSize: 2}), kit.WithMaxPages(3))
	foEvents = kit.Get[kit.NoParams, *kit.Stream[faultUser]]("/events")
)

// foBody is a POST's parameters: a JSON body.
type foBody struct {
	User faultUser `kit:",body"`
}

// failoverClients makes a sync and an async client of base with opts.
func failoverClients(t *testing.T, base string, opts ...kit.Option) (*kit.Client, *kit.AsyncClient) {
	t.Helper()
	c, err := kit.NewClient(base, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ac, err := kit.NewAsyncClient(base, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ac.Close(context.Background()) })
	return c, ac
}

// A refused dial to the base URL sends the call to the next base URL at
// once, with its base path; the observer is told. Sync and async.
func TestFailoverRefusedDial(t *testing.T) {
	dead := deadURL(t)
	b, bSeen := origin(t, "b")
	var mu sync.Mutex
	var moves []kit.FailoverInfo
	c, ac := failoverClients(t, dead+"/v1",
		kit.WithFailover(kit.Failover{URLs: []string{b.URL + "/api/v2/"}}),
		kit.WithObserver(kit.Observer{Failover: func(_ context.Context, f kit.FailoverInfo) {
			mu.Lock()
			moves = append(moves, f)
			mu.Unlock()
		}}))
	ctx := context.Background()
	for name, call := range map[string]func() (faultUser, error){
		"sync":  func() (faultUser, error) { return foGet.Call(ctx, c, struct{}{}) },
		"async": func() (faultUser, error) { return foGet.Go(ctx, ac, struct{}{}).Await(ctx) },
	} {
		t.Run(name, func(t *testing.T) {
			u, err := call()
			if err != nil || u.Name != "b" {
				t.Fatalf("%+v, %v", u, err)
			}
		})
	}
	reqs := bSeen.all()
	if len(reqs) != 2 || reqs[0].path != "/api/v2/users/7" {
		t.Fatalf("b got %+v", reqs)
	}
	if len(moves) != 2 || moves[0].From != dead+"/v1" || moves[0].To != b.URL+"/api/v2/" ||
		!errors.Is(moves[0].Err, syscall.ECONNREFUSED) || moves[0].Request.Endpoint != "GET /users/7" {
		t.Fatalf("moves %+v", moves)
	}
}

// A Response tells which base URL answered.
func TestFailoverResponseURL(t *testing.T) {
	b, _ := origin(t, "b")
	c, _ := failoverClients(t, deadURL(t), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
	r, err := kit.Get[struct{}, kit.Result[faultUser]]("/users/7").Call(context.Background(), c, struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Response.Request.URL.String(); got != b.URL+"/users/7" {
		t.Fatalf("answered by %s", got)
	}
}

// The client's credentials go to a fallback only when bound to it: a
// token for the base URL is not sent to b unless BindCredentials; neither
// is a credential header of WithHeader, nor an APIKeyQuery's parameter.
func TestFailoverCredentials(t *testing.T) {
	for _, bind := range []bool{false, true} {
		for name, opt := range map[string]kit.Option{
			"bearer":     kit.WithAuth(kit.Bearer("tok-a")),
			"header":     kit.WithHeader("Authorization", "Bearer tok-a"),
			"querykey":   kit.WithAuth(kit.APIKeyQuery("key", "tok-a")),
			"tokenauth":  kit.WithAuth(kit.TokenAuth(func(context.Context) (kit.Token, error) { return kit.Token{Value: "tok-a"}, nil })),
			"basic-auth": kit.WithAuth(kit.Basic("u", "tok-a")),
		} {
			t.Run(fmt.Sprintf("%s/bind=%v", name, bind), func(t *testing.T) {
				b, bSeen := origin(t, "b")
				c, ac := failoverClients(t, deadURL(t), opt, kit.WithFailover(kit.Failover{URLs: []string{b.URL}, BindCredentials: bind}))
				ctx := context.Background()
				if _, err := foGet.Call(ctx, c, struct{}{}); err != nil {
					t.Fatal(err)
				}
				if _, err := foGet.Go(ctx, ac, struct{}{}).Await(ctx); err != nil {
					t.Fatal(err)
				}
				for _, r := range bSeen.all() {
					sent := r.auth != "" || strings.Contains(r.query, "tok-a")
					if sent != bind {
						t.Errorf("bind=%v: b got auth %q, query %q", bind, r.auth, r.query)
					}
				}
			})
		}
	}
}

// Bound credentials go to the fallbacks' origins only: a URL given at run
// time on a third origin gets none.
func TestFailoverBoundCredentialsStayOnBoundOrigins(t *testing.T) {
	b, _ := origin(t, "b")
	other, otherSeen := origin(t, "other")
	c, _ := failoverClients(t, deadURL(t), kit.WithAuth(kit.Bearer("tok-a")),
		kit.WithFailover(kit.Failover{URLs: []string{b.URL}, BindCredentials: true}))
	type target struct {
		URL string `kit:",url"`
	}
	if _, err := kit.Get[target, faultUser]("/").Call(context.Background(), c, target{other.URL + "/users/7"}); err != nil {
		t.Fatal(err)
	}
	if r := otherSeen.all(); len(r) != 1 || r[0].auth != "" {
		t.Fatalf("a third origin got %+v", r)
	}
}

// A response is the server's answer, whatever its status: a 503 goes to
// the retry policy, not to the next base URL.
func TestFailoverNotOnResponse(t *testing.T) {
	a := kittest.NewFaultServer(t, nil)
	a.SetFallback(503)
	b, bSeen := origin(t, "b")
	c, ac := failoverClients(t, a.URL(), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
	ctx := context.Background()
	var he *kit.HTTPError
	if _, err := foGet.Call(ctx, c, struct{}{}); !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("sync: %v", err)
	}
	if _, err := foGet.Go(ctx, ac, struct{}{}).Await(ctx); !errors.As(err, &he) || he.StatusCode != 503 {
		t.Fatalf("async: %v", err)
	}
	if n := len(bSeen.all()); n != 0 {
		t.Fatalf("b got %d requests", n)
	}
}

// A response cut short in its body is not a connection failure either.
func TestFailoverNotOnBrokenBody(t *testing.T) {
	a := kittest.NewFaultServer(t, nil)
	a.SetFallback(kittest.FaultReset)
	b, bSeen := origin(t, "b")
	c, _ := failoverClients(t, a.URL(), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
	if _, err := foGet.Call(context.Background(), c, struct{}{}); err == nil {
		t.Fatal("no error")
	}
	if n := len(bSeen.all()); n != 0 {
		t.Fatalf("b got %d requests", n)
	}
}

// A connection reset after the request was sent: a GET, a keyed POST and
// a POST declared Idempotent fail over; a plain POST, which may have
// reached the server, is never sent again. A POST whose dial was refused
// reached nothing: it fails over, its body sent once, whole.
func TestFailoverWrites(t *testing.T) {
	ctx := context.Background()
	body := foBody{faultUser{ID: 1, Name: "Ada"}}
	idem := kit.Post[foBody, faultUser]("/users", kit.Idempotent())
	call := func(e *kit.Endpoint[foBody, faultUser], c *kit.Client, ac *kit.AsyncClient, opts ...kit.CallOption) []error {
		_, err1 := e.Call(ctx, c, body, opts...)
		_, err2 := e.Go(ctx, ac, body, opts...).Await(ctx)
		return []error{err1, err2}
	}
	get := func(c *kit.Client, ac *kit.AsyncClient) []error {
		_, err1 := foGet.Call(ctx, c, struct{}{})
		_, err2 := foGet.Go(ctx, ac, struct{}{}).Await(ctx)
		return []error{err1, err2}
	}
	cases := []struct {
		name  string
		call  func(c *kit.Client, ac *kit.AsyncClient) []error
		moves bool
	}{
		{"get", get, true},
		{"post", func(c *kit.Client, ac *kit.AsyncClient) []error { return call(foPost, c, ac) }, false},
		{"keyed post", func(c *kit.Client, ac *kit.AsyncClient) []error {
			return call(foPost, c, ac, kit.IdempotencyKey("k-1"))
		}, true},
		{"idempotent post", func(c *kit.Client, ac *kit.AsyncClient) []error { return call(idem, c, ac) }, true},
	}
	for _, tc := range cases {
		t.Run("reset/"+tc.name, func(t *testing.T) {
			a := kittest.NewFaultServer(t, nil)
			a.SetFallback(kittest.FaultRefuse) // reads the request, then resets
			b, bSeen := origin(t, "b")
			c, ac := failoverClients(t, a.URL(), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
			for i, err := range tc.call(c, ac) {
				if tc.moves != (err == nil) {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			want := 0
			if tc.moves {
				want = 2
			}
			if a.Requests() != 2 || len(bSeen.all()) != want {
				t.Fatalf("a got %d, b got %d requests", a.Requests(), len(bSeen.all()))
			}
		})
	}
	t.Run("refused/post", func(t *testing.T) {
		b, bSeen := origin(t, "b")
		c, ac := failoverClients(t, deadURL(t), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
		for i, err := range call(foPost, c, ac) {
			if err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
		reqs := bSeen.all()
		if len(reqs) != 2 || reqs[0].body != `{"id":1,"name":"Ada"}` || reqs[1].body != reqs[0].body {
			t.Fatalf("b got %+v", reqs)
		}
	})
}

// Three base URLs: the first two dead, the third answers; the moves are
// told in order.
func TestFailoverInOrder(t *testing.T) {
	d1, d2 := deadURL(t), deadURL(t)
	c3, _ := origin(t, "c")
	var moves []string
	c, err := kit.NewClient(d1, kit.WithFailover(kit.Failover{URLs: []string{d2, c3.URL}}),
		kit.WithObserver(kit.Observer{Failover: func(_ context.Context, f kit.FailoverInfo) {
			if sent := "http://" + f.Request.URL.Host; sent != f.From {
				t.Errorf("the failed attempt went to %s, not %s", sent, f.From)
			}
			moves = append(moves, f.From+">"+f.To)
		}}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if u, err := foGet.Call(context.Background(), c, struct{}{}); err != nil || u.Name != "c" {
		t.Fatalf("%+v, %v", u, err)
	}
	if want := []string{d1 + ">" + d2, d2 + ">" + c3.URL}; fmt.Sprint(moves) != fmt.Sprint(want) {
		t.Fatalf("moves %v, want %v", moves, want)
	}
}

// When every base URL fails, the error names each failure and matches the
// last; the retry policy then retries the whole round.
func TestFailoverAllFail(t *testing.T) {
	d1, d2 := deadURL(t), deadURL(t)
	var retries int
	c, err := kit.NewClient(d1, kit.WithFailover(kit.Failover{URLs: []string{d2}}),
		kit.WithRetry(kit.RetryPolicy{MaxAttempts: 2, BaseDelay: 1, MaxDelay: 1}),
		kit.WithObserver(kit.Observer{Retry: func(context.Context, kit.RetryInfo) { retries++ }}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = foGet.Call(context.Background(), c, struct{}{})
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "no base URL answered") ||
		!strings.Contains(err.Error(), d1) || !strings.Contains(err.Error(), d2) {
		t.Fatalf("%v", err)
	}
	if retries != 1 {
		t.Fatalf("%d retries, want 1", retries)
	}
}

// With a circuit breaker, a base URL whose circuit is open is passed over
// without a request: the healthy one first.
func TestFailoverCircuitOpen(t *testing.T) {
	a := kittest.NewFaultServer(t, nil)
	a.SetFallback(kittest.FaultRefuse)
	b, bSeen := origin(t, "b")
	var errs []error
	c, err := kit.NewClient(a.URL(),
		kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 1}),
		kit.WithFailover(kit.Failover{URLs: []string{b.URL}}),
		kit.WithObserver(kit.Observer{Failover: func(_ context.Context, f kit.FailoverInfo) { errs = append(errs, f.Err) }}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	for range 3 {
		if u, err := foGet.Call(ctx, c, struct{}{}); err != nil || u.Name != "b" {
			t.Fatalf("%+v, %v", u, err)
		}
	}
	if a.Requests() != 1 || len(bSeen.all()) != 3 {
		t.Fatalf("a got %d, b got %d requests", a.Requests(), len(bSeen.all()))
	}
	var open *kit.CircuitOpenError
	if len(errs) != 3 || errors.Is(errs[0], kit.ErrCircuitOpen) || !errors.As(errs[1], &open) || !errors.Is(errs[2], kit.ErrCircuitOpen) {
		t.Fatalf("failover errors %v", errs)
	}
}

// Every circuit open: the call fails with the first *CircuitOpenError,
// nothing sent.
func TestFailoverAllCircuitsOpen(t *testing.T) {
	a, b := kittest.NewFaultServer(t, nil), kittest.NewFaultServer(t, nil)
	a.SetFallback(kittest.FaultRefuse)
	b.SetFallback(kittest.FaultRefuse)
	c, err := kit.NewClient(a.URL(), kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 1}),
		kit.WithFailover(kit.Failover{URLs: []string{b.URL()}}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := foGet.Call(ctx, c, struct{}{}); err == nil || errors.Is(err, kit.ErrCircuitOpen) {
		t.Fatalf("first call: %v", err)
	}
	_, err = foGet.Call(ctx, c, struct{}{})
	var open *kit.CircuitOpenError
	if !errors.As(err, &open) || !strings.Contains(open.Origin, strings.TrimPrefix(a.URL(), "http://")) {
		t.Fatalf("second call: %v", err)
	}
	if a.Requests() != 1 || b.Requests() != 1 {
		t.Fatalf("a got %d, b got %d requests", a.Requests(), b.Requests())
	}
}

// A walk whose first page fails over stays on the base URL that served
// it: an absolute next link on b is followed there, a relative one
// resolves against b. Sync, async, pipelined.
func TestFailoverWalkLinks(t *testing.T) {
	ctx := context.Background()
	for name, walk := range map[string]func(c *kit.Client, ac *kit.AsyncClient) []faultUser{
		"sync": func(c *kit.Client, _ *kit.AsyncClient) []faultUser {
			return foCollect(t, foItems.Iterate(ctx, c, kit.NoParams{}))
		},
		"async": func(_ *kit.Client, ac *kit.AsyncClient) []faultUser {
			return foCollect(t, foItems.GoIterate(ctx, ac, kit.NoParams{}))
		},
	} {
		t.Run(name, func(t *testing.T) {
			b, bSeen := origin(t, "b")
			c, ac := failoverClients(t, deadURL(t), kit.WithAuth(kit.Bearer("tok")),
				kit.WithFailover(kit.Failover{URLs: []string{b.URL}, BindCredentials: true}))
			got := walk(c, ac)
			if len(got) != 4 || got[3].ID != 4 || got[3].Name != "b" {
				t.Fatalf("%+v", got)
			}
			reqs := bSeen.all()
			if len(reqs) != 3 {
				t.Fatalf("b got %+v", reqs)
			}
			for _, r := range reqs {
				if r.path != "/items" || r.auth != "Bearer tok" {
					t.Fatalf("b got %+v", reqs)
				}
			}
		})
	}
}

// A walk by page number whose first page fails over asks b for the next
// pages too, prefetching or not.
func TestFailoverWalkPinned(t *testing.T) {
	ctx := context.Background()
	for _, prefetch := range []int{0, 2} {
		t.Run(fmt.Sprint("prefetch=", prefetch), func(t *testing.T) {
			b, bSeen := origin(t, "b")
			c, ac := failoverClients(t, deadURL(t), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
			got := foCollect(t, foPaged.Iterate(ctx, c, kit.NoParams{}, kit.WithPrefetch(prefetch)))
			got = append(got, foCollect(t, foPaged.GoIterate(ctx, ac, kit.NoParams{}, kit.WithPrefetch(prefetch)))...)
			if len(got) == 0 {
				t.Fatal("no records")
			}
			for _, u := range got {
				if u.Name != "b" {
					t.Fatalf("%+v", got)
				}
			}
			if len(bSeen.all()) < 4 {
				t.Fatalf("b got %+v", bSeen.all())
			}
		})
	}
}

// A walk whose first page the base URL served stays there: when it dies,
// the next page (a link it sent) is not sent to b.
func TestFailoverWalkStaysOnItsOrigin(t *testing.T) {
	api := http.NewServeMux()
	aSrv, _ := origin(t, "a")
	api.Handle("/", aSrv.Config.Handler)
	a := kittest.NewFaultServer(t, api)
	a.DieAfter(1)
	b, bSeen := origin(t, "b")
	c, _ := failoverClients(t, a.URL(), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
	var names []string
	var err error
	for u, e := range foItems.Iterate(context.Background(), c, kit.NoParams{}) {
		if e != nil {
			err = e
			break
		}
		names = append(names, u.Name)
	}
	if fmt.Sprint(names) != "[a a]" || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("%v, %v", names, err)
	}
	if n := len(bSeen.all()); n != 0 {
		t.Fatalf("b got %d requests", n)
	}
}

// A stream fails over like any call. Sync and async.
func TestFailoverStream(t *testing.T) {
	b, _ := origin(t, "b")
	c, ac := failoverClients(t, deadURL(t), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
	ctx := context.Background()
	for name, open := range map[string]func() (*kit.Stream[faultUser], error){
		"sync":  func() (*kit.Stream[faultUser], error) { return foEvents.Call(ctx, c, kit.NoParams{}) },
		"async": func() (*kit.Stream[faultUser], error) { return foEvents.Go(ctx, ac, kit.NoParams{}).Await(ctx) },
	} {
		t.Run(name, func(t *testing.T) {
			s, err := open()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got []string
			for u, err := range s.All() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, u.Name)
			}
			if fmt.Sprint(got) != "[b b]" {
				t.Fatalf("%v", got)
			}
		})
	}
}

// Resource operations fail over. Sync and async.
func TestFailoverResource(t *testing.T) {
	b, bSeen := origin(t, "b")
	c, ac := failoverClients(t, deadURL(t), kit.WithFailover(kit.Failover{URLs: []string{b.URL + "/v2"}}))
	ctx := context.Background()
	if u, err := kit.NewResource[faultUser](c, "/users").Get(ctx, 7); err != nil || u.Name != "b" {
		t.Fatalf("%+v, %v", u, err)
	}
	if u, err := kit.NewAsyncResource[faultUser](ac, "/users").Get(ctx, 7).Await(ctx); err != nil || u.Name != "b" {
		t.Fatalf("%+v, %v", u, err)
	}
	if r := bSeen.all(); len(r) != 2 || r[0].path != "/v2/users/7" {
		t.Fatalf("b got %+v", r)
	}
}

// A URL given at run time and a request an interceptor moved are sent as
// they are.
func TestFailoverOnlyBuiltURLs(t *testing.T) {
	dead := deadURL(t)
	b, bSeen := origin(t, "b")
	c, _ := failoverClients(t, deadURL(t), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
	type target struct {
		URL string `kit:",url"`
	}
	if _, err := kit.Get[target, faultUser]("/").Call(context.Background(), c, target{"/users/7"}); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("a URL value: %v", err)
	}
	moved := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			u := *req.URL
			u.Host = strings.TrimPrefix(dead, "http://")
			req.URL = &u
			return next(ctx, req)
		}
	}
	c2, _ := failoverClients(t, deadURL(t), kit.WithInterceptors(moved), kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
	if _, err := foGet.Call(context.Background(), c2, struct{}{}); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("moved: %v", err)
	}
	if n := len(bSeen.all()); n != 0 {
		t.Fatalf("b got %d requests", n)
	}
}

// Bad settings make NewClient fail.
func TestFailoverOptionErrors(t *testing.T) {
	for name, f := range map[string]kit.Failover{
		"none":      {},
		"scheme":    {URLs: []string{"ftp://x.example"}},
		"no host":   {URLs: []string{"https://"}},
		"query":     {URLs: []string{"https://b.example?key=secret"}},
		"user":      {URLs: []string{"https://u:p@b.example"}},
		"same":      {URLs: []string{"https://API.example.com/v1/"}},
		"not a URL": {URLs: []string{"https://b.example/%zz"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := kit.NewClient("https://api.example.com/v1", kit.WithFailover(f))
			if err == nil || !strings.Contains(err.Error(), "WithFailover") {
				t.Fatalf("%v", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("secret in %v", err)
			}
		})
	}
	if s := fmt.Sprint(kit.WithFailover(kit.Failover{URLs: []string{"https://b.example", "https://u:secret@c.example/?key=secret", "%zz"}, BindCredentials: true})); s != `kit.WithFailover(kit.Failover{URLs: []string{"https://b.example", "https://REDACTED@c.example/?key=REDACTED", "(not a URL)"}, BindCredentials: true})` {
		t.Fatalf("String: %s", s)
	}
}

// foCollect ranges over seq, failing t on an error.
func foCollect(t *testing.T, seq iter.Seq2[faultUser, error]) []faultUser {
	t.Helper()
	var got []faultUser
	for u, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, u)
	}
	return got
}

// A TLS handshake that fails (a certificate the client does not trust)
// sends the call to the next base URL.
func TestFailoverTLSFailure(t *testing.T) {
	untrusted := httptest.NewTLSServer(http.NotFoundHandler())
	defer untrusted.Close()
	b, bSeen := origin(t, "b")
	c, ac := failoverClients(t, untrusted.URL, kit.WithFailover(kit.Failover{URLs: []string{b.URL}}))
	ctx := context.Background()
	if u, err := foGet.Call(ctx, c, struct{}{}); err != nil || u.Name != "b" {
		t.Fatalf("sync: %+v, %v", u, err)
	}
	if u, err := foGet.Go(ctx, ac, struct{}{}).Await(ctx); err != nil || u.Name != "b" {
		t.Fatalf("async: %+v, %v", u, err)
	}
	if n := len(bSeen.all()); n != 2 {
		t.Fatalf("b got %d requests", n)
	}
}
