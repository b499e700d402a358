package kit_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// rotatingIssuer is an OAuth2-style token endpoint with rotating refresh
// tokens, and a resource server that accepts only the latest access token.
// A refresh token used twice is counted (and refused), as Salesforce and
// Xero refuse it with invalid_grant.
type rotatingIssuer struct {
	mu       sync.Mutex
	n        int
	access   string
	refresh  string
	reused   int
	renewals atomic.Int64
}

func (is *rotatingIssuer) renew(ctx context.Context, current kit.Token) (kit.Token, error) {
	is.renewals.Add(1)
	is.mu.Lock()
	defer is.mu.Unlock()
	if is.n > 0 && current.Refresh != is.refresh {
		is.reused++
		return kit.Token{}, errors.New("invalid_grant")
	}
	is.n++
	is.access, is.refresh = fmt.Sprintf("access-%d", is.n), fmt.Sprintf("refresh-%d", is.n)
	return kit.Token{Value: is.access, Refresh: is.refresh, Expiry: time.Now().Add(time.Hour)}, nil
}

// revoke makes the server reject the current access token (it keeps the
// refresh token).
func (is *rotatingIssuer) revoke() {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.access = "revoked"
}

func (is *rotatingIssuer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	is.mu.Lock()
	ok := r.Header.Get("Authorization") == "Bearer "+is.access
	is.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	fmt.Fprint(w, `{}`)
}

// countingStore counts calls of a TokenStore.
type countingStore struct {
	kit.TokenStore
	calls atomic.Int64
}

func (c *countingStore) Token(ctx context.Context, stale kit.Token, renew func(context.Context, kit.Token) (kit.Token, error)) (kit.Token, error) {
	c.calls.Add(1)
	return c.TokenStore.Token(ctx, stale, renew)
}

// Eight clients, each with its own auth, share a store; the server revokes
// the token and all of them get a 401 at once: one renewal, every call
// succeeds, no refresh token used twice.
func TestTokenStoreOneRenewalPer401Storm(t *testing.T) {
	t.Parallel()
	is := &rotatingIssuer{}
	srv := serve(t, is)
	store := &countingStore{TokenStore: kit.NewMemoryTokenStore()}
	clients := make([]*kit.Client, 8)
	for i := range clients {
		clients[i] = newClient(t, srv.URL, kit.WithAuth(kit.RenewingTokenAuth(is.renew, kit.WithTokenStore(store))))
	}
	for _, c := range clients {
		getDoc(t, c)
	}
	if n := is.renewals.Load(); n != 1 {
		t.Fatalf("%d renewals for the first token, want 1", n)
	}
	for round := range 3 {
		is.revoke()
		var wg sync.WaitGroup
		errs := make(chan error, 4*len(clients))
		for _, c := range clients {
			for range 4 {
				wg.Go(func() {
					_, err := cacheGet.Call(t.Context(), c, kit.NoParams{})
					errs <- err
				})
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		if n := is.renewals.Load(); n != int64(round+2) {
			t.Errorf("round %d: %d renewals in all, want %d", round, n, round+2)
		}
	}
	if is.reused != 0 {
		t.Errorf("a refresh token was used %d times more than once", is.reused)
	}
	// The token is kept in each process: calls with a fresh token do not
	// ask the store.
	before := store.calls.Load()
	for _, c := range clients {
		getDoc(t, c)
	}
	if n := store.calls.Load() - before; n != 0 {
		t.Errorf("%d store calls for fresh tokens, want 0", n)
	}
}

// A renew function that panics: the caller gets a *PanicError, the lock is
// released, and the next call renews.
func TestTokenStoreRenewPanics(t *testing.T) {
	t.Parallel()
	is := &rotatingIssuer{}
	srv := serve(t, is)
	var panics atomic.Bool
	panics.Store(true)
	renew := func(ctx context.Context, cur kit.Token) (kit.Token, error) {
		if panics.Load() {
			panic("renew broke")
		}
		return is.renew(ctx, cur)
	}
	c := newClient(t, srv.URL, kit.WithAuth(kit.RenewingTokenAuth(renew, kit.WithTokenStore(kit.NewMemoryTokenStore()))))
	_, err := cacheGet.Call(t.Context(), c, kit.NoParams{})
	var pe *kit.PanicError
	if !errors.As(err, &pe) || pe.Value != "renew broke" {
		t.Fatalf("err = %v, want a *PanicError", err)
	}
	panics.Store(false)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := cacheGet.Call(ctx, c, kit.NoParams{}); err != nil {
		t.Errorf("after the panic: %v", err)
	}
}

func TestRenewingTokenAuthWithoutStore(t *testing.T) {
	t.Parallel()
	is := &rotatingIssuer{}
	srv := serve(t, is)
	c := newClient(t, srv.URL, kit.WithAuth(kit.RenewingTokenAuth(is.renew)))
	getDoc(t, c)
	is.revoke()
	getDoc(t, c)
	if is.renewals.Load() != 2 || is.reused != 0 {
		t.Errorf("%d renewals, %d reused refresh tokens", is.renewals.Load(), is.reused)
	}
	if _, err := kit.NewClient(srv.URL, kit.WithAuth(kit.RenewingTokenAuth(nil))); err == nil || !strings.Contains(err.Error(), "nil renew function") {
		t.Errorf("nil renew: err = %v", err)
	}
}

// A store waits for its lock with the caller's context.
func TestMemoryTokenStoreLockHonoursContext(t *testing.T) {
	t.Parallel()
	s := kit.NewMemoryTokenStore()
	holding, release := make(chan struct{}), make(chan struct{})
	go s.Token(t.Context(), kit.Token{}, func(ctx context.Context, _ kit.Token) (kit.Token, error) {
		close(holding)
		<-release
		return kit.Token{Value: "t1"}, nil
	})
	<-holding
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := s.Token(ctx, kit.Token{}, func(context.Context, kit.Token) (kit.Token, error) {
		t.Error("renewed while another held the lock")
		return kit.Token{}, nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want Canceled", err)
	}
	close(release)
	tok, err := s.Token(t.Context(), kit.Token{}, nil) // the holder's token, no renewal
	if err != nil || tok.Value != "t1" {
		t.Errorf("Token = %v, %v", tok.Value, err)
	}
}

// Refresh is never printed or logged.
func TestTokenRefreshNeverPrinted(t *testing.T) {
	t.Parallel()
	tok := kit.Token{Value: "SECRET-access", Refresh: "SECRET-refresh", Expiry: time.Now()}
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("t", "token", tok)
	for _, s := range []string{fmt.Sprint(tok), fmt.Sprintf("%+v %#v %s %q", tok, tok, tok, tok), b.String()} {
		if strings.Contains(s, "SECRET") {
			t.Errorf("printed a secret: %s", s)
		}
	}
}
