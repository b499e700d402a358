package kitoauth2_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
	"github.com/kithttp/kit/kitoauth2"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// provider is a loopback OAuth2 token endpoint (client credentials) and an
// API that accepts the tokens it issued and not revoked.
type provider struct {
	*httptest.Server
	issued atomic.Int64
	mu     sync.Mutex
	valid  map[string]bool
}

func newProvider(t *testing.T) *provider {
	p := &provider{valid: make(map[string]bool)}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/token":
			id, secret, ok := r.BasicAuth()
			if !ok || id != "app" || secret != "app-secret" || r.FormValue("grant_type") != "client_credentials" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			tok := fmt.Sprintf("at-%d", p.issued.Add(1))
			p.mu.Lock()
			p.valid[tok] = true
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "bearer", "expires_in": 3600})
		case "/api/me":
			tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			p.mu.Lock()
			ok := p.valid[tok]
			p.mu.Unlock()
			if !ok {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"token":%q}`, tok)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *provider) revoke() {
	p.mu.Lock()
	clear(p.valid)
	p.mu.Unlock()
}

type me struct {
	Token string `json:"token"`
}

var getMe = kit.Get[kit.NoParams, me]("/me")

// oauthContext makes oauth2 use a client of the test's own, whose idle
// connections are closed at the end (for the leak check).
func oauthContext(t *testing.T) context.Context {
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	return context.WithValue(t.Context(), oauth2.HTTPClient, hc)
}

func TestAuthFromTokenSource(t *testing.T) {
	leakcheck.Check(t)
	p := newProvider(t)
	cc := &clientcredentials.Config{ClientID: "app", ClientSecret: "app-secret", TokenURL: p.URL + "/token"}
	c, err := kit.NewClient(p.URL+"/api", kit.WithAuth(kitoauth2.Auth(cc.TokenSource(oauthContext(t)))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			got, err := getMe.Call(t.Context(), c, kit.NoParams{})
			if err != nil || got.Token != "at-1" {
				t.Errorf("got %v, %v; want at-1", got, err)
			}
		})
	}
	wg.Wait()
	if n := p.issued.Load(); n != 1 {
		t.Errorf("tokens issued = %d, want 1", n)
	}
}

func TestTokenAuthWithContextAwareFetchRenewsAfter401(t *testing.T) {
	leakcheck.Check(t)
	p := newProvider(t)
	cc := &clientcredentials.Config{ClientID: "app", ClientSecret: "app-secret", TokenURL: p.URL + "/token"}
	octx := oauthContext(t)
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		tok, err := cc.Token(context.WithValue(ctx, oauth2.HTTPClient, octx.Value(oauth2.HTTPClient)))
		return kitoauth2.Token(tok), err
	})
	c, err := kit.NewClient(p.URL+"/api", kit.WithAuth(auth))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for i, want := range []string{"at-1", "at-1", "revoke", "at-2"} {
		if want == "revoke" {
			p.revoke()
			continue
		}
		got, err := getMe.Call(t.Context(), c, kit.NoParams{})
		if err != nil || got.Token != want {
			t.Errorf("call %d: %v, %v; want %s", i, got, err, want)
		}
	}
}

func TestFetchErrors(t *testing.T) {
	leakcheck.Check(t)
	p := newProvider(t)
	cc := &clientcredentials.Config{ClientID: "app", ClientSecret: "wrong", TokenURL: p.URL + "/token"}
	auth := kitoauth2.Auth(cc.TokenSource(oauthContext(t)))
	_, err := auth.Token(t.Context())
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "kit: TokenAuth: fetching a token") {
		t.Errorf("err = %v, want the oauth2 error, wrapped", err)
	}
	if _, err := kitoauth2.Auth(nil).Token(t.Context()); err == nil {
		t.Error("nil source: no error")
	}
	nilTok := tokenSourceFunc(func() (*oauth2.Token, error) { return nil, nil })
	if _, err := kitoauth2.Fetch(nilTok)(t.Context()); err == nil {
		t.Error("nil token: no error")
	}
}

func TestFetchStopsWaitingWhenCtxEnds(t *testing.T) {
	leakcheck.Check(t)
	release := make(chan struct{})
	blocking := tokenSourceFunc(func() (*oauth2.Token, error) {
		<-release
		return &oauth2.Token{AccessToken: "late"}, nil
	})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := kitoauth2.Fetch(blocking)(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	close(release) // the goroutine calling Token ends (checked by leakcheck)
}

func TestToken(t *testing.T) {
	exp := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   *oauth2.Token
		want kit.Token
	}{
		{nil, kit.Token{}},
		{&oauth2.Token{AccessToken: "a"}, kit.Token{Value: "a", Type: "Bearer"}},
		{&oauth2.Token{AccessToken: "a", TokenType: "bearer", Expiry: exp}, kit.Token{Value: "a", Type: "Bearer", Expiry: exp}},
		{&oauth2.Token{AccessToken: "a", TokenType: "MAC", RefreshToken: "r"}, kit.Token{Value: "a", Type: "MAC"}},
	} {
		if got := kitoauth2.Token(tc.in); got != tc.want {
			t.Errorf("Token(%v) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

type tokenSourceFunc func() (*oauth2.Token, error)

func (f tokenSourceFunc) Token() (*oauth2.Token, error) { return f() }

// A TokenSource that panics runs on a goroutine of Fetch's: the panic is
// an error matching *kit.PanicError, as for kit's own goroutines.
func TestFetchPanicIsAPanicError(t *testing.T) {
	leakcheck.Check(t)
	boom := tokenSourceFunc(func() (*oauth2.Token, error) { panic("source boom") })
	_, err := kitoauth2.Fetch(boom)(t.Context())
	pe, ok := errors.AsType[*kit.PanicError](err)
	if !ok || pe.Value != "source boom" || len(pe.Stack) == 0 {
		t.Fatalf("err = %v, want a *kit.PanicError with the panic and its stack", err)
	}
	if !strings.Contains(err.Error(), "kitoauth2") {
		t.Errorf("err = %q does not say where", err)
	}
}
