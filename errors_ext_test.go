package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// coreAsyncOnly is an engine with the async protocol only.
type coreAsyncOnly struct {
	mu   sync.Mutex
	seen int
}

func (e *coreAsyncOnly) Go(req *http.Request) *kit.Future[*http.Response] {
	e.mu.Lock()
	e.seen++
	e.mu.Unlock()
	return kit.NewFuture(func() (*http.Response, error) { return nil, errors.New("fake engine") })
}

func (e *coreAsyncOnly) Close(ctx context.Context) error { return nil }

func (e *coreAsyncOnly) requests() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seen
}

// coreBothEngines implements both protocols; Call must use Do.
type coreBothEngines struct {
	coreAsyncOnly
	coreSyncEngine
}

func TestCallThroughAsyncOnlyEngine(t *testing.T) {
	t.Parallel()
	eng := &coreAsyncOnly{}
	c := newClient(t, "http://127.0.0.1:1/api", kit.WithEngine(eng))
	type P struct {
		ID   int
		Note *coreNote
	}
	tests := []struct {
		name, endpoint string
		call           coreCaller
	}{
		{"GET", "GET /users/{id}", coreCall(kit.Get[struct{ ID int }, coreUser]("/users/{id}"), struct{ ID int }{1})},
		{"POST raw", "POST /users/{id}", coreCall(kit.Post[P, *kit.Response]("/users/{id}"), P{ID: 1, Note: &coreNote{"x"}})},
		{"custom method", "PROPFIND /x", coreCall(mustNew[kit.NoParams, any]("PROPFIND", "/x"), kit.NoParams{})},
	}
	for _, tt := range tests {
		err := tt.call(t.Context(), c)
		var ee *kit.EngineError
		if !errors.As(err, &ee) {
			t.Fatalf("%s: err = %v, want a *kit.EngineError", tt.name, err)
		}
		if !errors.Is(err, kit.ErrEngineProtocol) {
			t.Errorf("%s: errors.Is(err, ErrEngineProtocol) = false", tt.name)
		}
		if ee.Lacks != "kit.Engine" || ee.Endpoint != tt.endpoint || ee.Engine != "*kit_test.coreAsyncOnly" {
			t.Errorf("%s: EngineError = %+v, want Lacks kit.Engine, Endpoint %q, Engine *kit_test.coreAsyncOnly", tt.name, *ee, tt.endpoint)
		}
		msg := err.Error()
		for _, want := range []string{"kit.Engine", tt.endpoint, "coreAsyncOnly"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: Error() = %q, want it to name %q", tt.name, msg, want)
			}
		}
	}
	if n := eng.requests(); n != 0 {
		t.Errorf("the async-only engine saw %d requests, want none", n)
	}
}

func TestCallThroughEngineWithBothProtocols(t *testing.T) {
	t.Parallel()
	eng := &coreBothEngines{}
	c := newClient(t, "https://example.com", kit.WithEngine(eng))
	got, err := kit.Get[kit.NoParams, coreTeam]("/t").Call(t.Context(), c, kit.NoParams{})
	if err != nil || got.Name != "fake" {
		t.Fatalf("got %+v, %v; want the sync engine's answer", got, err)
	}
	if n := eng.coreAsyncOnly.requests(); n != 0 {
		t.Errorf("Call went through the async protocol %d times, want 0", n)
	}
}

func mustNew[P, R any](method, path string) *kit.Endpoint[P, R] {
	ep, err := kit.NewEndpoint[P, R](method, path)
	if err != nil {
		panic(err)
	}
	return ep
}

var errCoreEngine = errors.New("engine failed")

// coreErrEngine fails every request with a *url.Error, whose text shows the
// full URL, as *http.Client does.
type coreErrEngine struct{}

func (coreErrEngine) Do(req *http.Request) (*http.Response, error) {
	return nil, &url.Error{Op: req.Method, URL: req.URL.String(), Err: errCoreEngine}
}

func TestErrorsNeverShowSecrets(t *testing.T) {
	t.Parallel()
	secrets := map[string]string{
		"base query":   "SECRET-base-1",
		"header":       "SECRET-hdr-2",
		"auth header":  "SECRET-auth-3",
		"query token":  "SECRET-tok-4",
		"header param": "SECRET-hp-5",
		"password":     "SECRET-pw-6",
		"signature":    "SECRET-sig-7",
		"user info":    "SECRET-ui-8",
	}
	arrived := make(chan struct{}) // closed when /slow's request arrives
	var arrivedOnce sync.Once
	rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/500":
			replyJSON(http.StatusInternalServerError, `{"error":"boom"}`)(w, r)
		case "/api/html":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<html>")
		case "/api/invalid":
			replyJSON(http.StatusOK, `{"name":"a","email":"bad"}`)(w, r)
		case "/api/big":
			replyJSON(http.StatusOK, `"`+strings.Repeat("x", 200)+`"`)(w, r)
		case "/api/slow":
			arrivedOnce.Do(func() { close(arrived) })
			<-r.Context().Done()
		default:
			replyJSON(http.StatusOK, `{"name":"a","email":"a@example.com"}`)(w, r)
		}
	})
	srv := serve(t, rec)
	opts := []kit.Option{
		kit.WithHeader("X-Api-Key", secrets["header"]),
		kit.WithHeader("Authorization", "Bearer "+secrets["auth header"]),
		kit.WithMaxBodySize(100),
	}
	base := srv.URL + "/api?api_key=" + secrets["base query"]
	c := newClient(t, base, opts...)
	type P struct {
		AccessToken string
		Token       string `kit:"X-Token,header"`
		Password    string
		Sig         string `kit:"X-Amz-Signature"`
		Ratio       float64
		Body        *coreUser
	}
	p := P{AccessToken: secrets["query token"], Token: secrets["header param"], Password: secrets["password"], Sig: secrets["signature"], Ratio: 1}
	// PUT, not GET: P has a body field, and a GET with a body is a
	// declaration error.
	get := func(path string) coreCaller {
		return coreCall(kit.Put[P, coreUser](path), p)
	}
	closed := serve(t, replyJSON(http.StatusOK, `{}`))
	// A base URL with user info is refused, and its error shows no secret.
	withUser := strings.Replace(closed.URL, "http://", "http://user:"+secrets["user info"]+"@", 1)
	if _, err := kit.NewClient(withUser+"/api", opts...); err == nil {
		t.Error("NewClient accepted a base URL with user info")
	} else {
		for name, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("NewClient error shows the %s: %v", name, err)
			}
		}
	}
	closedClient := newClient(t, closed.URL+"/api?client_secret="+secrets["base query"], opts...)
	closed.Close()
	// The deadline passes once the server has the request, whatever the
	// machine's load: the call must have been sent to count as one of the
	// server's five requests.
	deadline := func(call coreCaller) coreCaller {
		return func(ctx context.Context, b kit.Binding) error {
			return call(&expiringCtx{Context: ctx, expire: arrived}, b)
		}
	}
	nan := p
	nan.Ratio = math.NaN()
	badBody := p
	badBody.Body = &coreUser{Email: "x"}
	tests := []struct {
		name string
		b    kit.Binding
		call coreCaller
		is   func(error) bool
	}{
		{"HTTPError", c, get("/500"), func(err error) bool { var he *kit.HTTPError; return errors.As(err, &he) }},
		{"DecodeError", c, get("/html"), func(err error) bool { var de *kit.DecodeError; return errors.As(err, &de) }},
		{"response ValidationError", c, get("/invalid"), func(err error) bool { var ve *kit.ValidationError; return errors.As(err, &ve) }},
		{"body too large", c, get("/big"), func(err error) bool { return errors.Is(err, kit.ErrBodyTooLarge) }},
		{"deadline", c, deadline(get("/slow")), func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"connection refused", closedClient, get("/ok"), func(err error) bool { return err != nil }},
		{"request ValidationError", c, coreCall(kit.Post[P, coreUser]("/ok"), badBody), func(err error) bool { var ve *kit.ValidationError; return errors.As(err, &ve) }},
		{"NaN parameter", c, coreCall(kit.Put[P, coreUser]("/ok"), nan), func(err error) bool { return err != nil }},
		{"engine error", newClient(t, base, kit.WithEngine(coreErrEngine{})), get("/ok"), func(err error) bool { return errors.Is(err, errCoreEngine) }},
	}
	t.Cleanup(func() { // after the parallel subtests
		if n := len(rec.requests()); n != 5 {
			t.Errorf("server saw %d requests, want 5 (none for the errors found before sending)", n)
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.call(t.Context(), tt.b)
			if err == nil || !tt.is(err) {
				t.Fatalf("err = %v, not the error this case is about", err)
			}
			texts := []string{err.Error(), fmt.Sprintf("%v|%+v|%s", err, err, err)}
			var he *kit.HTTPError
			if errors.As(err, &he) {
				texts = append(texts, he.URL, he.Error())
			}
			var de *kit.DecodeError
			if errors.As(err, &de) {
				texts = append(texts, de.URL, de.Error())
			}
			for _, text := range texts {
				for what, secret := range secrets {
					if strings.Contains(text, secret) {
						t.Errorf("error text shows the %s secret: %q", what, text)
					}
				}
				if strings.Contains(text, "SECRET") {
					t.Errorf("error text shows a secret: %q", text)
				}
			}
		})
	}
}

func TestErrorTextsAreOneLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 500)
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"HTTPError", &kit.HTTPError{Method: "GET", URL: "https://h/x", StatusCode: 404, Body: []byte("line one\nline two\r\n\tthree")},
			[]string{"kit: GET https://h/x: 404 Not Found: line one line two three"}},
		{"HTTPError no body", &kit.HTTPError{Method: "DELETE", URL: "https://h/x", StatusCode: 500},
			[]string{"kit: DELETE https://h/x: 500 Internal Server Error"}},
		{"HTTPError long body", &kit.HTTPError{Method: "GET", URL: "u", StatusCode: 400, Body: []byte(long)},
			[]string{strings.Repeat("a", 200) + "…"}},
		{"HTTPError invalid UTF-8", &kit.HTTPError{Method: "GET", URL: "u", StatusCode: 400, Body: []byte{0xff, 'x'}},
			[]string{"400 Bad Request: "}},
		{"DecodeError", &kit.DecodeError{Method: "GET", URL: "https://h/x", ContentType: "text/html", Want: "api.User", Offset: 3, Err: errors.New("bad")},
			[]string{"GET https://h/x", "text/html", "api.User", "byte 3", "bad"}},
		{"DecodeError no content type", &kit.DecodeError{Method: "GET", URL: "u", Want: "int", Err: errors.New("bad")},
			[]string{"no content type"}},
		{"DeclarationError", &kit.DeclarationError{Method: "GET", Path: "/x/{id}", Reason: "placeholder {id} has no field"},
			[]string{"kit: bad endpoint declaration GET /x/{id}: placeholder {id} has no field"}},
		{"EngineError", &kit.EngineError{Engine: "*my.Engine", Lacks: "kit.AsyncEngine", Endpoint: "GET /x"},
			[]string{"kit: GET /x: engine *my.Engine does not implement kit.AsyncEngine"}},
		{"ValidationError", &kit.ValidationError{Model: "api.User", Fields: []kit.FieldError{{Path: "Email", Rule: "email", Message: "must be an email address"}, {Path: "Name", Rule: "required", Message: "is required"}}, Err: errors.Join(errors.New("one"), errors.New("two"))},
			[]string{"invalid api.User: Email must be an email address; Name is required; one; two"}},
		{"ValidationError only Err", &kit.ValidationError{Model: "M", Err: errors.New("bad range")},
			[]string{"invalid M: bad range"}},
	}
	for _, tt := range tests {
		msg := tt.err.Error()
		if strings.ContainsAny(msg, "\n\r") {
			t.Errorf("%s: Error() = %q, want one line", tt.name, msg)
		}
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: Error() = %q, want it to contain %q", tt.name, msg, w)
			}
		}
	}
}

func TestErrorUnwrap(t *testing.T) {
	t.Parallel()
	cause := errors.New("cause")
	if !errors.Is(&kit.DecodeError{Err: cause}, cause) {
		t.Error("DecodeError does not unwrap to its Err")
	}
	if !errors.Is(&kit.ValidationError{Err: cause}, cause) {
		t.Error("ValidationError does not unwrap to its Err")
	}
	if !errors.Is(&kit.EngineError{}, kit.ErrEngineProtocol) {
		t.Error("EngineError does not match ErrEngineProtocol")
	}
	if errors.Is(&kit.EngineError{}, kit.ErrClosed) {
		t.Error("EngineError matches ErrClosed")
	}
	for _, s := range []error{kit.ErrNoPath, kit.ErrEngineProtocol, kit.ErrClosed, kit.ErrNotModel, kit.ErrBodyTooLarge, kit.ErrNilBinding} {
		if !strings.HasPrefix(s.Error(), "kit: ") {
			t.Errorf("sentinel %q lacks the kit: prefix", s)
		}
	}
}

// expiringCtx is a context whose deadline passes when expire is closed
// (after its parent's values and an hour's deadline), so that a test can
// make a deadline pass at a chosen moment instead of after a wall-clock
// window.
type expiringCtx struct {
	context.Context
	expire <-chan struct{}
}

func (c *expiringCtx) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }
func (c *expiringCtx) Done() <-chan struct{}       { return c.expire }
func (c *expiringCtx) Err() error {
	select {
	case <-c.expire:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

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

// hxCatch runs fn and returns what it panicked with, nil if it did not,
// followed by where in kit it panicked.
func hxCatch(fn func()) (p any) {
	defer func() {
		if p = recover(); p != nil {
			p = hxPanic{p, hxPanicSite(string(debug.Stack()))}
		}
	}()
	fn()
	return nil
}

// hxPanic is a recovered panic value with the kit frame it came from.
type hxPanic struct {
	value any
	site  string
}

func (p hxPanic) String() string { return fmt.Sprintf("%v (at %s)", p.value, p.site) }

// hxPanicSite returns the innermost frame of package kit in a stack, as
// "function (file.go:line)".
func hxPanicSite(stack string) string {
	lines := strings.Split(stack, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "github.com/kithttp/kit.") && i+1 < len(lines) {
			loc := strings.TrimSpace(lines[i+1])
			if j := strings.LastIndex(loc, " +0x"); j > 0 {
				loc = loc[:j]
			}
			if j := strings.LastIndex(loc, "/"); j >= 0 {
				loc = loc[j+1:]
			}
			fn := l
			if j := strings.LastIndex(fn, "("); j > 0 {
				fn = fn[:j]
			}
			return fn + " (" + loc + ")"
		}
	}
	return "outside kit"
}

// hxAcceptablePanic reports whether a panic value is a documented one with
// a clear message ("kit: ..."), as opposed to a runtime error (nil
// dereference, makeslice, makechan, ...).
func hxAcceptablePanic(p any) bool {
	if hp, ok := p.(hxPanic); ok {
		p = hp.value
	}
	if _, isRuntime := p.(runtime.Error); isRuntime {
		return false
	}
	return strings.HasPrefix(fmt.Sprint(p), "kit:")
}
