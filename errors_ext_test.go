package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit"
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
