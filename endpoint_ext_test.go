package kit_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

// declResult is what declaring one endpoint gave: NewEndpoint's error and,
// for the five methods that have one, what the panicking constructor did.
type declResult struct {
	method, path string
	newErr       error
	hasCtor      bool
	panicked     any
}

// coreDeclare declares method path both ways.
func coreDeclare[P, R any](method, path string, opts ...kit.EndpointOption) declResult {
	res := declResult{method: method, path: path}
	_, res.newErr = kit.NewEndpoint[P, R](method, path, opts...)
	ctor := map[string]func(string, ...kit.EndpointOption) *kit.Endpoint[P, R]{
		http.MethodGet:    kit.Get[P, R],
		http.MethodPost:   kit.Post[P, R],
		http.MethodPut:    kit.Put[P, R],
		http.MethodDelete: kit.Delete[P, R],
		http.MethodPatch:  kit.Patch[P, R],
	}[method]
	if ctor != nil {
		res.hasCtor = true
		func() {
			defer func() { res.panicked = recover() }()
			ctor(path, opts...)
		}()
	}
	return res
}

func TestDeclarationErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		decl declResult
		want string // in Reason
	}{
		{"placeholder without field", coreDeclare[struct{ Q string }, any]("GET", "/users/{id}"), "{id}"},
		{"second placeholder without field", coreDeclare[struct{ ID int }, any]("GET", "/users/{id}/posts/{post_id}"), "{post_id}"},
		{"NoParams with placeholder", coreDeclare[kit.NoParams, any]("GET", "/users/{id}"), "{id}"},
		{"empty struct with placeholder", coreDeclare[struct{}, any]("DELETE", "/users/{id}"), "{id}"},
		{"unexported field for placeholder", coreDeclare[struct{ id int }, any]("GET", "/users/{id}"), "{id}"},
		{"skipped field for placeholder", coreDeclare[struct {
			ID int `kit:"-"`
		}, any]("GET", "/users/{id}"), "{id}"},
		{"header field for placeholder", coreDeclare[struct {
			ID string `kit:"id,header"`
		}, any]("GET", "/users/{id}"), "{id}"},
		{"case differs from placeholder", coreDeclare[struct{ UserID int }, any]("GET", "/users/{userId}"), "{userId}"},
		{"two body fields", coreDeclare[struct {
			A coreNote
			B *coreNote
		}, any]("POST", "/notes"), "would both be the request body"},
		{"body and model slice", coreDeclare[struct {
			A []coreUser
			B coreNote
		}, any]("PUT", "/notes"), "would both be the request body"},
		{"P int", coreDeclare[int, any]("GET", "/x"), "not a struct"},
		{"P string", coreDeclare[string, any]("GET", "/x"), "not a struct"},
		{"P slice", coreDeclare[[]string, any]("GET", "/x"), "not a struct"},
		{"P func", coreDeclare[func(), any]("GET", "/x"), "not a struct"},
		{"P pointer to struct", coreDeclare[*struct{ Q string }, any]("GET", "/x"), "not a struct"},
		{"P any", coreDeclare[any, any]("GET", "/x"), "not a struct"},
		{"P map of models", coreDeclare[map[string]coreNote, any]("GET", "/x"), "map"},
		{"chan field", coreDeclare[struct{ C chan int }, any]("GET", "/x"), "field C"},
		{"func field", coreDeclare[struct{ F func() }, any]("GET", "/x"), "field F"},
		{"map of models field", coreDeclare[struct{ M map[string]coreNote }, any]("GET", "/x"), "field M"},
		{"slice of maps field", coreDeclare[struct{ S []map[string]int }, any]("GET", "/x"), "field S"},
		{"model fills placeholder", coreDeclare[struct{ ID coreNote }, any]("GET", "/x/{id}"), "no single text form"},
		{"slice fills placeholder", coreDeclare[struct{ ID []int }, any]("GET", "/x/{id}"), "no single text form"},
		{"map fills placeholder", coreDeclare[struct{ ID map[string]string }, any]("GET", "/x/{id}"), "no single text form"},
		{"duplicate query names", coreDeclare[struct {
			A string `kit:"q"`
			B string `kit:"q"`
		}, any]("GET", "/x"), `"q"`},
		{"duplicate header names", coreDeclare[struct {
			A string `kit:"X-Id,header"`
			B string `kit:"x-id,header"`
		}, any]("GET", "/x"), "both send"},
		{"unknown tag option", coreDeclare[struct {
			Q string `kit:"q,bogus"`
		}, any]("GET", "/x"), "bogus"},
		{"header name not a token", coreDeclare[struct {
			H string `kit:"X H,header"`
		}, any]("GET", "/x"), "not an HTTP token"},
		{"query interface with a name", coreDeclare[struct {
			Q any `kit:"q,query"`
		}, any]("GET", "/x"), "cannot be query parameter q: it is not text, a slice of text, a map or a struct"},
		{"struct header", coreDeclare[struct {
			H coreNote `kit:"X-H,header"`
		}, any]("GET", "/x"), "header"},
		{"embedded pointer", coreDeclare[struct{ *CoreEmbedded }, any]("GET", "/x"), "embedded"},
		{"method with space", coreDeclare[kit.NoParams, any]("GE T", "/x"), "method"},
		{"empty method", coreDeclare[kit.NoParams, any]("", "/x"), "method"},
		{"method with slash", coreDeclare[kit.NoParams, any]("GET/", "/x"), "method"},
		{"method with colon", coreDeclare[kit.NoParams, any]("GET:", "/x"), "method"},
		{"method with newline", coreDeclare[kit.NoParams, any]("GET\n", "/x"), "method"},
		{"unterminated brace", coreDeclare[struct{ ID int }, any]("GET", "/users/{id"), "unterminated"},
		{"unbalanced brace", coreDeclare[struct{ ID int }, any]("GET", "/users/id}"), "'}'"},
		{"empty placeholder", coreDeclare[struct{ ID int }, any]("GET", "/users/{}"), "placeholder"},
		{"nested brace", coreDeclare[struct{ ID int }, any]("GET", "/users/{i{d}}"), "placeholder"},
		{"slash in placeholder", coreDeclare[struct{ ID int }, any]("GET", "/users/{a/b}"), "placeholder"},
		{"bad escape", coreDeclare[kit.NoParams, any]("GET", "/a%zz"), "escape"},
		{"truncated escape", coreDeclare[kit.NoParams, any]("GET", "/a%4"), "escape"},
		{"bad static query", coreDeclare[kit.NoParams, any]("GET", "/a?x=%zz"), "query"},
		{"placeholder in query", coreDeclare[struct{ Q string }, any]("GET", "/search?q={q}"), "{q}"},
		{"R interface with methods", coreDeclare[kit.NoParams, io.Reader]("GET", "/x"), "interface"},
		{"R error", coreDeclare[kit.NoParams, error]("GET", "/x"), "interface"},
		{"R chan", coreDeclare[kit.NoParams, chan int]("GET", "/x"), "chan int"},
		{"R func", coreDeclare[kit.NoParams, func()]("GET", "/x"), "func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := tt.decl
			var de *kit.DeclarationError
			if !errors.As(d.newErr, &de) {
				t.Fatalf("NewEndpoint(%q, %q) error = %v, want a *kit.DeclarationError", d.method, d.path, d.newErr)
			}
			if de.Method != d.method || de.Path != d.path {
				t.Errorf("DeclarationError{Method: %q, Path: %q}, want %q, %q", de.Method, de.Path, d.method, d.path)
			}
			if !strings.Contains(de.Reason, tt.want) {
				t.Errorf("Reason = %q, want it to contain %q", de.Reason, tt.want)
			}
			msg := de.Error()
			if !strings.Contains(msg, "bad endpoint declaration") || !strings.Contains(msg, de.Reason) || strings.Contains(msg, "\n") && !strings.Contains(d.method, "\n") {
				t.Errorf("Error() = %q, want one line with the declaration and the reason", msg)
			}
			if !d.hasCtor {
				return
			}
			perr, ok := d.panicked.(error)
			if !ok {
				t.Fatalf("%s(%q) panicked with %v (%T), want a *kit.DeclarationError", d.method, d.path, d.panicked, d.panicked)
			}
			var pde *kit.DeclarationError
			if !errors.As(perr, &pde) || pde.Reason != de.Reason {
				t.Errorf("%s(%q) panicked with %v, want the DeclarationError %v", d.method, d.path, perr, de)
			}
		})
	}
}

func TestGoodDeclarations(t *testing.T) {
	t.Parallel()
	type allKinds struct {
		ID   int
		Body *coreNote
		Q    []string
		M    map[string]any
		H    string `kit:"X-H,header"`
		I    any
		Skip chan int `kit:"-"`
		//lint:ignore U1000 an unexported field, which routing must skip
		private func()
	}
	tests := []struct {
		name string
		decl declResult
	}{
		{"NoParams", coreDeclare[kit.NoParams, any]("GET", "/x")},
		{"empty struct", coreDeclare[struct{}, any]("GET", "/x")},
		{"map[string]any with placeholder", coreDeclare[map[string]any, any]("GET", "/x/{id}")},
		{"url.Values", coreDeclare[url.Values, any]("GET", "/x/{id}")},
		{"map[string]string", coreDeclare[map[string]string, any]("GET", "/x")},
		{"map[int]string", coreDeclare[map[int]string, any]("GET", "/x")},
		{"every kind of field", coreDeclare[allKinds, any]("POST", "/x/{id}")},
		{"interface fills placeholder", coreDeclare[struct{ ID any }, any]("GET", "/x/{id}")},
		{"same placeholder twice", coreDeclare[struct{ ID int }, any]("GET", "/x/{id}/y/{id}")},
		{"placeholder mid-segment", coreDeclare[struct{ Name string }, any]("GET", "/files/{name}.json")},
		{"tagged placeholder", coreDeclare[struct {
			UserID int `kit:"userId"`
		}, any]("GET", "/users/{userId}")},
		{"no leading slash", coreDeclare[kit.NoParams, any]("GET", "x")},
		{"empty path", coreDeclare[kit.NoParams, any]("GET", "")},
		{"escaped literal", coreDeclare[kit.NoParams, any]("GET", "/a%20b")},
		{"custom method", coreDeclare[kit.NoParams, *kit.Response]("PROPFIND", "/x")},
		{"HEAD", coreDeclare[kit.NoParams, *kit.Response]("HEAD", "/x")},
		{"R typed", coreDeclare[kit.NoParams, coreUser]("PUT", "/x")},
		{"R slice", coreDeclare[kit.NoParams, []coreUser]("PATCH", "/x")},
		{"R map", coreDeclare[kit.NoParams, map[string]int]("DELETE", "/x")},
		{"R int", coreDeclare[kit.NoParams, int]("GET", "/x")},
		{"with options", coreDeclare[kit.NoParams, any]("GET", "/x", kit.NoAuth(), kit.WithMaxBodySize(10), nil)},
	}
	for _, tt := range tests {
		d := tt.decl
		if d.newErr != nil {
			t.Errorf("%s: NewEndpoint(%q, %q) = %v, want no error", tt.name, d.method, d.path, d.newErr)
		}
		if d.panicked != nil {
			t.Errorf("%s: %s(%q) panicked: %v", tt.name, d.method, d.path, d.panicked)
		}
	}
}

func TestEndpointString(t *testing.T) {
	t.Parallel()
	ep := kit.Post[teamUsers, coreTeam]("/teams/{id}/users")
	if got, want := ep.String(), "POST /teams/{id}/users"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// CoreEmbedded is an exported type, embedded by pointer in a declaration
// that kit refuses.
type CoreEmbedded struct{ Page int }

// fetch calls GET /x through a new client of srv and returns the result.
func fetch[R any](t *testing.T, srv *httptest.Server, opts ...kit.EndpointOption) (R, error) {
	t.Helper()
	c := newClient(t, srv.URL+"/api")
	return kit.Get[kit.NoParams, R]("/x", opts...).Call(t.Context(), c, kit.NoParams{})
}

func TestResultTyped(t *testing.T) {
	t.Parallel()
	const user = `{"id":1,"name":"Ada","email":"ada@example.com","extra":true}`
	want := coreUser{ID: 1, Name: "Ada", Email: "ada@example.com"}
	srv := serve(t, replyJSON(http.StatusOK, user))
	list := serve(t, replyJSON(http.StatusOK, "["+user+","+user+"]"))

	got, err := fetch[coreUser](t, srv)
	if err != nil || got != want {
		t.Errorf("R = coreUser: %+v, %v; want %+v", got, err, want)
	}
	gotPtr, err := fetch[*coreUser](t, srv)
	if err != nil || gotPtr == nil || *gotPtr != want {
		t.Errorf("R = *coreUser: %+v, %v; want &%+v", gotPtr, err, want)
	}
	gotList, err := fetch[[]coreUser](t, list)
	if err != nil || len(gotList) != 2 || gotList[1] != want {
		t.Errorf("R = []coreUser: %+v, %v; want two of %+v", gotList, err, want)
	}
	gotMap, err := fetch[map[string]any](t, srv)
	if err != nil || gotMap["name"] != "Ada" || gotMap["extra"] != true {
		t.Errorf("R = map[string]any: %v, %v", gotMap, err)
	}
	gotCI, err := fetch[coreTeam](t, serve(t, replyJSON(http.StatusOK, `{"ID":3,"NAME":"x"}`)))
	if err != nil || gotCI != (coreTeam{ID: 3, Name: "x"}) {
		t.Errorf("case-insensitive field names (encoding/json semantics): %+v, %v", gotCI, err)
	}
	gotInt, err := fetch[int](t, serve(t, replyJSON(http.StatusOK, `42`)))
	if err != nil || gotInt != 42 {
		t.Errorf("R = int: %v, %v; want 42", gotInt, err)
	}
	gotNull, err := fetch[*coreUser](t, serve(t, replyJSON(http.StatusOK, `null`)))
	if err != nil || gotNull != nil {
		t.Errorf("R = *coreUser, body null: %v, %v; want nil, nil", gotNull, err)
	}
}

func TestResultAny(t *testing.T) {
	t.Parallel()
	obj, err := fetch[any](t, serve(t, replyJSON(http.StatusOK, `{"id":1,"tags":["a"],"n":null}`)))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := obj.(map[string]any)
	if !ok {
		t.Fatalf("R = any, object body: got %T, want map[string]any", obj)
	}
	if m["id"] != 1.0 || fmt.Sprint(m["tags"]) != "[a]" || m["n"] != nil {
		t.Errorf("R = any: got %#v", m)
	}
	arr, err := fetch[any](t, serve(t, replyJSON(http.StatusOK, `[1,"two"]`)))
	if got, ok := arr.([]any); err != nil || !ok || len(got) != 2 || got[1] != "two" {
		t.Errorf("R = any, array body: %#v, %v; want []any{1, \"two\"}", arr, err)
	}
	str, err := fetch[any](t, serve(t, replyJSON(http.StatusOK, `"s"`)))
	if err != nil || str != "s" {
		t.Errorf("R = any, string body: %#v, %v", str, err)
	}
}

func TestResultResponse(t *testing.T) {
	t.Parallel()
	const body = `{"id":1,"name":"raw"}`
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Total", "42")
		replyJSON(http.StatusAccepted, body)(w, r)
	}))
	resp, err := fetch[*kit.Response](t, srv)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("StatusCode = %d, want 202", resp.StatusCode)
	}
	if got := resp.Header.Get("X-Total"); got != "42" {
		t.Errorf("Header X-Total = %q, want 42", got)
	}
	if got := string(resp.Bytes()); got != body {
		t.Errorf("Bytes() = %q, want %q", got, body)
	}
	var team coreTeam
	if err := resp.JSON(&team); err != nil || team != (coreTeam{ID: 1, Name: "raw"}) {
		t.Errorf("JSON() = %+v, %v", team, err)
	}
	if resp.Request == nil || resp.Request.URL.Path != "/api/x" {
		t.Errorf("Request = %v, want the request that was sent", resp.Request)
	}

	// Not JSON: *Response takes it as is; JSON() reports a DecodeError.
	html := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<p>hi</p>")
	}))
	resp, err = fetch[*kit.Response](t, html)
	if err != nil || string(resp.Bytes()) != "<p>hi</p>" {
		t.Fatalf("R = *Response, HTML body: %v, %v", resp, err)
	}
	var de *kit.DecodeError
	if err := resp.JSON(&team); !errors.As(err, &de) {
		t.Errorf("Response.JSON on HTML: %v, want a *kit.DecodeError", err)
	}
}

// errorCase checks that a non-2xx status is an *HTTPError, whatever R is.
func checkHTTPError[R any](t *testing.T, status int) {
	t.Helper()
	const (
		tokenSecret = "tok-SECRET-1"
		keySecret   = "key-SECRET-2"
	)
	body := fmt.Sprintf(`{"error":"status %d"}`, status)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "rid-9")
		replyJSON(status, body)(w, r)
	}))
	c := newClient(t, srv.URL+"/api")
	type P struct {
		ID          int
		AccessToken string
		APIKey      string `kit:"api_key"`
		Page        int
	}
	ep := kit.Get[P, R]("/users/{id}")
	got, err := ep.Call(t.Context(), c, P{ID: 7, AccessToken: tokenSecret, APIKey: keySecret, Page: 2})
	name := reflect.TypeFor[R]().String()
	if !reflect.ValueOf(&got).Elem().IsZero() {
		t.Errorf("%s, status %d: result %v, want the zero value", name, status, got)
	}
	var he *kit.HTTPError
	if !errors.As(err, &he) {
		t.Fatalf("%s, status %d: err = %v, want a *kit.HTTPError", name, status, err)
	}
	if he.Method != "GET" || he.StatusCode != status {
		t.Errorf("%s: HTTPError{Method: %q, StatusCode: %d}, want GET, %d", name, he.Method, he.StatusCode, status)
	}
	for _, want := range []string{srv.URL + "/api/users/7?", "access_token=REDACTED", "api_key=REDACTED", "page=2"} {
		if !strings.Contains(he.URL, want) {
			t.Errorf("%s: HTTPError.URL = %q, want it to contain %q", name, he.URL, want)
		}
	}
	if got := he.Header.Get("X-Request-Id"); got != "rid-9" {
		t.Errorf("%s: HTTPError.Header X-Request-Id = %q, want rid-9", name, got)
	}
	wantBody := body
	if status == http.StatusNotModified {
		wantBody = "" // no body allowed
	}
	if string(he.Body) != wantBody {
		t.Errorf("%s: HTTPError.Body = %q, want %q", name, he.Body, wantBody)
	}
	msg := err.Error()
	for _, secret := range []string{tokenSecret, keySecret, "SECRET"} {
		if strings.Contains(msg, secret) || strings.Contains(he.URL, secret) {
			t.Errorf("%s: error %q shows a secret", name, msg)
		}
	}
	if !strings.Contains(msg, fmt.Sprint(status)) || !strings.Contains(msg, "GET") || strings.Contains(msg, "\n") {
		t.Errorf("%s: error %q, want one line with method and status", name, msg)
	}
}

func TestNon2xxIsHTTPErrorForEveryResult(t *testing.T) {
	t.Parallel()
	statuses := []int{http.StatusNotModified, http.StatusBadRequest, http.StatusUnauthorized, http.StatusNotFound,
		http.StatusConflict, http.StatusUnprocessableEntity, http.StatusInternalServerError, http.StatusServiceUnavailable}
	for _, status := range statuses {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			checkHTTPError[coreUser](t, status)
			checkHTTPError[*coreUser](t, status)
			checkHTTPError[[]coreUser](t, status)
			checkHTTPError[map[string]any](t, status)
			checkHTTPError[any](t, status)
			checkHTTPError[*kit.Response](t, status)
			checkHTTPError[string](t, status)
		})
	}
}

func TestHTTPErrorBodyCapped(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), (kit.MaxErrorBodySize+40_000)/16)
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			t.Parallel()
			srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if !chunked {
					w.Header().Set("Content-Length", fmt.Sprint(len(big)))
				}
				w.WriteHeader(http.StatusBadGateway)
				w.Write(big[:1000])
				w.(http.Flusher).Flush()
				w.Write(big[1000:])
			}))
			_, err := fetch[*kit.Response](t, srv)
			var he *kit.HTTPError
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want a *kit.HTTPError", err)
			}
			if len(he.Body) != kit.MaxErrorBodySize || !bytes.Equal(he.Body, big[:kit.MaxErrorBodySize]) {
				t.Errorf("len(Body) = %d, want the first MaxErrorBodySize = %d bytes", len(he.Body), kit.MaxErrorBodySize)
			}
			if msg := err.Error(); len(msg) > 1000 {
				t.Errorf("Error() is %d bytes long, want a short snippet of the body", len(msg))
			}
		})
	}
}

func TestEmpty2xxGivesZeroResult(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusOK, http.StatusCreated, http.StatusNoContent} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Kind", "empty")
				w.WriteHeader(status)
			}))
			u, err := fetch[coreUser](t, srv)
			if err != nil || u != (coreUser{}) {
				t.Errorf("R = coreUser: %+v, %v; want the zero value (not validated)", u, err)
			}
			p, err := fetch[*coreUser](t, srv)
			if err != nil || p != nil {
				t.Errorf("R = *coreUser: %v, %v; want nil", p, err)
			}
			a, err := fetch[any](t, srv)
			if err != nil || a != nil {
				t.Errorf("R = any: %#v, %v; want nil", a, err)
			}
			s, err := fetch[[]coreUser](t, srv)
			if err != nil || s != nil {
				t.Errorf("R = []coreUser: %#v, %v; want nil", s, err)
			}
			m, err := fetch[map[string]int](t, srv)
			if err != nil || m != nil {
				t.Errorf("R = map: %#v, %v; want nil", m, err)
			}
			resp, err := fetch[*kit.Response](t, srv)
			if err != nil || resp == nil {
				t.Fatalf("R = *Response: %v, %v; want a response", resp, err)
			}
			if resp.StatusCode != status || len(resp.Bytes()) != 0 || resp.Header.Get("X-Kind") != "empty" {
				t.Errorf("R = *Response: status %d, body %q, X-Kind %q; want %d, empty, \"empty\"",
					resp.StatusCode, resp.Bytes(), resp.Header.Get("X-Kind"), status)
			}
		})
	}
}

// checkDecodeError checks that a 2xx body that does not decode into R is a
// *DecodeError with a plausible offset.
func checkDecodeError[R any](t *testing.T, ct, body, want string, minOff, maxOff int64) {
	t.Helper()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		io.WriteString(w, body)
	}))
	got, err := fetch[R](t, srv)
	if !reflect.ValueOf(&got).Elem().IsZero() {
		t.Errorf("R = %s, body %q: result %v, want the zero value", want, body, got)
	}
	var de *kit.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("R = %s, body %q: err = %v, want a *kit.DecodeError", want, body, err)
	}
	if de.ContentType != ct || de.Want != want || de.Method != "GET" || de.URL != srv.URL+"/api/x" {
		t.Errorf("DecodeError{Method: %q, URL: %q, ContentType: %q, Want: %q}, want GET, %q, %q, %q",
			de.Method, de.URL, de.ContentType, de.Want, srv.URL+"/api/x", ct, want)
	}
	if de.Offset < minOff || de.Offset > maxOff {
		t.Errorf("R = %s, body %q: Offset = %d, want %d..%d", want, body, de.Offset, minOff, maxOff)
	}
	if de.Err == nil || errors.Unwrap(de) != de.Err {
		t.Errorf("DecodeError.Err = %v, want the cause, returned by Unwrap", de.Err)
	}
	if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "GET") || strings.Contains(msg, "\n") {
		t.Errorf("Error() = %q, want one line naming the method and %s", msg, want)
	}
}

func TestNonJSON2xxIsDecodeError(t *testing.T) {
	t.Parallel()
	const html = "<html><body>maintenance</body></html>"
	const htmlCT = "text/html; charset=utf-8"
	checkDecodeError[coreUser](t, htmlCT, html, "kit_test.coreUser", 0, 1)
	checkDecodeError[*coreUser](t, htmlCT, html, "*kit_test.coreUser", 0, 1)
	checkDecodeError[[]coreUser](t, htmlCT, html, "[]kit_test.coreUser", 0, 1)
	checkDecodeError[any](t, htmlCT, html, "interface {}", 0, 1)
	checkDecodeError[map[string]int](t, "text/plain", "OK", "map[string]int", 0, 1)
	checkDecodeError[coreUser](t, "application/json", `{"id":1,"name":`, "kit_test.coreUser", 8, 15)
	checkDecodeError[coreUser](t, "application/json", `{"id":"seven","name":"a"}`, "kit_test.coreUser", 1, 13)
	checkDecodeError[coreUser](t, "application/json", `{"id":1} trailing`, "kit_test.coreUser", 8, 10)
	checkDecodeError[[]coreUser](t, "application/json", `{"id":1}`, "[]kit_test.coreUser", 0, 1)
	checkDecodeError[coreUser](t, "", `nope`, "kit_test.coreUser", 0, 2)
}

// sized answers 200 with body, with a Content-Length or chunked.
func sized(body string, chunked bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if !chunked {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			io.WriteString(w, body)
			return
		}
		half := len(body) / 2
		io.WriteString(w, body[:half])
		w.(http.Flusher).Flush()
		io.WriteString(w, body[half:])
	}
}

func TestMaxBodySize(t *testing.T) {
	t.Parallel()
	const (
		fits = `{"text":"abcde"}`  // 16 bytes
		over = `{"text":"abcdef"}` // 17 bytes
	)
	type call func(t *testing.T, srv *httptest.Server) (coreNote, error)
	withClientLimit := func(n int64) call {
		return func(t *testing.T, srv *httptest.Server) (coreNote, error) {
			c := newClient(t, srv.URL, kit.WithMaxBodySize(n))
			return kit.Get[kit.NoParams, coreNote]("/x").Call(t.Context(), c, kit.NoParams{})
		}
	}
	withEndpointLimit := func(client, endpoint int64) call {
		return func(t *testing.T, srv *httptest.Server) (coreNote, error) {
			c := newClient(t, srv.URL, kit.WithMaxBodySize(client))
			return kit.Get[kit.NoParams, coreNote]("/x", kit.WithMaxBodySize(endpoint)).Call(t.Context(), c, kit.NoParams{})
		}
	}
	withDefaultClient := func(endpoint int64) call {
		return func(t *testing.T, srv *httptest.Server) (coreNote, error) {
			c := newClient(t, srv.URL)
			return kit.Get[kit.NoParams, coreNote]("/x", kit.WithMaxBodySize(endpoint)).Call(t.Context(), c, kit.NoParams{})
		}
	}
	tests := []struct {
		name    string
		call    call
		body    string
		tooBig  bool
		chunked bool
	}{
		{"client limit, fits", withClientLimit(16), fits, false, false},
		{"client limit, over", withClientLimit(16), over, true, false},
		{"client limit, fits, chunked", withClientLimit(16), fits, false, true},
		{"client limit, over, chunked", withClientLimit(16), over, true, true},
		{"endpoint limit, fits", withDefaultClient(16), fits, false, false},
		{"endpoint limit, over", withDefaultClient(16), over, true, false},
		{"endpoint limit, over, chunked", withDefaultClient(16), over, true, true},
		{"endpoint limit above client limit", withEndpointLimit(8, 64), over, false, true},
		{"endpoint limit below client limit", withEndpointLimit(64, 16), over, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, sized(tt.body, tt.chunked))
			got, err := tt.call(t, srv)
			if !tt.tooBig {
				if err != nil || got.Text == "" {
					t.Errorf("got %+v, %v; want the note", got, err)
				}
				return
			}
			if !errors.Is(err, kit.ErrBodyTooLarge) {
				t.Fatalf("err = %v, want ErrBodyTooLarge", err)
			}
			if !strings.Contains(err.Error(), "GET "+srv.URL+"/x") {
				t.Errorf("err = %q, want it to say what was attempted", err)
			}
		})
	}
}

func TestMaxBodySizeForRawResults(t *testing.T) {
	t.Parallel()
	_, c := setup(t, sized(strings.Repeat("x", 100), true), kit.WithMaxBodySize(50))
	_, err := kit.Get[kit.NoParams, *kit.Response]("/x").Call(t.Context(), c, kit.NoParams{})
	if !errors.Is(err, kit.ErrBodyTooLarge) {
		t.Errorf("R = *Response: err = %v, want ErrBodyTooLarge", err)
	}
	_, err = kit.Get[kit.NoParams, any]("/x").Call(t.Context(), c, kit.NoParams{})
	if !errors.Is(err, kit.ErrBodyTooLarge) {
		t.Errorf("R = any: err = %v, want ErrBodyTooLarge", err)
	}
}

func TestHeadIgnoresContentLength(t *testing.T) {
	t.Parallel()
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		if r.Method != http.MethodHead {
			io.WriteString(w, strings.Repeat("x", 1000))
		}
	}), kit.WithMaxBodySize(10))
	head, err := kit.NewEndpoint[kit.NoParams, *kit.Response]("HEAD", "/file")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := head.Call(t.Context(), c, kit.NoParams{})
	if err != nil {
		t.Fatalf("HEAD with Content-Length above the limit: %v, want the response (a HEAD has no body)", err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Length") != "1000" || len(resp.Bytes()) != 0 {
		t.Errorf("HEAD: status %d, Content-Length %q, body %q", resp.StatusCode, resp.Header.Get("Content-Length"), resp.Bytes())
	}
	if _, err := kit.Get[kit.NoParams, *kit.Response]("/file").Call(t.Context(), c, kit.NoParams{}); !errors.Is(err, kit.ErrBodyTooLarge) {
		t.Errorf("GET of the same: err = %v, want ErrBodyTooLarge", err)
	}
}

// coreLyingEngine returns a response with a body but ContentLength 0, as a
// hand-written fake engine easily does.
type coreLyingEngine struct{ body string }

func (e coreLyingEngine) Do(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(strings.NewReader(e.body)),
		Request:    req,
	}, nil
}

func TestEngineResponseWithoutContentLength(t *testing.T) {
	t.Parallel()
	c := newClient(t, "https://example.com", kit.WithEngine(coreLyingEngine{`{"text":"read anyway"}`}))
	got, err := kit.Get[kit.NoParams, coreNote]("/x").Call(t.Context(), c, kit.NoParams{})
	if err != nil || got.Text != "read anyway" {
		t.Errorf("got %+v, %v; want the body read although ContentLength is 0", got, err)
	}
	c = newClient(t, "https://example.com", kit.WithEngine(coreLyingEngine{"<html>"}))
	_, err = kit.Get[kit.NoParams, coreNote]("/x").Call(t.Context(), c, kit.NoParams{})
	var de *kit.DecodeError
	if !errors.As(err, &de) {
		t.Errorf("non-JSON body with ContentLength 0: err = %v, want a *kit.DecodeError, not a silent zero value", err)
	}
}
