package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
)

// The tests in this file are not parallel: each checks on its own that no
// goroutine outlives it (leakcheck.Check), and TestMain checks the package.
// None asserts on time: blocking handlers wait on channels the test
// controls.

type asyncUser struct {
	ID   int    `json:"id"`
	Name string `json:"name" validate:"required"`
}

type userID struct{ ID string }

var (
	asyncGetUser     = kit.Get[userID, asyncUser]("/users/{id}")
	asyncGetRaw      = kit.Get[userID, any]("/users/{id}")
	asyncGetResponse = kit.Get[userID, *kit.Response]("/users/{id}")
	asyncCreateUser  = kit.Post[struct{ User asyncUser }, asyncUser]("/users")
	asyncPing        = kit.Get[kit.NoParams, map[string]string]("/ping")
)

// userAPI answers /users/{id} with a user, or with the failure the id names,
// and counts the requests it gets.
type userAPI struct {
	hits atomic.Int64
}

func (a *userAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.hits.Add(1)
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/ping" {
		io.WriteString(w, `{"pong":"yes"}`)
		return
	}
	if r.Method == http.MethodPost && r.URL.Path == "/users" {
		var u asyncUser
		if err := json.NewDecoder(r.Body).Decode(&u); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		u.ID = 100
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(u)
		return
	}
	id := strings.TrimPrefix(r.URL.Path, "/users/")
	switch id {
	case "missing":
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":"no such user"}`)
	case "broken":
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "upstream exploded")
	case "text":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "not json at all")
	case "nameless":
		io.WriteString(w, `{"id":5,"name":""}`)
	case "empty":
		w.WriteHeader(http.StatusNoContent)
	default:
		n, err := strconv.Atoi(id)
		if err != nil {
			http.Error(w, "bad id", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"id":%d,"name":"user-%d"}`, n, n)
	}
}

// sameOutcome fails t unless the two results and errors are the same: equal
// values, or errors with the same text and the same concrete type.
func sameOutcome[R any](t *testing.T, what string, callV R, callErr error, goV R, goErr error) {
	t.Helper()
	if (callErr == nil) != (goErr == nil) {
		t.Fatalf("%s: Call error %v, Go error %v", what, callErr, goErr)
	}
	if callErr != nil {
		if callErr.Error() != goErr.Error() {
			t.Errorf("%s: error text differs:\nCall: %v\nGo:   %v", what, callErr, goErr)
		}
		if reflect.TypeOf(errors.Unwrap(callErr)) != reflect.TypeOf(errors.Unwrap(goErr)) || reflect.TypeOf(callErr) != reflect.TypeOf(goErr) {
			t.Errorf("%s: error types differ: %T vs %T", what, callErr, goErr)
		}
	}
	if !reflect.DeepEqual(callV, goV) {
		t.Errorf("%s: value differs:\nCall: %#v\nGo:   %#v", what, callV, goV)
	}
}

func TestGoYieldsWhatCallWould(t *testing.T) {
	leakcheck.Check(t)
	api := &userAPI{}
	srv, c := setup(t, api)
	ac := newAsyncClient(t, srv.URL)
	ctx := t.Context()

	cases := []struct {
		id      string
		sent    bool
		checkOK func(error) bool
	}{
		{"7", true, func(err error) bool { return err == nil }},
		{"missing", true, func(err error) bool {
			var he *kit.HTTPError
			return errors.As(err, &he) && he.StatusCode == 404 && string(he.Body) == `{"error":"no such user"}`
		}},
		{"broken", true, func(err error) bool {
			var he *kit.HTTPError
			return errors.As(err, &he) && he.StatusCode == 500
		}},
		{"text", true, func(err error) bool {
			var de *kit.DecodeError
			return errors.As(err, &de) && de.ContentType == "text/plain"
		}},
		{"nameless", true, func(err error) bool {
			var ve *kit.ValidationError
			return errors.As(err, &ve) && len(ve.Fields) == 1 && ve.Fields[0].Rule == "required"
		}},
		{"empty", true, func(err error) bool { return err == nil }},
		{"..", false, func(err error) bool { return err != nil && strings.Contains(err.Error(), `".."`) }},
		{"", false, func(err error) bool { return err != nil }},
	}
	for _, tc := range cases {
		before := api.hits.Load()
		v1, err1 := asyncGetUser.Call(ctx, c, userID{tc.id})
		mid := api.hits.Load()
		v2, err2 := asyncGetUser.Go(ctx, ac, userID{tc.id}).Await(ctx)
		after := api.hits.Load()
		if !tc.checkOK(err2) {
			t.Errorf("id %q: Go gave %v (%T)", tc.id, err2, err2)
		}
		sameOutcome(t, "id "+tc.id, v1, err1, v2, err2)
		if sentCall, sentGo := mid > before, after > mid; sentCall != tc.sent || sentGo != tc.sent {
			t.Errorf("id %q: sent by Call %v, by Go %v; want %v", tc.id, sentCall, sentGo, tc.sent)
		}

		r1, e1 := asyncGetRaw.Call(ctx, c, userID{tc.id})
		r2, e2 := asyncGetRaw.Go(ctx, ac, userID{tc.id}).Await(ctx)
		sameOutcome(t, "raw "+tc.id, r1, e1, r2, e2)

		p1, e1 := asyncGetResponse.Call(ctx, c, userID{tc.id})
		p2, e2 := asyncGetResponse.Go(ctx, ac, userID{tc.id}).Await(ctx)
		if p1 != nil && p2 != nil {
			if p1.StatusCode != p2.StatusCode || string(p1.Bytes()) != string(p2.Bytes()) {
				t.Errorf("response %q: Call %d %q, Go %d %q", tc.id, p1.StatusCode, p1.Bytes(), p2.StatusCode, p2.Bytes())
			}
			p1, p2 = nil, nil
		}
		sameOutcome(t, "response "+tc.id, p1, e1, p2, e2)
	}

	// A request body is validated before anything is sent.
	before := api.hits.Load()
	_, err1 := asyncCreateUser.Call(ctx, c, struct{ User asyncUser }{asyncUser{}})
	_, err2 := asyncCreateUser.Go(ctx, ac, struct{ User asyncUser }{asyncUser{}}).Await(ctx)
	var ve *kit.ValidationError
	if !errors.As(err2, &ve) {
		t.Errorf("invalid body: Go gave %v, want a *kit.ValidationError", err2)
	}
	sameOutcome(t, "invalid body", asyncUser{}, err1, asyncUser{}, err2)
	if api.hits.Load() != before {
		t.Errorf("an invalid body was sent")
	}
	v1, err1 := asyncCreateUser.Call(ctx, c, struct{ User asyncUser }{asyncUser{Name: "ann"}})
	v2, err2 := asyncCreateUser.Go(ctx, ac, struct{ User asyncUser }{asyncUser{Name: "ann"}}).Await(ctx)
	sameOutcome(t, "create", v1, err1, v2, err2)
	if v2 != (asyncUser{ID: 100, Name: "ann"}) {
		t.Errorf("create: got %+v", v2)
	}
}

// rotatingAuth sends its current token and, on Refresh, switches to
// "fresh".
type rotatingAuth struct {
	mu        sync.Mutex
	token     string
	refreshes int
}

func (a *rotatingAuth) Authenticate(req *http.Request) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	req.Header.Set("Authorization", "Bearer "+a.token)
	return nil
}

func (a *rotatingAuth) Refresh(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.token = "fresh"
	a.refreshes++
	return nil
}

func (a *rotatingAuth) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.refreshes
}

func TestGoRefreshesOn401(t *testing.T) {
	leakcheck.Check(t)
	var hits atomic.Int64
	accept := "Bearer fresh"
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("Authorization") != accept {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":"expired"}`)
			return
		}
		io.WriteString(w, `{"pong":"yes"}`)
	})
	auth := &rotatingAuth{token: "stale"}
	_, ac := setupAsync(t, h, kit.WithAuth(auth))
	ctx := t.Context()

	got, err := asyncPing.Go(ctx, ac, kit.NoParams{}).Await(ctx)
	if err != nil || got["pong"] != "yes" {
		t.Fatalf("Go after a 401: %v, %v", got, err)
	}
	if n := auth.count(); n != 1 {
		t.Errorf("refreshed %d times, want 1", n)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("server saw %d requests, want 2 (the 401 and the retry)", n)
	}

	// A second 401 after the refresh is an *HTTPError, after one retry.
	accept = "never"
	hits.Store(0)
	_, err = asyncPing.Go(ctx, ac, kit.NoParams{}).Await(ctx)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("second 401: got %v, want a 401 *kit.HTTPError", err)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestEngineProtocolErrors(t *testing.T) {
	leakcheck.Check(t)
	api := &userAPI{}
	srv, c := setup(t, api)
	ac := newAsyncClient(t, srv.URL)
	ctx := t.Context()

	check := func(what string, err error, lacks string) {
		t.Helper()
		var ee *kit.EngineError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: got %v (%T), want *kit.EngineError", what, err, err)
		}
		if !errors.Is(err, kit.ErrEngineProtocol) {
			t.Errorf("%s: %v does not match ErrEngineProtocol", what, err)
		}
		if ee.Lacks != lacks || ee.Endpoint != "GET /users/{id}" {
			t.Errorf("%s: Lacks %q Endpoint %q, want %q and GET /users/{id}", what, ee.Lacks, ee.Endpoint, lacks)
		}
		if !strings.Contains(err.Error(), lacks) || !strings.Contains(err.Error(), "GET /users/{id}") {
			t.Errorf("%s: message %q does not name %s and the endpoint", what, err, lacks)
		}
	}

	// Call through an AsyncClient: its default engine lacks kit.Engine.
	_, err := asyncGetUser.Call(ctx, ac, userID{"1"})
	check("Call via AsyncClient", err, "kit.Engine")

	// Go through a Client: its default engine lacks kit.AsyncEngine. The
	// Future is done at once.
	f := asyncGetUser.Go(ctx, c, userID{"1"})
	select {
	case <-f.Done():
	default:
		t.Fatal("Go through a sync client returned a Future that is not done")
	}
	_, err = f.Await(ctx)
	check("Go via Client", err, "kit.AsyncEngine")

	if n := api.hits.Load(); n != 0 {
		t.Errorf("server saw %d requests, want none", n)
	}

	// A nil binding.
	_, err = asyncGetUser.Go(ctx, nil, userID{"1"}).Await(ctx)
	if !errors.Is(err, kit.ErrNilBinding) {
		t.Errorf("nil binding: got %v", err)
	}
	var nilClient *kit.AsyncClient
	_, err = asyncGetUser.Go(ctx, nilClient, userID{"1"}).Await(ctx)
	if !errors.Is(err, kit.ErrNilBinding) {
		t.Errorf("nil *AsyncClient: got %v", err)
	}
}

func TestNewAsyncClientErrors(t *testing.T) {
	leakcheck.Check(t)
	for _, tc := range []struct {
		url  string
		opts []kit.Option
		want string
	}{
		{"ftp://h", nil, "not http or https"},
		{"/relative", nil, "no scheme"},
		{"http://h", []kit.Option{kit.WithMaxInFlight(0)}, "WithMaxInFlight(0): must be positive"},
		{"http://h", []kit.Option{kit.WithMaxInFlight(-3)}, "WithMaxInFlight(-3): must be positive"},
		{"http://h", []kit.Option{kit.WithEngine(nil)}, "WithEngine(nil)"},
		{"http://h", []kit.Option{kit.WithHTTPClient(nil)}, "WithHTTPClient(nil)"},
	} {
		ac, err := kit.NewAsyncClient(tc.url, tc.opts...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "kit: NewAsyncClient: ") {
			t.Errorf("NewAsyncClient(%q, %v): got %v, want an error with %q", tc.url, tc.opts, err, tc.want)
		}
		if ac != nil {
			t.Errorf("NewAsyncClient(%q): non-nil client with an error", tc.url)
		}
	}
	if s := fmt.Sprint(kit.WithMaxInFlight(8)); s != "kit.WithMaxInFlight(8)" {
		t.Errorf("WithMaxInFlight prints as %q", s)
	}

	ac, err := kit.NewAsyncClient("https://api.example.com/v1/", kit.WithMaxInFlight(1))
	if err != nil {
		t.Fatal(err)
	}
	u := ac.BaseURL()
	if u.String() != "https://api.example.com/v1/" {
		t.Errorf("BaseURL: %v", u)
	}
	u.Host = "evil.example.com"
	if ac.BaseURL().Host != "api.example.com" {
		t.Error("BaseURL returned the client's own URL, not a copy")
	}
	if err := ac.Close(t.Context()); err != nil {
		t.Errorf("Close of an unused client: %v", err)
	}
}

func TestCloseRejectsNewCalls(t *testing.T) {
	leakcheck.Check(t)
	api := &userAPI{}
	_, ac := setupAsync(t, api)
	ctx := t.Context()

	if _, err := asyncGetUser.Go(ctx, ac, userID{"1"}).Await(ctx); err != nil {
		t.Fatalf("before Close: %v", err)
	}
	if err := ac.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := ac.Close(ctx); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	hits := api.hits.Load()
	f := asyncGetUser.Go(ctx, ac, userID{"1"})
	select {
	case <-f.Done():
	default:
		t.Fatal("Go after Close returned a Future that is not done")
	}
	_, err := f.Await(ctx)
	if !errors.Is(err, kit.ErrClosed) {
		t.Fatalf("Go after Close: got %v, want ErrClosed", err)
	}
	if !strings.Contains(err.Error(), "GET /users/{id}") {
		t.Errorf("error %q does not name the endpoint", err)
	}
	// Closed is reported before parameter errors: nothing is worked out.
	if _, err := asyncGetUser.Go(ctx, ac, userID{".."}).Await(ctx); !errors.Is(err, kit.ErrClosed) {
		t.Errorf("bad params after Close: got %v, want ErrClosed", err)
	}
	if n := api.hits.Load(); n != hits {
		t.Errorf("%d requests sent after Close", n-hits)
	}
}

// gate is a handler that blocks each request until the test lets it go,
// and counts how many run at once.
type gate struct {
	entered chan string   // receives each request's path as it starts
	release chan struct{} // one value lets one request finish
	cur     atomic.Int64
	peak    atomic.Int64
	total   atomic.Int64
}

func newGate() *gate {
	return &gate{entered: make(chan string, 1000), release: make(chan struct{})}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := g.cur.Add(1)
	defer g.cur.Add(-1)
	g.total.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	g.entered <- r.URL.Path
	select {
	case <-g.release:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":1,"name":%q}`, r.URL.Path)
	case <-r.Context().Done():
	}
}

func TestCloseWaitsForInFlight(t *testing.T) {
	leakcheck.Check(t)
	g := newGate()
	_, ac := setupAsync(t, g)
	ctx := t.Context()

	const n = 3
	futures := make([]*kit.Future[asyncUser], n)
	for i := range futures {
		futures[i] = asyncGetUser.Go(ctx, ac, userID{strconv.Itoa(i)})
	}
	for range n {
		<-g.entered
	}
	closed := make(chan error, 1)
	go func() { closed <- ac.Close(ctx) }()

	for i := range n {
		select {
		case err := <-closed:
			t.Fatalf("Close returned (%v) with %d calls still in flight", err, n-i)
		default:
		}
		// Each release lets one handler (any of them) finish: no more
		// calls than released may be done.
		done := 0
		for _, f := range futures {
			select {
			case <-f.Done():
				done++
			default:
			}
		}
		if done > i {
			t.Fatalf("%d calls finished with only %d handlers released", done, i)
		}
		g.release <- struct{}{}
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Close returned: every call it waited for is complete, with its result.
	for i, f := range futures {
		select {
		case <-f.Done():
		default:
			t.Fatalf("call %d not done when Close returned", i)
		}
		u, err := f.Await(ctx)
		if err != nil || u.Name != "/users/"+strconv.Itoa(i) {
			t.Errorf("call %d: %+v, %v", i, u, err)
		}
	}
	if _, err := asyncGetUser.Go(ctx, ac, userID{"9"}).Await(ctx); !errors.Is(err, kit.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

func TestCloseWithEndingContextCancelsInFlight(t *testing.T) {
	leakcheck.Check(t)
	g := newGate()
	_, ac := setupAsync(t, g, kit.WithMaxInFlight(2))
	ctx := t.Context()

	// Two calls reach the server, a third waits for a slot.
	futures := []*kit.Future[asyncUser]{
		asyncGetUser.Go(ctx, ac, userID{"1"}),
		asyncGetUser.Go(ctx, ac, userID{"2"}),
		asyncGetUser.Go(ctx, ac, userID{"3"}),
	}
	<-g.entered
	<-g.entered

	closeCtx, cancel := context.WithCancel(ctx)
	cancel() // Close gives up waiting at once
	err := ac.Close(closeCtx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Close with an ended context: got %v, want context.Canceled", err)
	}
	for i, f := range futures {
		select {
		case <-f.Done():
		default:
			t.Fatalf("call %d not done when Close returned", i)
		}
		_, err := f.Await(ctx)
		if !errors.Is(err, context.Canceled) || !errors.Is(err, kit.ErrClosed) {
			t.Errorf("call %d: got %v, want an error matching context.Canceled and ErrClosed", i, err)
		}
	}
	// The third call may or may not have taken a slot freed by a
	// cancelled one before its own cancellation reached it; either way it
	// failed above.
	if n := g.total.Load(); n < 2 || n > 3 {
		t.Errorf("server saw %d requests, want 2 or 3", n)
	}
	if err := ac.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestCloseWithDeadline(t *testing.T) {
	leakcheck.Check(t)
	g := newGate()
	_, ac := setupAsync(t, g)
	ctx := t.Context()
	f := asyncGetUser.Go(ctx, ac, userID{"1"})
	<-g.entered
	// A deadline in the past: Close cancels what is in flight and reports
	// the deadline.
	dctx, cancel := context.WithDeadline(ctx, time.Unix(0, 0))
	defer cancel()
	if err := ac.Close(dctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: got %v, want context.DeadlineExceeded", err)
	}
	if _, err := f.Await(ctx); !errors.Is(err, kit.ErrClosed) || !errors.Is(err, context.Canceled) {
		t.Errorf("in-flight call: got %v", err)
	}
}

func TestMaxInFlightObservedByServer(t *testing.T) {
	leakcheck.Check(t)
	const limit, calls = 3, 20
	g := newGate()
	_, ac := setupAsync(t, g, kit.WithMaxInFlight(limit))
	ctx := t.Context()

	futures := make([]*kit.Future[asyncUser], calls)
	for i := range futures {
		futures[i] = asyncGetUser.Go(ctx, ac, userID{strconv.Itoa(i)})
	}
	// The first `limit` requests reach the server and wait there.
	for range limit {
		<-g.entered
	}
	if cur := g.cur.Load(); cur != limit {
		t.Errorf("%d handlers running, want %d", cur, limit)
	}
	// Let them finish one by one; each lets one more in.
	for range calls {
		g.release <- struct{}{}
	}
	for i, f := range futures {
		u, err := f.Await(ctx)
		if err != nil || u.Name != "/users/"+strconv.Itoa(i) {
			t.Errorf("call %d: %+v, %v", i, u, err)
		}
	}
	if p := g.peak.Load(); p != limit {
		t.Errorf("server saw up to %d requests at once, want exactly %d", p, limit)
	}
	if n := g.total.Load(); n != calls {
		t.Errorf("server saw %d requests, want %d", n, calls)
	}
}

func TestContextEndsWhileWaitingForSlot(t *testing.T) {
	leakcheck.Check(t)
	g := newGate()
	_, ac := setupAsync(t, g, kit.WithMaxInFlight(1))
	ctx := t.Context()

	first := asyncGetUser.Go(ctx, ac, userID{"1"})
	<-g.entered

	waitCtx, cancel := context.WithCancel(ctx)
	second := asyncGetUser.Go(waitCtx, ac, userID{"2"})
	// A cancelled Await does not cancel the call.
	awaitCtx, cancelAwait := context.WithCancel(ctx)
	cancelAwait()
	if _, err := second.Await(awaitCtx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Await with a cancelled context: %v", err)
	}
	cancel()
	_, err := second.Await(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("call cancelled while waiting for a slot: got %v, want context.Canceled", err)
	}
	if errors.Is(err, kit.ErrClosed) {
		t.Errorf("caller's cancellation reported as ErrClosed: %v", err)
	}
	if !strings.Contains(err.Error(), "GET "+ac.BaseURL().String()+"/users/2") {
		t.Errorf("error %q does not say what was attempted", err)
	}

	g.release <- struct{}{}
	if _, err := first.Await(ctx); err != nil {
		t.Fatalf("first call: %v", err)
	}
	// The slot is free again and the cancelled call was never sent.
	third := asyncGetUser.Go(ctx, ac, userID{"3"})
	if p := <-g.entered; p != "/users/3" {
		t.Errorf("next request to reach the server: %s, want /users/3", p)
	}
	g.release <- struct{}{}
	if _, err := third.Await(ctx); err != nil {
		t.Fatalf("third call: %v", err)
	}
	if n := g.total.Load(); n != 2 {
		t.Errorf("server saw %d requests, want 2", n)
	}
}

func TestCallerCancelsInFlightCall(t *testing.T) {
	leakcheck.Check(t)
	g := newGate()
	_, ac := setupAsync(t, g)
	ctx, cancel := context.WithCancel(t.Context())
	f := asyncGetUser.Go(ctx, ac, userID{"1"})
	<-g.entered
	cancel()
	_, err := f.Await(t.Context())
	if !errors.Is(err, context.Canceled) || errors.Is(err, kit.ErrClosed) {
		t.Fatalf("got %v, want context.Canceled only", err)
	}
}

func Test200ConcurrentGoCalls(t *testing.T) {
	leakcheck.Check(t)
	api := &userAPI{}
	_, ac := setupAsync(t, api)
	ctx := t.Context()

	const n = 200
	futures := make([]*kit.Future[asyncUser], n)
	for i := range futures {
		futures[i] = asyncGetUser.Go(ctx, ac, userID{strconv.Itoa(i)})
	}
	// Every future awaited from two goroutines at once.
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i, f := range futures {
		for range 2 {
			wg.Go(func() {
				u, err := f.Await(ctx)
				if err != nil {
					errs <- fmt.Errorf("call %d: %w", i, err)
				} else if u != (asyncUser{ID: i, Name: "user-" + strconv.Itoa(i)}) {
					errs <- fmt.Errorf("call %d: got %+v", i, u)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := api.hits.Load(); got != n {
		t.Errorf("server saw %d requests, want %d", got, n)
	}
}

func TestGoReadsParamsBeforeReturning(t *testing.T) {
	leakcheck.Check(t)
	g := newGate()
	_, ac := setupAsync(t, g)
	ctx := t.Context()
	p := userID{"first"}
	f := asyncGetUser.Go(ctx, ac, p)
	p.ID = "second"
	if got := <-g.entered; got != "/users/first" {
		t.Errorf("sent %s, want /users/first", got)
	}
	g.release <- struct{}{}
	if _, err := f.Await(ctx); err != nil {
		t.Fatal(err)
	}
}

// countingTransport counts the requests sent through it.
type countingTransport struct {
	n    atomic.Int64
	base http.RoundTripper
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.base.RoundTrip(r)
}

func TestAsyncWithHTTPClient(t *testing.T) {
	leakcheck.Check(t)
	tr := &countingTransport{base: &http.Transport{}}
	hc := &http.Client{Transport: tr}
	api := &userAPI{}
	_, ac := setupAsync(t, api, kit.WithHTTPClient(hc))
	ctx := t.Context()
	u, err := asyncGetUser.Go(ctx, ac, userID{"4"}).Await(ctx)
	if err != nil || u.ID != 4 {
		t.Fatalf("%+v, %v", u, err)
	}
	if tr.n.Load() != 1 {
		t.Errorf("the given http.Client sent %d requests, want 1", tr.n.Load())
	}
	// The async client still lacks kit.Engine: the *http.Client is what
	// its async engine sends through, not its engine.
	if _, err := asyncGetUser.Call(ctx, ac, userID{"4"}); !errors.Is(err, kit.ErrEngineProtocol) {
		t.Errorf("Call: got %v, want ErrEngineProtocol", err)
	}
}

// handlerEngine is a custom AsyncEngine (and, with sync set, an Engine)
// that serves requests in-process with a handler, building its futures with
// kit.NewFuture as custom engines do.
type handlerEngine struct {
	h      http.Handler
	mu     sync.Mutex
	closed bool
	closes int
	sent   int
}

func (e *handlerEngine) serve(req *http.Request) (*http.Response, error) {
	e.mu.Lock()
	closed := e.closed
	if !closed {
		e.sent++
	}
	e.mu.Unlock()
	if closed {
		return nil, kit.ErrClosed
	}
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	return rec.Result(), nil
}

func (e *handlerEngine) Go(req *http.Request) *kit.Future[*http.Response] {
	return kit.NewFuture(func() (*http.Response, error) { return e.serve(req) })
}

func (e *handlerEngine) Close(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	e.closes++
	return nil
}

func (e *handlerEngine) counts() (sent, closes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sent, e.closes
}

// dualEngine implements both protocols.
type dualEngine struct{ *handlerEngine }

func (e dualEngine) Do(req *http.Request) (*http.Response, error) { return e.serve(req) }

func TestCustomEngines(t *testing.T) {
	leakcheck.Check(t)
	ctx := t.Context()
	want := asyncUser{ID: 3, Name: "user-3"}

	t.Run("async engine on an AsyncClient", func(t *testing.T) {
		eng := &handlerEngine{h: &userAPI{}}
		ac, err := kit.NewAsyncClient("http://api.test", kit.WithEngine(eng), kit.WithMaxInFlight(1))
		if err != nil {
			t.Fatal(err)
		}
		if u, err := asyncGetUser.Go(ctx, ac, userID{"3"}).Await(ctx); err != nil || u != want {
			t.Fatalf("Go: %+v, %v", u, err)
		}
		if _, err := asyncGetUser.Call(ctx, ac, userID{"3"}); !errors.Is(err, kit.ErrEngineProtocol) {
			t.Errorf("Call: got %v, want ErrEngineProtocol", err)
		}
		if err := ac.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if err := ac.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if sent, closes := eng.counts(); sent != 1 || closes != 1 {
			t.Errorf("engine sent %d, closed %d times; want 1 and 1", sent, closes)
		}
	})

	t.Run("async engine on a Client", func(t *testing.T) {
		eng := &handlerEngine{h: &userAPI{}}
		c, err := kit.NewClient("http://api.test", kit.WithEngine(eng))
		if err != nil {
			t.Fatal(err)
		}
		if u, err := asyncGetUser.Go(ctx, c, userID{"3"}).Await(ctx); err != nil || u != want {
			t.Fatalf("Go: %+v, %v", u, err)
		}
		var ee *kit.EngineError
		if _, err := asyncGetUser.Call(ctx, c, userID{"3"}); !errors.As(err, &ee) || ee.Lacks != "kit.Engine" {
			t.Errorf("Call: got %v", err)
		}
	})

	t.Run("sync engine on an AsyncClient", func(t *testing.T) {
		eng := &handlerEngine{h: &userAPI{}}
		ac, err := kit.NewAsyncClient("http://api.test", kit.WithEngine(dualEngine{eng}.syncOnly()))
		if err != nil {
			t.Fatal(err)
		}
		if u, err := asyncGetUser.Call(ctx, ac, userID{"3"}); err != nil || u != want {
			t.Fatalf("Call: %+v, %v", u, err)
		}
		var ee *kit.EngineError
		if _, err := asyncGetUser.Go(ctx, ac, userID{"3"}).Await(ctx); !errors.As(err, &ee) || ee.Lacks != "kit.AsyncEngine" {
			t.Errorf("Go: got %v", err)
		}
		if err := ac.Close(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("engine with both protocols", func(t *testing.T) {
		for _, name := range []string{"Client", "AsyncClient"} {
			eng := dualEngine{&handlerEngine{h: &userAPI{}}}
			var b kit.Binding
			var closeFn func() error
			if name == "Client" {
				c, err := kit.NewClient("http://api.test", kit.WithEngine(eng))
				if err != nil {
					t.Fatal(err)
				}
				b, closeFn = c, c.Close
			} else {
				ac, err := kit.NewAsyncClient("http://api.test", kit.WithEngine(eng))
				if err != nil {
					t.Fatal(err)
				}
				b, closeFn = ac, func() error { return ac.Close(ctx) }
			}
			if u, err := asyncGetUser.Call(ctx, b, userID{"3"}); err != nil || u != want {
				t.Errorf("%s: Call: %+v, %v", name, u, err)
			}
			if u, err := asyncGetUser.Go(ctx, b, userID{"3"}).Await(ctx); err != nil || u != want {
				t.Errorf("%s: Go: %+v, %v", name, u, err)
			}
			if err := closeFn(); err != nil {
				t.Errorf("%s: close: %v", name, err)
			}
		}
	})
}

// syncOnly returns the engine as an Engine without the async methods.
func (e dualEngine) syncOnly() kit.Engine { return syncEngine{e} }

type syncEngine struct{ e dualEngine }

func (s syncEngine) Do(req *http.Request) (*http.Response, error) { return s.e.Do(req) }

func TestConcurrentCloseAndGo(t *testing.T) {
	leakcheck.Check(t)
	api := &userAPI{}
	_, ac := setupAsync(t, api, kit.WithMaxInFlight(4))
	ctx := t.Context()

	const n = 50
	var wg sync.WaitGroup
	results := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := asyncGetUser.Go(ctx, ac, userID{strconv.Itoa(i)}).Await(ctx)
			results <- err
		})
	}
	closeErrs := make(chan error, 2)
	for range 2 {
		wg.Go(func() { closeErrs <- ac.Close(ctx) })
	}
	wg.Wait()
	close(results)
	close(closeErrs)
	for err := range closeErrs {
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	var ok, closed int
	for err := range results {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, kit.ErrClosed):
			closed++
		default:
			t.Errorf("call: %v", err)
		}
	}
	if ok+closed != n || int64(ok) != api.hits.Load() {
		t.Errorf("%d succeeded, %d refused as closed, server saw %d", ok, closed, api.hits.Load())
	}
}

// Close waits for calls in flight itself, not only through the engine: an
// engine whose Close returns at once does not make Close return early. The
// call below can only end when Close cancels it, so Close must report its
// context's error.
func TestCloseWaitsWhateverTheEngine(t *testing.T) {
	leakcheck.Check(t)
	g := newGate()
	eng := &handlerEngine{h: g}
	ac, err := kit.NewAsyncClient("http://api.test", kit.WithEngine(eng))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	f := asyncGetUser.Go(ctx, ac, userID{"1"})
	<-g.entered
	closeCtx, cancel := context.WithCancel(ctx)
	closed := make(chan error, 1)
	go func() { closed <- ac.Close(closeCtx) }()
	cancel()
	if err := <-closed; !errors.Is(err, context.Canceled) {
		t.Fatalf("Close: got %v, want context.Canceled", err)
	}
	select {
	case <-f.Done():
	default:
		t.Fatal("call not done when Close returned")
	}
	if _, err := f.Await(ctx); !errors.Is(err, kit.ErrClosed) || !errors.Is(err, context.Canceled) {
		t.Errorf("call: %v", err)
	}
	if _, closes := eng.counts(); closes != 1 {
		t.Errorf("engine closed %d times, want 1", closes)
	}
}

// setupAsync is setup's async twin: h on a loopback server, and a
// *kit.AsyncClient for it. When the test ends the client is closed (an
// error from Close fails the test), then the server.
func setupAsync(t testing.TB, h http.Handler, opts ...kit.Option) (*httptest.Server, *kit.AsyncClient) {
	t.Helper()
	srv := serve(t, h)
	return srv, newAsyncClient(t, srv.URL, opts...)
}

// newAsyncClient is newClient's async twin. It is closed when the test
// ends, and an error from Close fails the test.
func newAsyncClient(t testing.TB, base string, opts ...kit.Option) *kit.AsyncClient {
	t.Helper()
	ac, err := kit.NewAsyncClient(base, opts...)
	if err != nil {
		t.Fatalf("NewAsyncClient(%q): %v", base, err)
	}
	t.Cleanup(func() {
		if err := ac.Close(context.Background()); err != nil {
			t.Errorf("Close at cleanup: %v", err)
		}
	})
	return ac
}

func hxAsyncClient(t *testing.T, url string, opts ...kit.Option) *kit.AsyncClient {
	t.Helper()
	ac, err := kit.NewAsyncClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ac.Close(ctx)
	})
	return ac
}

// hxKitGoroutines returns the goroutines that package kit started
// ("created by github.com/kithttp/kit.…"), by goroutine header line.
func hxKitGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		_, creator, ok := strings.Cut(g, "\ncreated by ")
		if ok && strings.HasPrefix(creator, "github.com/kithttp/kit.") {
			id, _, _ := strings.Cut(g, " [") // "goroutine 7"
			out[id] = g
		}
	}
	return out
}

// hxKitGoroutinesLeft waits up to 2 s for the goroutines kit started since
// before (a snapshot of hxKitGoroutines) to end, and returns the stacks of
// those still running.
func hxKitGoroutinesLeft(before map[string]string) []string {
	deadline := time.Now().Add(2 * time.Second)
	for {
		var left []string
		for id, g := range hxKitGoroutines() {
			if _, old := before[id]; !old {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ---------------------------------------------------------------------------
// Defect 1: a panic in user code on one of kit's goroutines kills the
// process. Every subtest but TokenFetch_stack crashes the binary on the
// unfixed code; TokenFetch_stack fails cleanly (the fetch panic is
// recovered, but its error has no stack).

// hxPanicModel is a response model whose Validate method panics.
type hxPanicModel struct {
	ID int `json:"id"`
}

func (hxPanicModel) Validate() error { panic("hx validate boom") }

// hxPanicDecode is a response model whose UnmarshalJSON panics.
type hxPanicDecode struct{ ID int }

func (*hxPanicDecode) UnmarshalJSON([]byte) error { panic("hx decode boom") }

// hxPanicPaginator returns the first page and panics when asked for the
// next one.
type hxPanicPaginator struct{}

func (hxPanicPaginator) FirstPage(params url.Values) kit.PageRequest {
	return kit.PageRequest{Params: params}
}
func (hxPanicPaginator) NextPage(*kit.Response, kit.PageRequest) (*kit.PageRequest, error) {
	panic("hx paginator boom")
}

// hxPanicAuth panics in Authenticate.
type hxPanicAuth struct{}

func (hxPanicAuth) Authenticate(*http.Request) error { panic("hx auth boom") }

// hxPanicTransport panics in RoundTrip.
type hxPanicTransport struct{}

func (hxPanicTransport) RoundTrip(*http.Request) (*http.Response, error) {
	panic("hx transport boom")
}

// hxWantPanicError requires err to report the panic (its value) and to
// carry the stack (the frame of this test file that panicked), in
// err.Error() or in its %+v form.
func hxWantPanicError(t *testing.T, err error, value string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error; want one reporting the panic %q", value)
	}
	if !strings.Contains(err.Error(), "panic") || !strings.Contains(err.Error(), value) {
		t.Errorf("error %q does not report the panic %q", err, value)
	}
	if full := fmt.Sprintf("%+v", err); !strings.Contains(full, "async_ext_test.go") {
		t.Errorf("error carries no stack (no frame of async_ext_test.go in its %%+v form): %s", full)
	}
}

func TestHostilePanicOnKitGoroutine(t *testing.T) { // defect 1
	recSrv := func(t *testing.T) *httptest.Server {
		return hxServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if strings.HasPrefix(r.URL.Path, "/recs") {
				io.WriteString(w, `[{"id":1},{"id":2}]`)
				return
			}
			io.WriteString(w, `{"id":1}`)
		})
	}
	t.Run("Go_Validate", func(t *testing.T) {
		srv := recSrv(t)
		ac := hxAsyncClient(t, srv.URL)
		ep := kit.Get[kit.NoParams, hxPanicModel]("/rec")
		_, err := ep.Go(hxCtx(t), ac, kit.NoParams{}).Await(hxCtx(t))
		hxWantPanicError(t, err, "hx validate boom")
	})
	t.Run("Prefetch_NextPage", func(t *testing.T) {
		srv := recSrv(t)
		ac := hxAsyncClient(t, srv.URL)
		r := kit.NewAsyncResource[hxRec](ac, "/recs", kit.WithPaginator(hxPanicPaginator{}), kit.WithPrefetch(2))
		var last error
		for _, err := range r.All(hxCtx(t)) {
			if err != nil {
				last = err
			}
		}
		hxWantPanicError(t, last, "hx paginator boom")
	})
	t.Run("AsyncResource_Get_UnmarshalJSON", func(t *testing.T) {
		srv := recSrv(t)
		ac := hxAsyncClient(t, srv.URL)
		r := kit.NewAsyncResource[hxPanicDecode](ac, "/things")
		_, err := r.Get(hxCtx(t), 1).Await(hxCtx(t))
		hxWantPanicError(t, err, "hx decode boom")
	})
	t.Run("Go_Authenticate", func(t *testing.T) {
		srv := recSrv(t)
		ac := hxAsyncClient(t, srv.URL, kit.WithAuth(hxPanicAuth{}))
		_, err := hxGetRec.Go(hxCtx(t), ac, kit.NoParams{}).Await(hxCtx(t))
		hxWantPanicError(t, err, "hx auth boom")
	})
	t.Run("Engine_RoundTripper", func(t *testing.T) {
		srv := recSrv(t)
		ac := hxAsyncClient(t, srv.URL, kit.WithHTTPClient(&http.Client{Transport: hxPanicTransport{}}))
		_, err := hxGetRec.Go(hxCtx(t), ac, kit.NoParams{}).Await(hxCtx(t))
		hxWantPanicError(t, err, "hx transport boom")
	})
	t.Run("TokenFetch_stack", func(t *testing.T) {
		// Recovered today, but the error has lost the stack.
		srv := recSrv(t)
		auth := kit.TokenAuth(func(context.Context) (kit.Token, error) { panic("hx fetch boom") })
		c := hxClient(t, srv.URL, kit.WithAuth(auth))
		_, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
		hxWantPanicError(t, err, "hx fetch boom")
	})
}

// ---------------------------------------------------------------------------
// Defect 7: Close lets queued calls reach the server after reporting them
// cancelled. Four requests hold the four slots (WithMaxInFlight(4)), 196
// more wait for one, and Close gives up after 50 ms: a call that Close
// reports cancelled (ErrClosed) must not reach the server unless it was
// already there (the four in flight). A call may still finish normally in
// the race; it is then not reported cancelled, which is fine. The race is
// run up to 25 rounds (about 60 ms each); one violation fails the test.

func TestHostileCloseSendsQueued(t *testing.T) { // defect 7
	for round := 1; round <= 25; round++ {
		if bad := hxCloseRound(t); bad != "" {
			t.Fatalf("round %d: %s", round, bad)
		}
	}
}

// hxCloseRound runs one round of TestHostileCloseSendsQueued and describes
// what went wrong ("" when nothing did).
func hxCloseRound(t *testing.T) string {
	const slots, calls = 4, 200
	type hxOrder struct {
		N int `kit:"n"`
	}
	var (
		mu       sync.Mutex
		count    int
		arrived  = map[int]bool{}
		inFlight = map[int]bool{} // arrived before Close was called
	)
	held := make(chan struct{}, slots)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("n"))
		if err != nil {
			n = -1
		}
		mu.Lock()
		arrived[n] = true
		count++
		first := count <= slots
		mu.Unlock()
		if first {
			select {
			case held <- struct{}{}:
			default:
			}
			select { // hold the slot until the client gives up on the request
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	var stopOnce sync.Once
	stop := func() {
		stopOnce.Do(func() {
			close(release)
			srv.Close() // waits for the handlers
		})
	}
	defer stop()
	ac, err := kit.NewAsyncClient(srv.URL, kit.WithMaxInFlight(slots))
	if err != nil {
		t.Fatal(err)
	}
	ep := kit.Post[hxOrder, *kit.Response]("/orders")
	futures := make([]*kit.Future[*kit.Response], calls)
	for i := range futures {
		futures[i] = ep.Go(context.Background(), ac, hxOrder{i})
	}
	for range slots {
		select {
		case <-held:
		case <-time.After(5 * time.Second):
			t.Fatal("the first requests never reached the server")
		}
	}
	mu.Lock()
	for n := range arrived {
		inFlight[n] = true
	}
	mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_ = ac.Close(ctx)
	cancelled := map[int]bool{}
	for i, f := range futures {
		if _, err := f.Await(hxCtx(t)); errors.Is(err, kit.ErrClosed) {
			cancelled[i] = true
		} else if err != nil {
			return fmt.Sprintf("call %d: %v; want success or an error matching kit.ErrClosed", i, err)
		}
	}
	stop()
	var sent []int
	for i := range calls {
		if cancelled[i] && arrived[i] && !inFlight[i] {
			sent = append(sent, i)
		}
	}
	if len(sent) > 0 {
		return fmt.Sprintf("%d of %d calls reported cancelled (ErrClosed) were queued when Close was called, yet reached the server: %v",
			len(sent), len(cancelled), sent)
	}
	return ""
}

// ---------------------------------------------------------------------------
// Defect 8: Close leaves kit's goroutines behind.

func TestHostileCloseLeavesGoroutines(t *testing.T) { // defect 8
	t.Run("prefetch_consumer_busy", func(t *testing.T) {
		// Full pages forever: the walk always has a next page.
		srv := hxServer(t, hxPagesHandler(func(*http.Request) (string, string) { return `[{"id":1},{"id":2}]`, "" }))
		ac, err := kit.NewAsyncClient(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		// WithPrefetch(1): the producer hands pages over unbuffered, so
		// whatever it does next (fetch page 2, or fail with ErrClosed) it
		// then blocks handing it to the busy consumer.
		r := kit.NewAsyncResource[hxRec](ac, "/recs", kit.WithPaginator(kit.PageNumber{PageSize: 2}), kit.WithPrefetch(1))
		before := hxKitGoroutines()
		var left []string
		for _, err := range r.Pages(hxCtx(t), nil) {
			if err != nil {
				t.Fatal(err)
			}
			// The consumer is busy in the loop body while the client closes.
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			_ = ac.Close(ctx)
			cancel()
			left = hxKitGoroutinesLeft(before)
			break
		}
		if len(left) > 0 {
			t.Fatalf("Close returned, %d goroutine(s) of kit still running:\n%s", len(left), strings.Join(left, "\n\n"))
		}
	})
	t.Run("token_fetch_of_async_call", func(t *testing.T) {
		srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"id":1}`) })
		started := make(chan struct{}, 1)
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
			select {
			case started <- struct{}{}:
			default:
			}
			select {
			case <-ctx.Done():
				return kit.Token{}, ctx.Err()
			case <-release:
				return kit.Token{}, errors.New("released by the test")
			}
		}, kit.WithTokenFetchTimeout(20*time.Second))
		ac, err := kit.NewAsyncClient(srv.URL, kit.WithAuth(auth))
		if err != nil {
			t.Fatal(err)
		}
		before := hxKitGoroutines()
		f := hxGetRec.Go(hxCtx(t), ac, kit.NoParams{})
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("the token fetch never started")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_ = ac.Close(ctx)
		if _, err := f.Await(hxCtx(t)); !errors.Is(err, kit.ErrClosed) {
			t.Errorf("the call: %v; want an error matching kit.ErrClosed", err)
		}
		if left := hxKitGoroutinesLeft(before); len(left) > 0 {
			t.Fatalf("Close returned, %d goroutine(s) of kit still running:\n%s", len(left), strings.Join(left, "\n\n"))
		}
	})
}
