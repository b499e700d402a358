package kit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// Token is an access token: sent as "Authorization: <Type> <Value>", with
// Type "Bearer" when empty. A zero Expiry means the token does not expire
// (it is still renewed after a 401).
//
// Refresh is a refresh token kept with it, for a renew function (see
// [RenewingTokenAuth]) to use and rotate; kit never sends it itself.
//
// Printing a Token with fmt (any verb) or log/slog shows its type and
// expiry, never its Value or Refresh. Marshalling it (to save it, see
// [WithInitialToken] and [TokenStore]) writes every field.
type Token struct {
	Value   string
	Type    string
	Expiry  time.Time
	Refresh string
}

// String describes the token without its value.
func (t Token) String() string {
	exp := "no expiry"
	if !t.Expiry.IsZero() {
		exp = "expires " + t.Expiry.Format(time.RFC3339)
	}
	v := "REDACTED"
	if t.Value == "" {
		v = "empty"
	}
	return fmt.Sprintf("kit.Token{%s %s, %s}", t.typ(), v, exp)
}

// Format prints String whatever the verb, so that no fmt verb shows Value.
func (t Token) Format(f fmt.State, _ rune) { formatRedacted(f, t.String()) }

// LogValue is the token for log/slog: String, without Value.
func (t Token) LogValue() slog.Value { return slog.StringValue(t.String()) }

// TokenOption configures [TokenAuth]. A nil TokenOption is skipped.
type TokenOption interface {
	applyToken(*tokenConfig)
}

// DefaultTokenExpiryMargin is how long before its Expiry a token is renewed,
// unless [WithTokenExpiryMargin] says otherwise.
const DefaultTokenExpiryMargin = 30 * time.Second

// DefaultTokenFetchTimeout bounds each call of a [TokenAuth] fetch function,
// unless [WithTokenFetchTimeout] says otherwise.
const DefaultTokenFetchTimeout = 30 * time.Second

// WithInitialToken starts a [TokenAuth] from a saved token (one persisted by
// an [OnToken] hook, say): it is used until it comes within the expiry margin
// of its Expiry, or a request using it gets a 401. A token with an empty
// Value is ignored.
func WithInitialToken(t Token) TokenOption { return initialTokenOption{t} }

// OnToken sets a hook called with each token the fetch function returns,
// so that it can be saved (with a rotated refresh token, if the fetch
// function keeps one). It is called on the fetching goroutine, before the
// token is used; calls never overlap and come in the order of the fetches.
// If it panics, that fetch fails. It must not call methods of the same
// [TokenSourceAuth].
func OnToken(fn func(Token)) TokenOption { return &onTokenOption{fn} }

// WithTokenExpiryMargin sets how long before its Expiry a token is renewed
// (default [DefaultTokenExpiryMargin]). The margin used for a token is at most
// half of the time it had left when it was obtained, so that a short-lived
// token is not renewed on every call. A negative margin is an error from
// [NewClient].
func WithTokenExpiryMargin(d time.Duration) TokenOption { return marginOption{d} }

// WithTokenFetchTimeout bounds each call of the fetch function (default
// [DefaultTokenFetchTimeout]): its context ends after d. A duration that is
// not positive is an error from [NewClient].
func WithTokenFetchTimeout(d time.Duration) TokenOption { return fetchTimeoutOption{d} }

// TokenAuth returns an [Auth] and [Refresher] that gets its tokens from fetch:
// on first use, again when the token comes within the expiry margin of its
// Expiry (see [WithTokenExpiryMargin]), and when a request using it gets a
// 401 (see Refresher). Each call of fetch runs on a goroutine of kit's, never two at
// once for one [TokenSourceAuth], with a context bounded by the fetch timeout
// ([DefaultTokenFetchTimeout]; see [WithTokenFetchTimeout]). A nil fetch, or a
// bad option, is an error from [NewClient].
//
// fetch may call endpoints of the very client the auth is installed in,
// provided they are declared with [NoAuth] (a login endpoint): capture the
// client variable in the closure and pass fetch's ctx on. fetch runs only
// when a token is needed, never while NewClient runs.
func TokenAuth(fetch func(ctx context.Context) (Token, error), opts ...TokenOption) *TokenSourceAuth {
	var renew func(ctx context.Context, _ Token) (Token, error)
	if fetch != nil {
		renew = func(ctx context.Context, _ Token) (Token, error) { return fetch(ctx) }
	}
	return newTokenSourceAuth("TokenAuth", "fetch", renew, opts)
}

// RenewingTokenAuth is TokenAuth whose function gets the current token: the
// one it replaces (zero on first use), so that a refresh-token grant can use
// current.Refresh and return the rotated one in the new Token's Refresh.
// Everything TokenAuth says holds, with renew for fetch.
//
// With WithTokenStore, every client of every process that uses the store
// shares one token: current is the token in the store, renew runs under the
// store's lock, so a 401 storm across a fleet makes one renewal and a
// rotated refresh token is never used twice. The token is kept in this
// process too, and the store is asked only when there is none yet, it comes
// within the expiry margin of its Expiry, or a server rejects it with a
// 401. A renew function that panics fails that renewal with an error
// matching *PanicError; the store's lock is released.
func RenewingTokenAuth(renew func(ctx context.Context, current Token) (Token, error), opts ...TokenOption) *TokenSourceAuth {
	return newTokenSourceAuth("RenewingTokenAuth", "renew", renew, opts)
}

func newTokenSourceAuth(name, fn string, renew func(ctx context.Context, current Token) (Token, error), opts []TokenOption) *TokenSourceAuth {
	a := &TokenSourceAuth{
		name:  name,
		fn:    fn,
		fetch: renew,
		cfg:   tokenConfig{margin: DefaultTokenExpiryMargin, timeout: DefaultTokenFetchTimeout},
		now:   time.Now,
	}
	for _, o := range opts {
		if o != nil {
			o.applyToken(&a.cfg)
		}
	}
	if a.cfg.initial.Value != "" {
		a.install(a.cfg.initial)
	}
	return a
}

// TokenSourceAuth is the [Auth] and [Refresher] made by [TokenAuth]: it caches a
// token and renews it when needed.
//
// It is safe for concurrent use, and meant to be shared: by a client and
// everything bound to it, or by several clients of the same API. At most one
// fetch runs at a time; every call that needs a token while it runs waits
// for that fetch and gets its token or, wrapped, its error (no call starts a
// second fetch for the same expiry or 401). The fetch runs on its own
// goroutine with a context that keeps the values of the context of the call
// that started it but not its cancellation, bounded by the fetch timeout; a
// waiting call stops waiting when its own context ends, with an error
// matching its ctx.Err(). A call that gets a 401 with a token that another
// call's refresh has already replaced does not refresh again: it is sent
// again with the new token.
type TokenSourceAuth struct {
	name  string // "TokenAuth" or "RenewingTokenAuth"
	fn    string // what its function is called: "fetch" or "renew"
	fetch func(ctx context.Context, current Token) (Token, error)
	cfg   tokenConfig
	now   func() time.Time // time.Now; tests replace it

	mu        sync.Mutex
	tok       Token
	gen       uint64    // generation of tok, counting from 1; 0: no token yet
	refreshAt time.Time // when tok becomes stale; zero: never
	flight    *tokenFetch
}

// Authenticate sets "Authorization: <Type> <Value>" on req, getting a token
// first (with req's context) if there is none yet or it is within the
// expiry margin of its Expiry.
func (a *TokenSourceAuth) Authenticate(req *http.Request) error {
	_, err := a.authenticate(req)
	return err
}

// Token returns the current token, fetching one first if there is none yet
// or it is within the expiry margin of its Expiry.
func (a *TokenSourceAuth) Token(ctx context.Context) (Token, error) {
	if ctx == nil {
		return Token{}, errors.New("kit: TokenAuth.Token: nil Context")
	}
	tok, _, err := a.current(ctx)
	return tok, err
}

// Refresh fetches a new token, or, when a fetch is already running, waits
// for that one. It returns the fetch's error, wrapped, or ctx's error if ctx
// ends first (the fetch goes on).
func (a *TokenSourceAuth) Refresh(ctx context.Context) error {
	if ctx == nil {
		return errors.New("kit: TokenAuth.Refresh: nil Context")
	}
	if err := a.checkAuth(); err != nil {
		return err
	}
	a.mu.Lock()
	f, err := a.startLocked(ctx)
	a.mu.Unlock()
	if err != nil {
		return err
	}
	_, _, err = a.wait(ctx, f)
	return err
}

// String describes the auth without any token.
func (a *TokenSourceAuth) String() string {
	if a == nil || a.name == "" {
		return "kit.TokenAuth(...)"
	}
	return "kit." + a.name + "(...)"
}

// Format prints String whatever the verb, so that no fmt verb shows a token.
func (a *TokenSourceAuth) Format(f fmt.State, _ rune) { formatRedacted(f, a.String()) }

// LogValue is the auth for log/slog: String, without any token.
func (a *TokenSourceAuth) LogValue() slog.Value { return slog.StringValue(a.String()) }

// Private implementation past this point.

type tokenConfig struct {
	store   TokenStore
	initial Token
	onToken func(Token)
	margin  time.Duration
	timeout time.Duration
}

type initialTokenOption struct{ t Token }

func (o initialTokenOption) applyToken(c *tokenConfig) { c.initial = o.t }
func (o initialTokenOption) String() string {
	return fmt.Sprintf("kit.WithInitialToken(%v)", o.t)
}
func (o initialTokenOption) Format(f fmt.State, _ rune) { formatRedacted(f, o.String()) }

// onTokenOption is used through a pointer, so that the option stays
// comparable although it holds a func.
type onTokenOption struct{ fn func(Token) }

func (o *onTokenOption) applyToken(c *tokenConfig) { c.onToken = o.fn }
func (o *onTokenOption) String() string            { return "kit.OnToken(...)" }

type marginOption struct{ d time.Duration }

func (o marginOption) applyToken(c *tokenConfig) { c.margin = o.d }
func (o marginOption) String() string            { return fmt.Sprintf("kit.WithTokenExpiryMargin(%v)", o.d) }

type fetchTimeoutOption struct{ d time.Duration }

func (o fetchTimeoutOption) applyToken(c *tokenConfig) { c.timeout = o.d }
func (o fetchTimeoutOption) String() string {
	return fmt.Sprintf("kit.WithTokenFetchTimeout(%v)", o.d)
}

// tokenFetch is one run of the fetch function, shared by every call that
// waits for it. tok, gen and err are written before done is closed.
type tokenFetch struct {
	done    chan struct{}
	waiters int                // calls that started or joined it (under a.mu; for tests)
	active  int                // calls still waiting for it (under a.mu)
	cancel  context.CancelFunc // ends the fetch's context: when no call waits any more
	stale   Token              // the token it replaces: expiring, rejected, or zero
	tok     Token
	gen     uint64
	err     error
}

// fetchChain marks the context of a running fetch: the TokenSourceAuths
// whose fetch functions are on the stack, innermost first.
type fetchChain struct {
	a      *TokenSourceAuth
	parent *fetchChain
}

type fetchChainKey struct{}

func inFetch(ctx context.Context, a *TokenSourceAuth) bool {
	c, _ := ctx.Value(fetchChainKey{}).(*fetchChain)
	for ; c != nil; c = c.parent {
		if c.a == a {
			return true
		}
	}
	return false
}

var errFetchReentry = errors.New("kit: TokenAuth: the fetch function made a call that needs its own token " +
	"(it would wait for itself); declare the endpoint it calls with kit.NoAuth()")

func (t Token) typ() string {
	if t.Type == "" {
		return "Bearer"
	}
	return t.Type
}

func (a *TokenSourceAuth) checkAuth() error {
	switch {
	case a == nil:
		return errors.New("TokenAuth: nil *TokenSourceAuth (make it with kit.TokenAuth)")
	case a.fetch == nil:
		return authConfigError(a, "nil %s function", a.fn)
	case a.cfg.margin < 0:
		return authConfigError(a, "negative expiry margin %v", a.cfg.margin)
	case a.cfg.timeout <= 0:
		return authConfigError(a, "fetch timeout %v is not positive", a.cfg.timeout)
	}
	return nil
}

// current returns the current token and its generation, fetching one when
// there is none or it is stale.
func (a *TokenSourceAuth) current(ctx context.Context) (Token, uint64, error) {
	if err := a.checkAuth(); err != nil {
		return Token{}, 0, err
	}
	a.mu.Lock()
	if a.gen != 0 && (a.refreshAt.IsZero() || a.now().Before(a.refreshAt)) {
		tok, gen := a.tok, a.gen
		a.mu.Unlock()
		return tok, gen, nil
	}
	f, err := a.startLocked(ctx)
	a.mu.Unlock()
	if err != nil {
		return Token{}, 0, err
	}
	return a.wait(ctx, f)
}

// refreshIfStale renews the token after a 401 to a request that used
// generation usedGen: only if that is still the current token (otherwise
// another call's refresh replaced it and the request just goes again with
// the new one).
func (a *TokenSourceAuth) refreshIfStale(ctx context.Context, usedGen uint64) error {
	if err := a.checkAuth(); err != nil {
		return err
	}
	a.mu.Lock()
	if a.gen != usedGen {
		a.mu.Unlock()
		return nil
	}
	f, err := a.startLocked(ctx)
	a.mu.Unlock()
	if err != nil {
		return err
	}
	_, _, err = a.wait(ctx, f)
	return err
}

// startLocked returns the running fetch, or starts one. a.mu is held.
func (a *TokenSourceAuth) startLocked(ctx context.Context) (*tokenFetch, error) {
	if inFetch(ctx, a) {
		return nil, errFetchReentry
	}
	if a.flight != nil {
		a.flight.waiters++
		a.flight.active++
		return a.flight, nil
	}
	f := &tokenFetch{done: make(chan struct{}), waiters: 1, active: 1}
	if a.gen != 0 {
		f.stale = a.tok // the token this fetch replaces
	}
	a.flight = f
	chain, _ := ctx.Value(fetchChainKey{}).(*fetchChain)
	fctx := context.WithValue(context.WithoutCancel(ctx), fetchChainKey{}, &fetchChain{a: a, parent: chain})
	fctx, f.cancel = context.WithCancel(fctx)
	go a.run(withoutAuthRecord(fctx), f)
	return f, nil
}

// wait waits for f, or for ctx to end.
func (a *TokenSourceAuth) wait(ctx context.Context, f *tokenFetch) (Token, uint64, error) {
	select {
	case <-f.done:
	default:
		select {
		case <-f.done:
		case <-ctx.Done():
			a.leave(f)
			return Token{}, 0, fmt.Errorf("kit: TokenAuth: waiting for a token: %w", ctx.Err())
		}
	}
	if f.err != nil {
		return Token{}, 0, f.err
	}
	return f.tok, f.gen, nil
}

// leave records that a call stopped waiting for f before it was done. When
// the last one leaves, f's context is cancelled: nobody is left to use the
// token, and the fetch's goroutine should not outlive the calls (an
// AsyncClient's Close cancels them all).
func (a *TokenSourceAuth) leave(f *tokenFetch) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f.active--
	if f.active == 0 {
		f.cancel()
	}
}

// run calls the fetch function on its own goroutine, installs the token and
// wakes the waiters of f.
func (a *TokenSourceAuth) run(ctx context.Context, f *tokenFetch) {
	ctx, cancel := context.WithTimeout(ctx, a.cfg.timeout)
	defer cancel()
	defer f.cancel()
	var (
		tok      Token
		err      error
		returned bool
	)
	defer func() {
		if !returned {
			if r := recover(); r != nil {
				err = fmt.Errorf("the fetch function: %w", newPanicError(r))
			} else {
				err = errors.New("the fetch function did not return (runtime.Goexit)")
			}
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
				err = fmt.Errorf("timed out after %v: %w", a.cfg.timeout, err)
			}
			f.err = fmt.Errorf("kit: TokenAuth: fetching a token: %w", err)
		}
		a.mu.Lock()
		if err == nil {
			a.install(tok)
			f.tok, f.gen = a.tok, a.gen
		}
		a.flight = nil
		a.mu.Unlock()
		close(f.done)
	}()
	if a.cfg.store != nil {
		tok, err = a.cfg.store.Token(ctx, f.stale, a.safeFetch)
		if err == nil {
			err = a.checkToken(tok, "the token store")
		}
	} else {
		tok, err = a.safeFetch(ctx, f.stale)
	}
	if err == nil && a.cfg.onToken != nil {
		a.cfg.onToken(tok) // before the token is used; a panic fails the fetch
	}
	returned = true
}

// safeFetch calls the fetch (renew) function with the current token and
// checks what it returns: a panic is an error matching *PanicError, so
// that a TokenStore calling it releases its lock and stores nothing.
func (a *TokenSourceAuth) safeFetch(ctx context.Context, current Token) (tok Token, err error) {
	returned := false
	defer func() {
		if !returned {
			r := recover()
			err = fmt.Errorf("the %s function: %w", a.fn, newPanicOrExit(r))
			tok = Token{}
		}
	}()
	tok, err = a.fetch(ctx, current)
	returned = true
	if err != nil {
		return Token{}, err
	}
	if err := a.checkToken(tok, "the "+a.fn+" function"); err != nil {
		return Token{}, err
	}
	return tok, nil
}

// checkToken reports a token that cannot be sent.
func (a *TokenSourceAuth) checkToken(tok Token, from string) error {
	switch {
	case tok.Value == "":
		return fmt.Errorf("%s returned a token with an empty value", from)
	case httpsyntax.HasControl(tok.Value) || httpsyntax.HasControl(tok.Type):
		return fmt.Errorf("%s returned a token with a control character", from)
	}
	return nil
}

// authenticate is Authenticate, returning the generation of the token used.
func (a *TokenSourceAuth) authenticate(req *http.Request) (uint64, error) {
	tok, gen, err := a.current(req.Context())
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", tok.typ()+" "+tok.Value)
	return gen, nil
}

// install makes tok the current token. a.mu is held, or a is not shared yet.
func (a *TokenSourceAuth) install(tok Token) {
	a.tok = tok
	a.gen++
	a.refreshAt = time.Time{}
	if !tok.Expiry.IsZero() {
		margin := a.cfg.margin
		if half := tok.Expiry.Sub(a.now()) / 2; half < margin {
			margin = max(half, 0)
		}
		a.refreshAt = tok.Expiry.Add(-margin)
	}
}
