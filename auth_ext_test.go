package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
	"github.com/kithttp/kit/internal/tokensrv"
	"github.com/kithttp/kit/kittest"
)

// Every secret in the auth tests contains secretMark, so that one search
// finds any of them in error text, headers or URLs.
const secretMark = "s3cr3t"

// errTexts collects the text of every error the auth tests produce;
// noteErr checks each one at once for a secret.
var errTexts struct {
	sync.Mutex
	list []string
}

// noteErr records err's text (and that of every error it wraps) and fails
// t if any of it contains a secret.
func noteErr(t testing.TB, err error) {
	t.Helper()
	for e := err; e != nil; e = errors.Unwrap(e) {
		text := e.Error()
		errTexts.Lock()
		errTexts.list = append(errTexts.list, text)
		errTexts.Unlock()
		if strings.Contains(text, secretMark) {
			t.Errorf("error text shows a secret: %q", text)
		}
	}
}

// secretIn returns where r carries a secret (a header, the URL), or "".
func secretIn(r *http.Request) string {
	for k, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, secretMark) {
				return fmt.Sprintf("header %s: %q", k, v)
			}
		}
	}
	if s := r.URL.String(); strings.Contains(s, secretMark) {
		return "URL " + s
	}
	if r.Host != "" && strings.Contains(r.Host, secretMark) {
		return "Host " + r.Host
	}
	return ""
}

// sigAuth is a custom Auth: it sets a header of its own, appends to a header
// the client already sends, and adds a query parameter.
type sigAuth struct{}

func (sigAuth) Authenticate(r *http.Request) error {
	r.Header.Set("X-Sig", "sig-"+secretMark)
	r.Header.Add("X-Trace", "trace-"+secretMark)
	q := r.URL.Query()
	q.Set("sig", "q-"+secretMark)
	r.URL.RawQuery = q.Encode()
	return nil
}

// authKind is one auth strategy and how a server recognises it.
type authKind struct {
	name string
	auth func() kit.Auth            // a fresh value for each use
	ok   func(r *http.Request) bool // the request carries the credentials
}

func authKinds() []authKind {
	return []authKind{
		{"Bearer", func() kit.Auth { return kit.Bearer("tok-" + secretMark) },
			func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer tok-"+secretMark }},
		{"Basic", func() kit.Auth { return kit.Basic("alice", "pw-"+secretMark) },
			func(r *http.Request) bool {
				u, p, ok := r.BasicAuth()
				return ok && u == "alice" && p == "pw-"+secretMark
			}},
		{"APIKey", func() kit.Auth { return kit.APIKey("x-api-key", "key-"+secretMark) },
			func(r *http.Request) bool { return r.Header.Get("X-Api-Key") == "key-"+secretMark }},
		{"APIKeyQuery", func() kit.Auth { return kit.APIKeyQuery("access", "key-"+secretMark) },
			func(r *http.Request) bool { return r.URL.Query().Get("access") == "key-"+secretMark }},
		{"TokenAuth", func() kit.Auth {
			return kit.TokenAuth(func(context.Context) (kit.Token, error) {
				return kit.Token{Value: "jwt-" + secretMark}, nil
			})
		}, func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer jwt-"+secretMark }},
		{"TokenAuthType", func() kit.Auth {
			return kit.TokenAuth(func(context.Context) (kit.Token, error) {
				return kit.Token{Value: "mac-" + secretMark, Type: "MAC"}, nil
			})
		}, func(r *http.Request) bool { return r.Header.Get("Authorization") == "MAC mac-"+secretMark }},
		{"Custom", func() kit.Auth { return sigAuth{} },
			func(r *http.Request) bool {
				return r.Header.Get("X-Sig") == "sig-"+secretMark && r.URL.Query().Get("sig") == "q-"+secretMark &&
					strings.Join(r.Header.Values("X-Trace"), ",") == "public,trace-"+secretMark
			}},
	}
}

var (
	authWhoami = kit.Get[kit.NoParams, *kit.Response]("/whoami")
	authPublic = kit.Get[kit.NoParams, *kit.Response]("/public", kit.NoAuth())
	authData   = kit.Get[kit.NoParams, authMsg]("/data")
	authLogin  = kit.Post[authCreds, authLoginResp]("/login", kit.NoAuth())
)

type authMsg struct {
	Msg string `json:"msg"`
}

type authCreds struct {
	Payload struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
}

type authLoginResp struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// authOptions are the options of the auth tests' clients: auth a, a public
// header X-Trace, then opts.
func authOptions(a kit.Auth, opts ...kit.Option) []kit.Option {
	return append([]kit.Option{kit.WithAuth(a), kit.WithHeader("X-Trace", "public")}, opts...)
}

// newAuthClient returns a client for srv's /api with authOptions(a, opts...).
func newAuthClient(t *testing.T, srv *httptest.Server, a kit.Auth, opts ...kit.Option) *kit.Client {
	t.Helper()
	return newClient(t, srv.URL+"/api", authOptions(a, opts...)...)
}

func TestAuthKindsSendCredentials(t *testing.T) {
	t.Parallel()
	for _, k := range authKinds() {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusNoContent)
			})
			c := newAuthClient(t, serve(t, rec), k.auth())
			if _, err := authWhoami.Call(t.Context(), c, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			if _, err := authPublic.Call(t.Context(), c, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			reqs := rec.requests()
			if len(reqs) != 2 {
				t.Fatalf("server got %d requests, want 2", len(reqs))
			}
			if !k.ok(reqs[0].Request) {
				t.Errorf("authenticated request lacks the credentials: %v %v", reqs[0].Header, reqs[0].URL)
			}
			if where := secretIn(reqs[1].Request); where != "" {
				t.Errorf("NoAuth request carries a credential: %s", where)
			}
			if got := reqs[1].Header.Get("X-Trace"); got != "public" {
				t.Errorf("NoAuth request X-Trace = %q, want the client header only", got)
			}
		})
	}
}

func TestAuthAPIKeyQueryReplacesParam(t *testing.T) {
	t.Parallel()
	rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	ep := kit.Get[struct{ Access string }, *kit.Response]("/q")
	c := newAuthClient(t, serve(t, rec), kit.APIKeyQuery("access", "key-"+secretMark))
	if _, err := ep.Call(t.Context(), c, struct{ Access string }{"caller"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.requests()[0].URL.Query()["access"]; len(got) != 1 || got[0] != "key-"+secretMark {
		t.Errorf("access = %q, want the key once", got)
	}
}

func TestAuthBadConfigFailsNewClient(t *testing.T) {
	t.Parallel()
	fetch := func(context.Context) (kit.Token, error) { return kit.Token{Value: "x"}, nil }
	for _, a := range []kit.Auth{
		kit.Bearer(""),
		kit.Basic("al:ice", "pw-"+secretMark),
		kit.Basic("al\nice", "pw-"+secretMark),
		kit.APIKey("X Api Key", "key-"+secretMark),
		kit.APIKey("", "key-"+secretMark),
		kit.APIKey("X-Api-Key", "key-"+secretMark+"\r\nX-Evil: 1"),
		kit.APIKeyQuery("", "key-"+secretMark),
		kit.TokenAuth(nil),
		kit.TokenAuth(fetch, kit.WithTokenExpiryMargin(-time.Second)),
		kit.TokenAuth(fetch, kit.WithTokenFetchTimeout(0)),
	} {
		_, err := kit.NewClient("http://127.0.0.1:1", kit.WithAuth(a))
		if err == nil {
			t.Errorf("NewClient(WithAuth(%v)): no error", a)
			continue
		}
		noteErr(t, err)
		// Used directly, Authenticate reports the same problem.
		req := httptest.NewRequest("GET", "http://127.0.0.1:1/", nil)
		if err := a.Authenticate(req); err == nil {
			t.Errorf("%v.Authenticate: no error", a)
		} else {
			noteErr(t, err)
		}
	}
}

func TestAuthPrintingRedacts(t *testing.T) {
	t.Parallel()
	tok := kit.Token{Value: "tok-" + secretMark, Type: "Bearer", Expiry: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	fetch := func(context.Context) (kit.Token, error) { return tok, nil }
	values := []any{
		kit.Bearer("tok-" + secretMark),
		kit.Basic("alice", "pw-"+secretMark),
		kit.APIKey("X-Api-Key", "key-"+secretMark),
		kit.APIKeyQuery("access", "key-"+secretMark),
		kit.TokenAuth(fetch, kit.WithInitialToken(tok)),
		tok, &tok,
		kit.WithInitialToken(tok),
		kit.WithAuth(kit.Bearer("tok-" + secretMark)),
	}
	var logged bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logged, nil))
	textLog := slog.New(slog.NewTextHandler(&logged, nil))
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%T"} {
			if s := fmt.Sprintf(verb, v); strings.Contains(s, secretMark) {
				t.Errorf("fmt %s of %T shows the secret: %s", verb, v, s)
			}
		}
		log.Info("auth", "v", v)
		textLog.Info("auth", "v", v)
	}
	if strings.Contains(logged.String(), secretMark) {
		t.Errorf("slog output shows a secret:\n%s", logged.String())
	}
	if got := tok.String(); !strings.Contains(got, "Bearer") || !strings.Contains(got, "2030-01-02T03:04:05Z") {
		t.Errorf("Token.String() = %q, want its type and expiry", got)
	}
	// Saving a token (WithInitialToken's use case) keeps every field.
	b, err := json.Marshal(tok)
	if err != nil || !bytes.Contains(b, []byte(tok.Value)) {
		t.Errorf("json.Marshal(Token) = %s, %v; want the value kept", b, err)
	}
}

// newTokenServer starts the auth tests' token server: it serves /api/login
// (no auth) and, with a current token, /api/data; it issues tokens
// "tok-s3cr3t-<n>".
func newTokenServer(t *testing.T) *tokensrv.Server {
	t.Helper()
	ts := tokensrv.New(t, &tokensrv.Login{Path: "/api/login", User: "alice", Password: "pw-" + secretMark, Prefix: "tok-" + secretMark})
	ts.OK = func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, authMsg{Msg: "hello"}) }
	return ts
}

// loginAuth returns a TokenAuth whose fetch function logs in through the
// NoAuth login endpoint of *c, the client the auth is installed in.
func loginAuth(c **kit.Client, opts ...kit.TokenOption) *kit.TokenSourceAuth {
	return kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		var creds authCreds
		creds.Payload.User, creds.Payload.Password = "alice", "pw-"+secretMark
		resp, err := authLogin.Call(ctx, *c, creds)
		if err != nil {
			return kit.Token{}, fmt.Errorf("logging in: %w", err)
		}
		return kit.Token{Value: resp.AccessToken, Expiry: time.Now().Add(time.Duration(resp.ExpiresIn) * time.Second)}, nil
	}, opts...)
}

func TestTokenAuthFetchCallsLoginOfSameClient(t *testing.T) {
	leakcheck.Check(t)
	ts := newTokenServer(t)
	var c *kit.Client
	c = newAuthClient(t, ts.Server, loginAuth(&c))
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			m, err := authData.Call(t.Context(), c, kit.NoParams{})
			if err == nil && m.Msg != "hello" {
				err = fmt.Errorf("got %+v", m)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			noteErr(t, err)
			t.Error(err)
		}
	}
	if got := ts.Logins.Load(); got != 1 {
		t.Errorf("logins = %d, want 1", got)
	}
	// Expire every token: the next calls log in again, once.
	ts.RevokeAll()
	for range n {
		wg.Go(func() {
			if _, err := authData.Call(t.Context(), c, kit.NoParams{}); err != nil {
				noteErr(t, err)
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := ts.Logins.Load(); got != 2 {
		t.Errorf("logins after revocation = %d, want 2", got)
	}
	for _, h := range ts.LoginAuthorizations() {
		if h != "" {
			t.Errorf("login request carried Authorization %q", h)
		}
	}
}

func TestTokenAuthFetchCallingAuthEndpointFails(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t)
	var c *kit.Client
	a := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		// A mistake: this endpoint needs the token being fetched.
		if _, err := authData.Call(ctx, c, kit.NoParams{}); err != nil {
			return kit.Token{}, err
		}
		return kit.Token{Value: "never"}, nil
	})
	c = newAuthClient(t, ts.Server, a)
	_, err := authData.Call(t.Context(), c, kit.NoParams{})
	noteErr(t, err)
	if err == nil || !strings.Contains(err.Error(), "kit.NoAuth()") {
		t.Fatalf("err = %v, want one naming kit.NoAuth()", err)
	}
	if got := ts.Requests.Load(); got != 0 {
		t.Errorf("server got %d data requests, want 0", got)
	}
}

func TestTokenAuthSecond401IsHTTPError(t *testing.T) {
	t.Parallel()
	var requests, fetches atomic.Int64
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "no"})
	}))
	a := kit.TokenAuth(func(context.Context) (kit.Token, error) {
		return kit.Token{Value: fmt.Sprintf("tok-%s-%d", secretMark, fetches.Add(1))}, nil
	})
	c := newAuthClient(t, srv, a)
	_, err := authData.Call(t.Context(), c, kit.NoParams{})
	noteErr(t, err)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401 *kit.HTTPError", err)
	}
	if got := requests.Load(); got != 2 {
		t.Errorf("requests = %d, want 2 (one retry, no loop)", got)
	}
	if got := fetches.Load(); got != 2 {
		t.Errorf("fetches = %d, want 2 (first use, one refresh)", got)
	}
}

func TestTokenAuthRetriesWithUnchangedToken(t *testing.T) {
	t.Parallel()
	var requests, fetches atomic.Int64
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "try again"})
			return
		}
		writeJSON(w, http.StatusOK, authMsg{Msg: "hello"})
	}))
	a := kit.TokenAuth(func(context.Context) (kit.Token, error) {
		fetches.Add(1)
		return kit.Token{Value: "same-" + secretMark}, nil
	})
	c := newAuthClient(t, srv, a)
	if _, err := authData.Call(t.Context(), c, kit.NoParams{}); err != nil {
		noteErr(t, err)
		t.Fatal(err)
	}
	if r, f := requests.Load(), fetches.Load(); r != 2 || f != 2 {
		t.Errorf("requests, fetches = %d, %d; want 2, 2", r, f)
	}
}

func TestNoAuthNeverRefreshes(t *testing.T) {
	t.Parallel()
	var requests, fetches atomic.Int64
	rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "no"})
	})
	srv := serve(t, rec)
	a := kit.TokenAuth(func(context.Context) (kit.Token, error) {
		fetches.Add(1)
		return kit.Token{Value: "tok-" + secretMark}, nil
	})
	c := newAuthClient(t, srv, a)
	_, err := authPublic.Call(t.Context(), c, kit.NoParams{})
	noteErr(t, err)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != 401 {
		t.Fatalf("err = %v, want a 401 *kit.HTTPError", err)
	}
	if r, f := requests.Load(), fetches.Load(); r != 1 || f != 0 {
		t.Errorf("requests, fetches = %d, %d; want 1, 0", r, f)
	}
	if where := secretIn(rec.requests()[0].Request); where != "" {
		t.Errorf("NoAuth request carries %s", where)
	}
}

func TestTokenAuthFetchErrorIsWrapped(t *testing.T) {
	t.Parallel()
	errLogin := errors.New("login refused")
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("nothing should be sent")
	}))
	for name, fetch := range map[string]func(context.Context) (kit.Token, error){
		"error": func(context.Context) (kit.Token, error) { return kit.Token{Value: "tok-" + secretMark}, errLogin },
		"empty": func(context.Context) (kit.Token, error) { return kit.Token{}, nil },
		"ctrl":  func(context.Context) (kit.Token, error) { return kit.Token{Value: "tok-" + secretMark + "\n"}, nil },
	} {
		c := newAuthClient(t, srv, kit.TokenAuth(fetch))
		_, err := authData.Call(t.Context(), c, kit.NoParams{})
		noteErr(t, err)
		if err == nil || !strings.Contains(err.Error(), "fetching a token") || !strings.Contains(err.Error(), "GET") {
			t.Errorf("%s: err = %v", name, err)
		}
		if name == "error" && !errors.Is(err, errLogin) {
			t.Errorf("err = %v, want it to wrap the fetch error", err)
		}
	}
}

func TestTokenAuthOnTokenAndInitialToken(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t)
	// A saved token the server knows.
	ts.Add("saved-" + secretMark)
	var mu sync.Mutex
	var seen []string
	var c *kit.Client
	a := loginAuth(&c,
		kit.WithInitialToken(kit.Token{Value: "saved-" + secretMark, Expiry: time.Now().Add(time.Hour)}),
		kit.OnToken(func(tok kit.Token) {
			mu.Lock()
			seen = append(seen, tok.Value)
			mu.Unlock()
		}))
	c = newAuthClient(t, ts.Server, a)
	for range 3 {
		if _, err := authData.Call(t.Context(), c, kit.NoParams{}); err != nil {
			t.Fatal(err)
		}
	}
	if ts.Logins.Load() != 0 || len(seen) != 0 {
		t.Fatalf("logins, hook calls = %d, %d; want 0, 0 with a valid saved token", ts.Logins.Load(), len(seen))
	}
	ts.RevokeAll()
	if _, err := authData.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if err := a.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	tok, err := a.Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"tok-" + secretMark + "-1", "tok-" + secretMark + "-2"}
	if fmt.Sprint(seen) != fmt.Sprint(want) || tok.Value != want[1] {
		t.Errorf("hook saw %q, Token() = %q; want %q and the last", seen, tok.Value, want)
	}

	// An expired saved token is replaced on first use.
	var c2 *kit.Client
	a2 := loginAuth(&c2, kit.WithInitialToken(kit.Token{Value: "saved-" + secretMark, Expiry: time.Now().Add(-time.Minute)}))
	c2 = newAuthClient(t, ts.Server, a2)
	if _, err := authData.Call(t.Context(), c2, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if got := ts.Logins.Load(); got != 3 {
		t.Errorf("logins = %d, want 3", got)
	}
}

func TestTokenAuthFetchTimeout(t *testing.T) {
	t.Parallel()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	a := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		<-ctx.Done() // a token endpoint that never answers
		return kit.Token{}, ctx.Err()
	}, kit.WithTokenFetchTimeout(20*time.Millisecond))
	c := newAuthClient(t, srv, a)
	_, err := authData.Call(t.Context(), c, kit.NoParams{})
	noteErr(t, err)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out after 20ms") {
		t.Fatalf("err = %v, want a fetch timeout", err)
	}
}

// TestResourceRefreshesEveryPage: CRUD and every page of an iteration go
// through the same refresh.
func TestResourceRefreshesEveryPage(t *testing.T) {
	t.Parallel()
	ts := newTokenServer(t)
	type item struct {
		ID int `json:"id"`
	}
	var pages atomic.Int64
	mux := http.NewServeMux()
	mux.Handle("/api/login", ts.Config.Handler)
	mux.HandleFunc("/api/items", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		ok := ts.Valid(tok)
		if !ok {
			writeJSON(w, http.StatusUnauthorized, nil)
			return
		}
		pages.Add(1)
		ts.RevokeAll() // every token serves one page
		page := r.URL.Query().Get("page")
		switch page {
		case "1":
			writeJSON(w, http.StatusOK, []item{{1}, {2}})
		case "2":
			writeJSON(w, http.StatusOK, []item{{3}, {4}})
		default:
			writeJSON(w, http.StatusOK, []item{{5}})
		}
	})
	srv := serve(t, mux)
	var c *kit.Client
	c = newAuthClient(t, srv, loginAuth(&c))
	res := kit.NewResource[item](c, "/items", kit.WithPaginator(kit.PageNumber{PageSize: 2}))
	var ids []int
	for it, err := range res.All(t.Context()) {
		if err != nil {
			noteErr(t, err)
			t.Fatal(err)
		}
		ids = append(ids, it.ID)
	}
	if fmt.Sprint(ids) != "[1 2 3 4 5]" {
		t.Errorf("ids = %v", ids)
	}
	if got := ts.Logins.Load(); got != 3 {
		t.Errorf("logins = %d, want 3 (one per page)", got)
	}
}

// TestAuthErrorTextsHaveNoSecret provokes the errors a call with each auth
// kind can end with, and checks that none shows the secret. (noteErr checks
// the errors of the other auth tests as they happen.)
func TestAuthErrorTextsHaveNoSecret(t *testing.T) {
	t.Parallel()
	// hangArrived, when set, is closed once /api/hang has a request: the
	// call to it ends with a deadline that passes then, not after a
	// wall-clock window (which a loaded machine can spend before sending).
	var hangMu sync.Mutex
	var hangArrived chan struct{}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/forbidden":
			writeJSON(w, http.StatusForbidden, map[string]string{"error": "forbidden"})
		case "/api/notjson":
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
		case "/api/big":
			w.Write(bytes.Repeat([]byte("x"), 2048))
		case "/api/hang":
			hangMu.Lock()
			if hangArrived != nil {
				close(hangArrived)
				hangArrived = nil
			}
			hangMu.Unlock()
			<-r.Context().Done()
		case "/api/pages":
			// A next link on another origin that echoes the query, as
			// some APIs do: with APIKeyQuery it carries the key.
			w.Header().Set("Link", `<http://127.0.0.2:1/api/pages?`+r.URL.RawQuery+`&page=2>; rel="next"`)
			writeJSON(w, http.StatusOK, []int{1})
		}
	}))
	forbidden := kit.Get[kit.NoParams, authMsg]("/forbidden")
	notJSON := kit.Get[kit.NoParams, authMsg]("/notjson")
	big := kit.Get[kit.NoParams, *kit.Response]("/big", kit.WithMaxBodySize(1024))
	hang := kit.Get[kit.NoParams, authMsg]("/hang")
	var texts []string
	collect := func(err error) {
		if err == nil {
			t.Error("want an error")
			return
		}
		noteErr(t, err)
		texts = append(texts, err.Error())
	}
	for _, k := range authKinds() {
		c := newAuthClient(t, srv, k.auth())
		_, err := forbidden.Call(t.Context(), c, kit.NoParams{})
		collect(err)
		_, err = notJSON.Call(t.Context(), c, kit.NoParams{})
		collect(err)
		_, err = big.Call(t.Context(), c, kit.NoParams{})
		collect(err)
		arrived := make(chan struct{})
		hangMu.Lock()
		hangArrived = arrived
		hangMu.Unlock()
		_, err = hang.Call(&expiringCtx{Context: t.Context(), expire: arrived}, c, kit.NoParams{})
		collect(err)
		for _, err := range kit.NewResource[int](c, "/pages", kit.WithPaginator(kit.LinkHeader{})).All(t.Context()) {
			if err != nil {
				collect(err)
			}
		}
		// A server that is not there.
		dead := newClient(t, "http://127.0.0.1:1/api", kit.WithAuth(k.auth()))
		_, err = forbidden.Call(t.Context(), dead, kit.NoParams{})
		collect(err)
	}
	// Fetch failures.
	for _, fetch := range []func(context.Context) (kit.Token, error){
		func(context.Context) (kit.Token, error) {
			return kit.Token{Value: "tok-" + secretMark}, errors.New("denied")
		},
		func(context.Context) (kit.Token, error) { panic("fetch exploded") },
	} {
		c := newAuthClient(t, srv, kit.TokenAuth(fetch))
		_, err := forbidden.Call(t.Context(), c, kit.NoParams{})
		collect(err)
	}
	if len(texts) < 6*len(authKinds()) {
		t.Errorf("collected %d error texts, want at least %d", len(texts), 6*len(authKinds()))
	}
	for _, s := range texts {
		if strings.Contains(s, secretMark) {
			t.Errorf("error text shows a secret: %s", s)
		}
	}
	// The errors of the other auth tests that ran before this one.
	errTexts.Lock()
	defer errTexts.Unlock()
	for _, s := range errTexts.list {
		if strings.Contains(s, secretMark) {
			t.Errorf("error text shows a secret: %s", s)
		}
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
