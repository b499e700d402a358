package kit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// Models and call helpers shared by the core tests (client, route,
// endpoint, validate and errors _ext_test files). Every name starts with
// "core" so that it does not collide with those of other test files of
// package kit_test. Servers and clients come from setup, serve, newClient
// and setupAPI (below; their async twins are in async_ext_test.go).

// coreUser is a data model with struct-tag validation.
type coreUser struct {
	ID    int    `json:"id"`
	Name  string `json:"name" validate:"required"`
	Email string `json:"email" validate:"required,email"`
}

// coreTeam is a data model without validation.
type coreTeam struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// coreNote is a data model without validation tags.
type coreNote struct {
	Text string `json:"text"`
}

// coreCaller is one call, made later against some binding.
type coreCaller func(ctx context.Context, b kit.Binding) error

// coreCall returns a caller of ep with params p that ignores the result.
func coreCall[P, R any](ep *kit.Endpoint[P, R], p P) coreCaller {
	return func(ctx context.Context, b kit.Binding) error {
		_, err := ep.Call(ctx, b, p)
		return err
	}
}

func TestNewClientBadBaseURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, base, want string
	}{
		{"empty", "", "no scheme"},
		{"unparsable", "http://[::1", "bad base URL"},
		{"unparsable escape", "http://h/%zz", "bad base URL"},
		{"no scheme", "example.com/api", "no scheme"},
		{"scheme-relative", "//example.com/api", "no scheme"},
		{"ftp", "ftp://example.com/pub", `scheme "ftp"`},
		{"mailto", "mailto:a@example.com", `scheme "mailto"`},
		{"no host", "http:///api", "no host"},
		{"only scheme", "https://", "no host"},
		{"fragment", "https://example.com/api#top", "fragment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := kit.NewClient(tt.base)
			if err == nil {
				t.Fatalf("NewClient(%q) = %v, nil; want an error", tt.base, c.BaseURL())
			}
			if c != nil {
				t.Errorf("NewClient(%q) returned a client with its error", tt.base)
			}
			if got := err.Error(); !strings.Contains(got, tt.want) || !strings.Contains(got, "kit: NewClient: ") {
				t.Errorf("NewClient(%q) error = %q, want it to name NewClient and contain %q", tt.base, got, tt.want)
			}
		})
	}
}

func TestNewClientAcceptsHTTPAndHTTPS(t *testing.T) {
	t.Parallel()
	tests := []struct{ base, wantScheme, wantHost, wantPath string }{
		{"http://example.com", "http", "example.com", ""},
		{"https://example.com/api/v1/", "https", "example.com", "/api/v1/"},
		{"HTTPS://example.com:8443/x", "https", "example.com:8443", "/x"},
		{"http://127.0.0.1:1/api?v=2", "http", "127.0.0.1:1", "/api"},
	}
	for _, tt := range tests {
		c := newClient(t, tt.base)
		u := c.BaseURL()
		if u.Scheme != tt.wantScheme || u.Host != tt.wantHost || u.Path != tt.wantPath {
			t.Errorf("NewClient(%q).BaseURL() = scheme %q host %q path %q; want %q %q %q",
				tt.base, u.Scheme, u.Host, u.Path, tt.wantScheme, tt.wantHost, tt.wantPath)
		}
	}
}

func TestBaseURLJoinedExactlyOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		basePath, path, want string
	}{
		{"/api/v1", "/users", "/api/v1/users"},
		{"/api/v1/", "/users", "/api/v1/users"},
		{"/api/v1", "users", "/api/v1/users"},
		{"/api/v1/", "users", "/api/v1/users"},
		{"", "/users", "/users"},
		{"/", "/users", "/users"},
		{"", "users", "/users"},
		{"/api/v1", "/users/{id}/posts", "/api/v1/users/7/posts"},
		{"/api%20v1", "/users", "/api%20v1/users"},
	}
	for _, tt := range tests {
		t.Run(tt.basePath+"+"+tt.path, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(nil)
			c := newClient(t, serve(t, rec).URL+tt.basePath)
			params := map[string]any{}
			if strings.Contains(tt.path, "{id}") {
				params["id"] = 7
			}
			ep := kit.Get[map[string]any, *kit.Response](tt.path)
			if _, err := ep.Call(t.Context(), c, params); err != nil {
				t.Fatal(err)
			}
			if got := rec.only(t).RequestURI; got != tt.want {
				t.Errorf("base %q + %q sent %q, want %q", tt.basePath, tt.path, got, tt.want)
			}
		})
	}
}

func TestBaseQuerySentOnEveryRequest(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	c := newClient(t, serve(t, rec).URL+"/api?version=2&lang=en")
	calls := []coreCaller{
		coreCall(kit.Get[kit.NoParams, *kit.Response]("/a"), kit.NoParams{}),
		coreCall(kit.Get[struct{ Q string }, *kit.Response]("/b"), struct{ Q string }{"go"}),
		coreCall(kit.Get[kit.NoParams, *kit.Response]("/c?kind=x"), kit.NoParams{}),
		coreCall(kit.Post[struct{ Note coreNote }, *kit.Response]("/d"), struct{ Note coreNote }{coreNote{"hi"}}),
	}
	for _, call := range calls {
		if err := call(t.Context(), c); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"GET /api/a?lang=en&version=2",
		"GET /api/b?lang=en&q=go&version=2",
		"GET /api/c?kind=x&lang=en&version=2",
		"POST /api/d?lang=en&version=2",
	}
	reqs := rec.requests()
	if len(reqs) != len(want) {
		t.Fatalf("server saw %d requests, want %d", len(reqs), len(want))
	}
	for i, r := range reqs {
		if got := r.line(); got != want[i] {
			t.Errorf("request %d = %q, want %q", i, got, want[i])
		}
	}
}

func TestBaseURLReturnsCopy(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://example.com/api?v=1")
	u := c.BaseURL()
	u.Host = "evil.example"
	u.Path = "/other"
	u.RawQuery = ""
	got := c.BaseURL()
	if got.String() != "https://example.com/api?v=1" {
		t.Errorf("after modifying a returned copy, BaseURL() = %q, want %q", got, "https://example.com/api?v=1")
	}
	if got == c.BaseURL() {
		t.Error("BaseURL() returned the same pointer twice, want a fresh copy")
	}
}

func TestWithHeaderSentOnEveryRequest(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec,
		kit.WithHeader("X-Trace", "a"),
		kit.WithHeader("x-trace", "b"),
		kit.WithHeader("X-Tenant", "acme"),
	)
	get := kit.Get[kit.NoParams, *kit.Response]("/a")
	post := kit.Post[struct{ N coreNote }, *kit.Response]("/b", kit.NoAuth())
	if _, err := get.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := post.Call(t.Context(), c, struct{ N coreNote }{}); err != nil {
		t.Fatal(err)
	}
	for i, r := range rec.requests() {
		if got, want := r.Header.Values("X-Trace"), []string{"a", "b"}; !slices.Equal(got, want) {
			t.Errorf("request %d: X-Trace = %q, want %q", i, got, want)
		}
		if got := r.Header.Get("X-Tenant"); got != "acme" {
			t.Errorf("request %d: X-Tenant = %q, want %q", i, got, "acme")
		}
	}
}

func TestWithHeaderOverridesUserAgent(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec, kit.WithHeader("User-Agent", "my-app/1.0"))
	if err := coreCall(kit.Get[kit.NoParams, *kit.Response]("/"), kit.NoParams{})(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if got := rec.only(t).Header.Values("User-Agent"); !slices.Equal(got, []string{"my-app/1.0"}) {
		t.Errorf("User-Agent = %q, want only the client's own", got)
	}
}

// coreSyncEngine is an Engine that answers every request itself. Like many
// hand-written fakes, it leaves ContentLength 0 although there is a body.
type coreSyncEngine struct {
	mu   sync.Mutex
	urls []string
}

func (e *coreSyncEngine) Do(req *http.Request) (*http.Response, error) {
	e.mu.Lock()
	e.urls = append(e.urls, req.Method+" "+req.URL.String())
	e.mu.Unlock()
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(strings.NewReader(`{"id":1,"name":"fake"}`)),
		Request:    req,
	}, nil
}

func TestClientOptionErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opt  kit.Option
		want string
	}{
		{"WithHTTPClient(nil)", kit.WithHTTPClient(nil), "WithHTTPClient(nil)"},
		{"WithEngine(nil)", kit.WithEngine(nil), "WithEngine(nil)"},
		{"WithEngine(int)", kit.WithEngine(42), "neither kit.Engine nor kit.AsyncEngine"},
		{"WithEngine(RoundTripper)", kit.WithEngine(http.DefaultTransport), "neither kit.Engine nor kit.AsyncEngine"},
		{"WithMaxBodySize(0)", kit.WithMaxBodySize(0), "must be positive"},
		{"WithMaxBodySize(-1)", kit.WithMaxBodySize(-1), "must be positive"},
		{"WithHeader empty key", kit.WithHeader("", "v"), "empty key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := kit.NewClient("https://example.com", tt.opt)
			if err == nil {
				t.Fatalf("NewClient with %v = %v, nil; want an error", tt.opt, c)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("NewClient with %v: error %q does not contain %q", tt.opt, err, tt.want)
			}
		})
	}
}

func TestClientGoodOptions(t *testing.T) {
	t.Parallel()
	eng := &coreSyncEngine{}
	var nilOpt kit.Option
	c, err := kit.NewClient("https://example.com/api", nilOpt, kit.WithEngine(eng), nil,
		kit.WithHTTPClient(&http.Client{}), kit.WithMaxBodySize(1), kit.WithMaxBodySize(1<<10),
		kit.WithValidator(nil), kit.WithHeader("X-A", "1"))
	if err != nil {
		t.Fatalf("NewClient with nil options among good ones: %v", err)
	}
	ep := kit.Get[struct{ ID int }, coreTeam]("/teams/{id}", nil)
	got, err := ep.Call(t.Context(), c, struct{ ID int }{3})
	if err != nil {
		t.Fatal(err)
	}
	if want := (coreTeam{ID: 1, Name: "fake"}); got != want {
		t.Errorf("Call through WithEngine = %+v, want %+v", got, want)
	}
	if want := []string{"GET https://example.com/api/teams/3"}; !slices.Equal(eng.urls, want) {
		t.Errorf("engine saw %q, want %q", eng.urls, want)
	}
}

func TestOptionStringNeverPrintsHeaderValue(t *testing.T) {
	t.Parallel()
	const secret = "Bearer sk_live_do-not-print"
	opt := kit.WithHeader("Authorization", secret)
	s, ok := opt.(fmt.Stringer)
	if !ok {
		t.Fatalf("%T has no String method", opt)
	}
	for _, got := range []string{s.String(), fmt.Sprint(opt), fmt.Sprintf("%v|%s|%+v|%q", opt, opt, opt, opt)} {
		if strings.Contains(got, "sk_live") {
			t.Errorf("WithHeader printed as %q, which shows the value", got)
		}
		if !strings.Contains(got, "Authorization") {
			t.Errorf("WithHeader printed as %q, want the key", got)
		}
	}
	tests := []struct {
		opt  any
		want string
	}{
		{kit.WithMaxBodySize(5), "kit.WithMaxBodySize(5)"},
		{kit.NoAuth(), "kit.NoAuth()"},
		{kit.WithHTTPClient(http.DefaultClient), "kit.WithHTTPClient(...)"},
		{kit.WithEngine(&coreSyncEngine{}), "kit.WithEngine(*kit_test.coreSyncEngine)"},
	}
	for _, tt := range tests {
		if got := fmt.Sprint(tt.opt); got != tt.want {
			t.Errorf("option printed as %q, want %q", got, tt.want)
		}
	}
}

func TestClientCloseKeepsClientUsable(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	call := coreCall(kit.Get[kit.NoParams, any]("/x"), kit.NoParams{})
	for i := range 2 {
		if err := call(t.Context(), c); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if err := c.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	if got := len(rec.requests()); got != 2 {
		t.Errorf("server saw %d requests, want 2", got)
	}
}

func TestNilBinding(t *testing.T) {
	t.Parallel()
	ep := kit.Get[kit.NoParams, any]("/x")
	var nilClient *kit.Client
	for _, b := range []kit.Binding{nil, nilClient} {
		_, err := ep.Call(t.Context(), b, kit.NoParams{})
		if !errors.Is(err, kit.ErrNilBinding) {
			t.Errorf("Call through %#v: err = %v, want ErrNilBinding", b, err)
		}
	}
}

func TestContextCanceledBeforeCall(t *testing.T) {
	t.Parallel()
	_, c := setup(t, replyJSON(http.StatusOK, `{}`))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := kit.Get[kit.NoParams, coreTeam]("/x").Call(ctx, c, kit.NoParams{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if !strings.Contains(err.Error(), "GET") {
		t.Errorf("err = %q, want it to say what was attempted", err)
	}
}

func TestContextCanceledDuringCall(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	}))
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := kit.Get[kit.NoParams, coreTeam]("/slow").Call(ctx, c, kit.NoParams{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestContextDeadline(t *testing.T) {
	t.Parallel()
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // slower than any deadline
	}))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	_, err := kit.Get[kit.NoParams, *kit.Response]("/slow").Call(ctx, c, kit.NoParams{})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/api/teams/")
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%s,"name":%q}`, id, r.URL.Query().Get("name"))
	})
	c := newClient(t, serve(t, rec).URL+"/api/")
	type params struct {
		ID   int
		Name string
	}
	ep := kit.Get[params, coreTeam]("/teams/{id}")
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("team %d", i)
			got, err := ep.Call(t.Context(), c, params{ID: i, Name: name})
			if err != nil {
				errs <- err
				return
			}
			if want := (coreTeam{ID: i, Name: name}); got != want {
				errs <- fmt.Errorf("call %d got %+v, want %+v", i, got, want)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(rec.requests()); got != n {
		t.Errorf("server saw %d requests, want %d", got, n)
	}
}

func TestContextEndsWhileReadingBody(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ctx  func(ctx context.Context, flushed <-chan struct{}) (context.Context, context.CancelFunc)
		want error
	}{
		{"cancel", func(ctx context.Context, flushed <-chan struct{}) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			go func() {
				<-flushed
				cancel()
			}()
			return ctx, cancel
		}, context.Canceled},
		{"deadline", func(ctx context.Context, flushed <-chan struct{}) (context.Context, context.CancelFunc) {
			// The deadline passes once the body has begun, not after a
			// wall-clock window (which could end before the headers).
			return &expiringCtx{Context: ctx, expire: flushed}, func() {}
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			flushed := make(chan struct{})
			_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"text":"`)
				w.(http.Flusher).Flush()
				close(flushed)
				<-r.Context().Done() // the rest of the body never comes
			}))
			ctx, cancel := tt.ctx(t.Context(), flushed)
			defer cancel()
			_, err := kit.Get[kit.NoParams, coreNote]("/x").Call(ctx, c, kit.NoParams{})
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// The shared setup of the black-box tests. Test servers are started here,
// with kittest.NewServer, and clients made here, so that all are stopped
// the same way when the test ends. (Tests of the client constructors and
// Close themselves, and the fault suite, call kit directly.) Helpers that
// belong to one concern (the scripted retry server, the gate of the async
// tests, the token server of the auth tests) stay in their files and build
// on these.

// setup starts h (kittest.NewAPI() when nil) on a loopback server and
// returns it with a *kit.Client, made with opts, whose base URL is the
// server's. Both are closed when the test ends.
func setup(t testing.TB, h http.Handler, opts ...kit.Option) (*httptest.Server, *kit.Client) {
	t.Helper()
	return kittest.NewServer(t, h, opts...)
}

// serve is setup for tests that make their own clients (at a path under the
// server, or several): it returns only the server.
func serve(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv, _ := setup(t, h)
	return srv
}

// setupAPI is setup with a new kittest.NewAPI, returned for its counters.
func setupAPI(t testing.TB, opts ...kit.Option) (*kittest.API, *kit.Client) {
	t.Helper()
	api := kittest.NewAPI()
	_, c := setup(t, api, opts...)
	return api, c
}

// newClient returns a *kit.Client for base (a path under a test server, or
// a host a fake engine answers for), failing the test on error. It is
// closed when the test ends.
func newClient(t testing.TB, base string, opts ...kit.Option) *kit.Client {
	t.Helper()
	c, err := kit.NewClient(base, opts...)
	if err != nil {
		t.Fatalf("NewClient(%q): %v", base, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// replyJSON answers with status and body as application/json.
func replyJSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// recorder is an http.Handler that records every request, body included,
// before handing it on.
type recorder struct {
	next http.HandlerFunc
	mu   sync.Mutex
	reqs []seenReq
}

// seenReq is what a recorder saw of one request: a copy of it, with the
// body read into Body.
type seenReq struct {
	*http.Request
	Body []byte // the body sent (it shadows Request.Body)
}

// line is the request line without the protocol: "GET /api/users?x=1".
func (r seenReq) line() string { return r.Method + " " + r.RequestURI }

// newRecorder returns a recorder that hands requests to h (nil: a 200 with
// "{}"). h can still read the body.
func newRecorder(h http.HandlerFunc) *recorder {
	if h == nil {
		h = replyJSON(http.StatusOK, `{}`)
	}
	return &recorder{next: h}
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	seen := r.Clone(context.Background())
	seen.Body = http.NoBody
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, seenReq{Request: seen, Body: body})
	rec.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec.next.ServeHTTP(w, r)
}

// requests returns a copy of the requests seen so far.
func (rec *recorder) requests() []seenReq {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seenReq(nil), rec.reqs...)
}

// only returns the one request seen, failing the test otherwise.
func (rec *recorder) only(t *testing.T) seenReq {
	t.Helper()
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

// ---------------------------------------------------------------------------
// Helpers of the hostile-input tests of issue 13 (one TestHostile...
// function per defect, each naming its defect number; prefix hx: hostile
// extension). The TestHostileSec... tests are issue 22's. Both use kit's
// public API only, servers on 127.0.0.1, and no timed assertions.

type hxRec struct {
	ID int `json:"id"`
}

var hxGetRec = kit.Get[kit.NoParams, hxRec]("/rec")

// hxCtx is a context bounding one test.
func hxCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// hxServer starts h on a loopback server closed when the test ends.
func hxServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// hxRawServer answers every request with the raw bytes of response (status
// line, headers, body) and closes the connection: a server that lies.
func hxRawServer(t *testing.T, response string) *httptest.Server {
	t.Helper()
	return hxServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = rw.WriteString(response)
		_ = rw.Flush()
	})
}

func hxClient(t *testing.T, url string, opts ...kit.Option) *kit.Client {
	t.Helper()
	c, err := kit.NewClient(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
