package kit_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
)

// Tests of origin.go: credentials stay on the base URL's origin (redirects,
// next-page links), and URLs in errors and logs are redacted.

// The redirect tests run two loopback servers, A (the base URL) and B. Both
// are on 127.0.0.1, on different ports, so they are different origins.

// redirectServers starts B, which records what it receives, and A, whose
// /api/go redirects to B (keeping the query, as some servers do), whose
// /api/local redirects to A's own /api/land, and whose /api/bounce goes to
// B's /bounce, which sends the client back to A's /api/land.
func redirectServers(t *testing.T) (a, b *httptest.Server, atA, atB *recorder) {
	t.Helper()
	atB = newRecorder(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/bounce" {
			http.Redirect(w, r, a.URL+"/api/land?"+r.URL.RawQuery, http.StatusFound)
			return
		}
		if r.URL.Path == "/unauthorized" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	b = serve(t, atB)
	atA = newRecorder(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/go":
			http.Redirect(w, r, b.URL+"/land?"+r.URL.RawQuery, http.StatusFound)
		case "/api/go307":
			http.Redirect(w, r, b.URL+"/land?"+r.URL.RawQuery, http.StatusTemporaryRedirect)
		case "/api/bounce":
			http.Redirect(w, r, b.URL+"/bounce?"+r.URL.RawQuery, http.StatusFound)
		case "/api/local":
			http.Redirect(w, r, "/api/land?"+r.URL.RawQuery, http.StatusMovedPermanently)
		case "/api/to401":
			http.Redirect(w, r, b.URL+"/unauthorized", http.StatusFound)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	a = serve(t, atA)
	return a, b, atA, atB
}

var (
	redirGo     = kit.Get[kit.NoParams, *kit.Response]("/go")
	redirGo307  = kit.Post[struct{ Payload authMsg }, *kit.Response]("/go307")
	redirBounce = kit.Get[kit.NoParams, *kit.Response]("/bounce")
	redirLocal  = kit.Get[kit.NoParams, *kit.Response]("/local")
	redirTo401  = kit.Get[kit.NoParams, *kit.Response]("/to401")
)

// engines are the ways a client can get its *http.Client.
func redirectEngines() map[string]func() []kit.Option {
	return map[string]func() []kit.Option{
		"default": func() []kit.Option { return nil },
		// Own transports: httptest.Server.Close closes the idle connections
		// of http.DefaultTransport, which parallel tests would share.
		"WithHTTPClient": func() []kit.Option {
			return []kit.Option{kit.WithHTTPClient(&http.Client{Transport: &http.Transport{}})}
		},
		"WithHTTPClient+redirect": func() []kit.Option {
			return []kit.Option{kit.WithHTTPClient(&http.Client{Transport: &http.Transport{}, CheckRedirect: allowRedirects})}
		},
	}
}

func allowRedirects(req *http.Request, via []*http.Request) error { return nil }

func TestRedirectToOtherOriginDropsCredentials(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		for engName, engine := range redirectEngines() {
			for _, k := range authKinds() {
				t.Run(tw.name+"/"+engName+"/"+k.name, func(t *testing.T) {
					t.Parallel()
					a, _, atA, atB := redirectServers(t)
					c := tw.client(t, a.URL+"/api", authOptions(k.auth(), engine()...)...)
					if _, err := twinCall(t.Context(), tw, redirGo, c, kit.NoParams{}); err != nil {
						t.Fatal(err)
					}
					if _, err := twinCall(t.Context(), tw, redirGo307, c, struct{ Payload authMsg }{authMsg{"hi"}}); err != nil {
						t.Fatal(err)
					}
					if _, err := twinCall(t.Context(), tw, redirBounce, c, kit.NoParams{}); err != nil {
						t.Fatal(err)
					}
					reqsA, reqsB := atA.requests(), atB.requests()
					if len(reqsA) != 4 || len(reqsB) != 3 {
						t.Fatalf("A got %d requests, B %d; want 4 and 3", len(reqsA), len(reqsB))
					}
					for _, r := range reqsB {
						if where := secretIn(r.Request); where != "" {
							t.Errorf("B got a credential on %s: %s", r.URL.Path, where)
						}
						if got := r.Header.Get("X-Trace"); got != "public" {
							t.Errorf("B: X-Trace = %q, want the client's own header kept", got)
						}
					}
					if !k.ok(reqsA[0].Request) {
						t.Errorf("A did not get the credentials: %v %v", reqsA[0].Header, reqsA[0].URL)
					}
					// Back from B to A: A's own credentials again (the
					// redirect keeps the headers; the query came through B
					// without the key).
					land := reqsA[3]
					if land.URL.Path != "/api/land" {
						t.Fatalf("A's last request: %s", land.URL.Path)
					}
					if k.name != "APIKeyQuery" && k.name != "Custom" && !k.ok(land.Request) {
						t.Errorf("back on A: credentials missing: %v", land.Header)
					}
				})
			}
		}
	}
}

func TestRedirectSameOriginKeepsCredentials(t *testing.T) {
	t.Parallel()
	for engName, engine := range redirectEngines() {
		for _, k := range authKinds() {
			t.Run(engName+"/"+k.name, func(t *testing.T) {
				t.Parallel()
				a, _, atA, atB := redirectServers(t)
				c := newAuthClient(t, a, k.auth(), engine()...)
				if _, err := redirLocal.Call(t.Context(), c, kit.NoParams{}); err != nil {
					t.Fatal(err)
				}
				reqs := atA.requests()
				if len(reqs) != 2 || len(atB.requests()) != 0 {
					t.Fatalf("A got %d requests, B %d; want 2 and 0", len(reqs), len(atB.requests()))
				}
				if !k.ok(reqs[1].Request) {
					t.Errorf("same-origin redirect lost the credentials: %v %v", reqs[1].Header, reqs[1].URL)
				}
			})
		}
	}
}

func TestRedirect401ElsewhereDoesNotRefresh(t *testing.T) {
	t.Parallel()
	a, _, _, _ := redirectServers(t)
	var fetches atomic.Int64
	auth := kit.TokenAuth(func(context.Context) (kit.Token, error) {
		fetches.Add(1)
		return kit.Token{Value: "tok-" + secretMark}, nil
	})
	c := newAuthClient(t, a, auth)
	_, err := redirTo401.Call(t.Context(), c, kit.NoParams{})
	noteErr(t, err)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401 *kit.HTTPError", err)
	}
	if got := fetches.Load(); got != 1 {
		t.Errorf("fetches = %d, want 1 (B's 401 is not about our token)", got)
	}
}

// TestWithHTTPClientIsNotModified: kit uses a copy; the caller's client,
// its transport and its redirect policy keep working as given.
func TestWithHTTPClientIsNotModified(t *testing.T) {
	t.Parallel()
	a, _, _, atB := redirectServers(t)
	var trips, checks atomic.Int64
	tr := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		trips.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})
	policy := func(req *http.Request, via []*http.Request) error {
		checks.Add(1)
		if req.Header.Get("Authorization") != "" {
			t.Errorf("the caller's CheckRedirect saw Authorization on a request to %s", req.URL.Host)
		}
		return nil
	}
	hc := &http.Client{Transport: tr, CheckRedirect: policy}
	plain := &http.Client{Transport: tr}
	for _, h := range []*http.Client{hc, plain} {
		c := newAuthClient(t, a, kit.Bearer("tok-"+secretMark), kit.WithHTTPClient(h))
		if _, err := redirGo.Call(t.Context(), c, kit.NoParams{}); err != nil {
			t.Fatal(err)
		}
	}
	if reflect.ValueOf(hc.CheckRedirect).Pointer() != reflect.ValueOf(policy).Pointer() || plain.CheckRedirect != nil {
		t.Error("kit changed the caller's CheckRedirect")
	}
	if trips.Load() != 4 || checks.Load() != 1 {
		t.Errorf("round trips, redirect checks = %d, %d; want 4, 1", trips.Load(), checks.Load())
	}
	for _, r := range atB.requests() {
		if where := secretIn(r.Request); where != "" {
			t.Errorf("B got %s", where)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestNextLinkToOtherOriginGetsNothing: a next-page link on another origin
// is refused, with every auth kind, and that origin receives nothing.
func TestNextLinkToOtherOriginGetsNothing(t *testing.T) {
	t.Parallel()
	for _, k := range authKinds() {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			atB := newRecorder(func(w http.ResponseWriter, r *http.Request) {
				writeJSON(w, http.StatusOK, []int{})
			})
			b := serve(t, atB)
			a := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Link", `<`+b.URL+`/items?`+r.URL.RawQuery+`&page=2>; rel="next"`)
				writeJSON(w, http.StatusOK, []int{1, 2})
			}))
			c := newAuthClient(t, a, k.auth())
			res := kit.NewResource[int](c, "/items", kit.WithPaginator(kit.LinkHeader{}))
			var got []int
			var walkErr error
			for v, err := range res.All(t.Context()) {
				if err != nil {
					walkErr = err
					break
				}
				got = append(got, v)
			}
			noteErr(t, walkErr)
			if !errors.Is(walkErr, kit.ErrCrossOrigin) || len(got) != 2 {
				t.Errorf("records %v, err %v; want the first page, then ErrCrossOrigin", got, walkErr)
			}
			if n := len(atB.requests()); n != 0 {
				t.Errorf("B got %d requests, want 0", n)
			}
			if walkErr != nil && strings.Contains(walkErr.Error(), secretMark) {
				t.Errorf("error shows the secret: %v", walkErr)
			}
		})
	}
}

func TestNextLinkToAnotherOriginIsRefused(t *testing.T) {
	t.Parallel()
	var foreignHits atomic.Int32
	foreign := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreignHits.Add(1)
		io.WriteString(w, `[]`)
	}))
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", fmt.Sprintf(`<%s/steal?page=2>; rel="next"`, foreign.URL))
		io.WriteString(w, `[{"id":1,"name":"a","email":"a@b.c"}]`)
	}), kit.WithHeader("X-Trace", "t"))
	r := kit.NewResource[apiUser](c, "/users", kit.WithPaginator(kit.LinkHeader{}))
	n := 0
	var walkErr error
	for _, err := range r.All(t.Context()) {
		if err != nil {
			walkErr = err
			continue
		}
		n++
	}
	if n != 1 || !errors.Is(walkErr, kit.ErrCrossOrigin) {
		t.Fatalf("got %d records and %v; want 1 and ErrCrossOrigin", n, walkErr)
	}
	if foreignHits.Load() != 0 {
		t.Fatal("the foreign origin was requested")
	}
}

func TestHTTPErrorURLRedaction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query   string
		want    []string
		notWant []string
	}{
		{"access_token=abc1&page=2", []string{"access_token=REDACTED", "page=2"}, []string{"abc1"}},
		{"api_key=abc2&q=go", []string{"api_key=REDACTED", "q=go"}, []string{"abc2"}},
		{"apikey=abc3", []string{"apikey=REDACTED"}, []string{"abc3"}},
		{"X-Amz-Signature=abc4&X-Amz-Credential=abc5&X-Amz-Date=20240101", []string{"X-Amz-Date=20240101"}, []string{"abc4", "abc5"}},
		{"client_secret=abc6&client_id=app", []string{"client_id=app"}, []string{"abc6"}},
		{"password=abc7&user=bob", []string{"user=bob"}, []string{"abc7"}},
		{"code=abc8&state=s1", []string{"state=s1"}, []string{"abc8"}},
		{"TOKEN=abc9", []string{"TOKEN=REDACTED"}, []string{"abc9"}},
		{"session_id=abc10", []string{"session_id=REDACTED"}, []string{"abc10"}},
		{"refresh_token=a&refresh_token=b", []string{"refresh_token=REDACTED&refresh_token=REDACTED"}, []string{"=a", "=b"}},
		{"q=plain", []string{"q=plain"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, replyJSON(http.StatusForbidden, `{}`))
			c := newClient(t, srv.URL+"/api?"+tt.query)
			_, err := kit.Get[kit.NoParams, any]("/x").Call(t.Context(), c, kit.NoParams{})
			var he *kit.HTTPError
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want a *kit.HTTPError", err)
			}
			if !strings.HasPrefix(he.URL, srv.URL+"/api/x?") {
				t.Errorf("URL = %q, want the request's URL", he.URL)
			}
			for _, w := range tt.want {
				if !strings.Contains(he.URL, w) {
					t.Errorf("URL = %q, want it to contain %q", he.URL, w)
				}
			}
			for _, nw := range tt.notWant {
				if strings.Contains(he.URL, nw) || strings.Contains(err.Error(), nw) {
					t.Errorf("URL = %q, error %q: shows %q", he.URL, err, nw)
				}
			}
		})
	}
}

// TestAuthQueryKeyRedactedByName: an APIKeyQuery parameter whose name does
// not look secret is still redacted from URLs in error text.
func TestAuthQueryKeyRedactedByName(t *testing.T) {
	t.Parallel()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, nil)
	}))
	c := newAuthClient(t, srv, kit.APIKeyQuery("appid", "id-"+secretMark))
	_, err := authData.Call(t.Context(), c, kit.NoParams{})
	noteErr(t, err)
	var he *kit.HTTPError
	if !errors.As(err, &he) {
		t.Fatalf("err = %v", err)
	}
	u, perr := url.Parse(he.URL)
	if perr != nil || u.Query().Get("appid") != "REDACTED" {
		t.Errorf("HTTPError.URL = %q, want appid redacted", he.URL)
	}
}

// The async twin of TestRedirect401ElsewhereDoesNotRefresh: a 401 from
// where a redirect led (which got no credentials) renews nothing.
func TestRedirect401ElsewhereDoesNotRefreshAsync(t *testing.T) {
	a, _, _, _ := redirectServers(t)
	var fetches atomic.Int64
	auth := kit.TokenAuth(func(context.Context) (kit.Token, error) {
		fetches.Add(1)
		return kit.Token{Value: "tok-" + secretMark}, nil
	})
	ac := newAsyncClient(t, a.URL+"/api", authOptions(auth)...)
	_, err := redirTo401.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if he, ok := errors.AsType[*kit.HTTPError](err); !ok || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401 *kit.HTTPError", err)
	}
	if got := fetches.Load(); got != 1 {
		t.Errorf("fetches = %d, want 1 (the other origin's 401 is not about our token)", got)
	}
}

// ---------------------------------------------------------------------------
// Defect 13: credentials set by hand follow a redirect to another origin,
// and %d on a WithHeader option prints the header's value.

func TestHostileRedirectCredentials(t *testing.T) { // defect 13
	type seen struct {
		mu sync.Mutex
		h  http.Header
	}
	credHeaders := []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"}
	// other is the second origin: same host, another port.
	setup := func(t *testing.T) (*seen, *httptest.Server) {
		s := &seen{}
		other := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
			s.mu.Lock()
			s.h = r.Header.Clone()
			s.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":1}`)
		})
		origin := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
		})
		return s, origin
	}
	check := func(t *testing.T, s *seen, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("Call: %v", err)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.h == nil {
			t.Fatal("the redirect was not followed")
		}
		for _, k := range credHeaders {
			if v := s.h.Values(k); len(v) > 0 {
				t.Errorf("the other origin got %s: %q", k, v)
			}
		}
	}
	type authHeaderParams struct {
		Authorization string `kit:"Authorization,header"`
	}
	type keyHeaderParams struct {
		Key string `kit:"X-Api-Key,header"`
	}
	t.Run("WithHeader_Authorization", func(t *testing.T) {
		s, origin := setup(t)
		c := hxClient(t, origin.URL, kit.WithHeader("Authorization", "Bearer hx-manual"))
		_, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
		check(t, s, err)
	})
	t.Run("WithHeader_Proxy-Authorization", func(t *testing.T) {
		s, origin := setup(t)
		c := hxClient(t, origin.URL, kit.WithHeader("Proxy-Authorization", "Basic aHg6eA=="))
		_, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
		check(t, s, err)
	})
	t.Run("WithHeader_Cookie", func(t *testing.T) {
		s, origin := setup(t)
		c := hxClient(t, origin.URL, kit.WithHeader("Cookie", "session=hx-manual"))
		_, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
		check(t, s, err)
	})
	t.Run("WithHeader_X-Api-Key_with_APIKey_auth", func(t *testing.T) {
		s, origin := setup(t)
		c := hxClient(t, origin.URL, kit.WithAuth(kit.APIKey("X-Api-Key", "hx-auth")), kit.WithHeader("X-Api-Key", "hx-manual"))
		_, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
		check(t, s, err)
	})
	t.Run("header_param_Authorization", func(t *testing.T) {
		s, origin := setup(t)
		c := hxClient(t, origin.URL)
		ep := kit.Get[authHeaderParams, hxRec]("/rec")
		_, err := ep.Call(hxCtx(t), c, authHeaderParams{"Bearer hx-param"})
		check(t, s, err)
	})
	t.Run("NoAuth_header_param_X-Api-Key_with_APIKey_auth", func(t *testing.T) {
		s, origin := setup(t)
		c := hxClient(t, origin.URL, kit.WithAuth(kit.APIKey("X-Api-Key", "hx-auth")))
		ep := kit.Get[keyHeaderParams, hxRec]("/rec", kit.NoAuth())
		_, err := ep.Call(hxCtx(t), c, keyHeaderParams{"hx-param"})
		check(t, s, err)
	})
	t.Run("fmt_verbs_on_WithHeader", func(t *testing.T) {
		const secret = "hx-fmt-secret"
		opt := kit.WithHeader("Authorization", "Bearer "+secret)
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%X", "%o", "%b", "%t", "%e", "%c", "%U"} {
			out := fmt.Sprintf(verb, opt)
			if strings.Contains(out, secret) || strings.Contains(strings.ToLower(out), hex.EncodeToString([]byte(secret))) {
				t.Errorf("fmt %s prints the header value: %s", verb, out)
			}
		}
	})
}

// hsSeen records what a server received: each request's URL (path and
// query) and headers.
type hsSeen struct {
	mu   sync.Mutex
	urls []string
	hdrs []http.Header
}

func (s *hsSeen) add(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.urls = append(s.urls, r.URL.RequestURI())
	s.hdrs = append(s.hdrs, r.Header.Clone())
}

func (s *hsSeen) snapshot() ([]string, []http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.urls), slices.Clone(s.hdrs)
}

// hsRecording wraps h so that every request is recorded in s first.
func hsRecording(s *hsSeen, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		h(w, r)
	}
}

// ---------------------------------------------------------------------------
// Defect 3: credential headers set with the client's WithHeader go to
// another origin when a call interceptor rewrites the URL. Credentials go
// only to the base origin, whoever set them, checked where the request
// finally goes. The same class: an attempt interceptor (which runs after
// the auth layer) that moves the request to another origin takes the
// Auth's header or query key along.

// hsMoveTo returns an interceptor that sends every request to target's
// host instead.
func hsMoveTo(target *string) kit.Interceptor {
	return func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			u, err := url.Parse(*target)
			if err != nil {
				return nil, err
			}
			req.URL.Scheme, req.URL.Host = u.Scheme, u.Host
			return next(ctx, req)
		}
	}
}

func TestHostileSecInterceptorRewriteCredentials(t *testing.T) { // defect 3
	cases := []struct {
		name    string
		attempt bool // an attempt interceptor moves the request, else a call interceptor
		opts    []kit.Option
	}{
		{name: "call_WithHeader_Authorization", opts: []kit.Option{kit.WithHeader("Authorization", "Bearer hs-manual")}},
		{name: "call_WithHeader_Cookie", opts: []kit.Option{kit.WithHeader("Cookie", "session=hs-manual")}},
		{name: "call_WithHeader_Proxy-Authorization", opts: []kit.Option{kit.WithHeader("Proxy-Authorization", "Basic aHM6eA==")}},
		{name: "call_WithHeader_APIKey_header", opts: []kit.Option{kit.WithAuth(kit.APIKey("X-Api-Key", "hs-auth")), kit.WithHeader("X-Api-Key", "hs-manual")}},
		{name: "call_Bearer", opts: []kit.Option{kit.WithAuth(kit.Bearer("hs-manual"))}},
		{name: "attempt_Bearer", attempt: true, opts: []kit.Option{kit.WithAuth(kit.Bearer("hs-manual"))}},
		{name: "attempt_APIKeyQuery", attempt: true, opts: []kit.Option{kit.WithAuth(kit.APIKeyQuery("api_key", "hs-manual"))}},
		{name: "attempt_WithHeader_Authorization", attempt: true, opts: []kit.Option{kit.WithHeader("Authorization", "Bearer hs-manual")}},
	}
	for _, tc := range cases {
		for _, async := range []bool{false, true} {
			name := tc.name
			if async {
				name += "_async"
			}
			t.Run(name, func(t *testing.T) {
				var mirror hsSeen
				ok := func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"id":1}`)
				}
				mirrorSrv := hxServer(t, hsRecording(&mirror, ok))
				baseSrv := hxServer(t, ok)
				move := hsMoveTo(&mirrorSrv.URL)
				opts := slices.Clone(tc.opts)
				if tc.attempt {
					opts = append(opts, kit.WithAttemptInterceptors(move))
				} else {
					opts = append(opts, kit.WithInterceptors(move))
				}
				var err error
				if async {
					ac := hxAsyncClient(t, baseSrv.URL, opts...)
					_, err = hxGetRec.Go(hxCtx(t), ac, kit.NoParams{}).Await(hxCtx(t))
				} else {
					c := hxClient(t, baseSrv.URL, opts...)
					_, err = hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
				}
				if err != nil {
					t.Fatal(err)
				}
				urls, hdrs := mirror.snapshot()
				if len(hdrs) != 1 {
					t.Fatalf("the mirror got %d requests, want 1", len(hdrs))
				}
				for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"} {
					if v := hdrs[0].Values(k); len(v) > 0 {
						t.Errorf("the mirror (another origin) got %s: %q", k, v)
					}
				}
				if strings.Contains(urls[0], "hs-manual") {
					t.Errorf("the mirror got the API key in its URL: %s", urls[0])
				}
			})
		}
	}
}

// TestHostileSecInterceptorRewriteKeepsDeclared checks the other side of
// defect 3's fix: credentials still go where they belong. A call
// interceptor that moves a request of another origin's endpoint to the
// base origin gets the client's credentials there, and an endpoint
// declared on another origin keeps the headers its call set for it.
func TestHostileSecInterceptorRewriteKeepsDeclared(t *testing.T) {
	var base, upload hsSeen
	ok := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":1}`)
	}
	baseSrv := hxServer(t, hsRecording(&base, ok))
	uploadSrv := hxServer(t, hsRecording(&upload, ok))
	type params struct {
		Auth string `kit:"Authorization,header"`
	}
	ep := kit.Get[params, hxRec](uploadSrv.URL + "/rec")
	c := hxClient(t, baseSrv.URL, kit.WithHeader("Cookie", "session=hs-base"))
	if _, err := ep.Call(hxCtx(t), c, params{"Signed hs-upload"}); err != nil {
		t.Fatal(err)
	}
	_, hdrs := upload.snapshot()
	if len(hdrs) != 1 || hdrs[0].Get("Authorization") != "Signed hs-upload" || hdrs[0].Get("Cookie") != "" {
		t.Errorf("the upload origin got %v; want the call's Authorization and not the client's Cookie", hdrs)
	}
	c = hxClient(t, baseSrv.URL, kit.WithHeader("Cookie", "session=hs-base"), kit.WithAuth(kit.Bearer("hs-base")),
		kit.WithInterceptors(hsMoveTo(&baseSrv.URL)))
	if _, err := ep.Call(hxCtx(t), c, params{}); err != nil {
		t.Fatal(err)
	}
	_, hdrs = base.snapshot()
	if len(hdrs) != 1 || hdrs[0].Get("Authorization") != "Bearer hs-base" {
		t.Errorf("a request moved to the base origin got %v; want the client's Auth", hdrs)
	}
}

// ---------------------------------------------------------------------------
// Same class as defects 2 and 3, found while fixing them: a `kit:",url"`
// value is a URL a server sent (a Location to follow). The credential
// headers a call carries, the endpoint's own WithHeader and the call's
// header parameters included, were declared for the endpoint's origin,
// not for wherever that server points: they do not follow a URL value to
// another origin. Nor does the base URL's query.

func TestHostileSecURLFieldCredentials(t *testing.T) {
	type follow struct {
		URL  string `kit:",url"`
		Auth string `kit:"Authorization,header"`
	}
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async_%v", async), func(t *testing.T) {
			var other, base hsSeen
			ok := func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":1}`)
			}
			otherSrv := hxServer(t, hsRecording(&other, ok))
			baseSrv := hxServer(t, hsRecording(&base, ok))
			ep := kit.Get[follow, hxRec]("/jobs", kit.WithHeader("Cookie", "session=hs-endpoint"))
			copts := []kit.Option{kit.WithAuth(kit.APIKeyQuery("api_key", "hs-query")), kit.WithHeader("Authorization", "Bearer hs-client")}
			call := func(p follow) error {
				if async {
					_, err := ep.Go(hxCtx(t), hxAsyncClient(t, baseSrv.URL+"/?key=hs-base", copts...), p).Await(hxCtx(t))
					return err
				}
				_, err := ep.Call(hxCtx(t), hxClient(t, baseSrv.URL+"/?key=hs-base", copts...), p)
				return err
			}
			if err := call(follow{URL: otherSrv.URL + "/jobs/7", Auth: "Bearer hs-param"}); err != nil {
				t.Fatal(err)
			}
			urls, hdrs := other.snapshot()
			if len(hdrs) != 1 {
				t.Fatalf("the other origin got %d requests", len(hdrs))
			}
			for _, k := range []string{"Authorization", "Cookie"} {
				if v := hdrs[0].Values(k); len(v) > 0 {
					t.Errorf("a URL value on another origin got %s: %q", k, v)
				}
			}
			if strings.Contains(urls[0], "hs-") {
				t.Errorf("a URL value on another origin got %s", urls[0])
			}
			// On the base origin the same call carries all of them.
			if err := call(follow{URL: "jobs/7", Auth: "Bearer hs-param"}); err != nil {
				t.Fatal(err)
			}
			urls, hdrs = base.snapshot()
			if len(hdrs) != 1 || hdrs[0].Get("Authorization") != "Bearer hs-param" || hdrs[0].Get("Cookie") != "session=hs-endpoint" ||
				!strings.Contains(urls[0], "api_key=hs-query") || !strings.Contains(urls[0], "key=hs-base") {
				t.Errorf("a URL value on the base origin got %v %v", urls, hdrs)
			}
		})
	}
}
