package kit

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// Auth adds credentials to a request. kit calls Authenticate on each
// request it builds for a call that uses auth (endpoints declared with [NoAuth]
// never do), only for requests to the client's base URL origin, and on
// every attempt (a request resent after a 401 is authenticated again). The
// request is kit's own: Authenticate may set headers and query parameters on
// it. Its context is the call's context.
//
// Credentials stay on the base URL's origin. When the engine is kit's
// default *http.Client, or one given with [WithHTTPClient], and a response
// redirects to another origin (another scheme, host or port), every header
// that Authenticate added or changed and every query parameter it added are
// removed from the redirected request (and from its Referer). An engine
// given with [WithSyncEngine] or [WithAsyncEngine] follows, or refuses, redirects itself and is
// responsible for doing the same.
//
// Implementations must be safe for concurrent use. [Bearer], [Basic], [APIKey],
// [APIKeyQuery] and [TokenAuth] are the built-in ones, all safe for concurrent
// use; printing them (fmt, any verb, or log/slog) and every error they
// return leave the secret out.
type Auth interface {
	Authenticate(req *http.Request) error
}

// Refresher is an [Auth] whose credentials can be renewed. When a call that
// uses auth gets a 401 from the base URL's origin and the client's Auth is a
// Refresher, kit calls Refresh once and sends the request again, once; a
// second 401 is returned as an [*HTTPError]. Implementations must be safe for
// concurrent use, and concurrent 401s should share one renewal, as
// [*TokenSourceAuth] does.
type Refresher interface {
	Refresh(ctx context.Context) error
}

// Bearer returns an [Auth] that sends "Authorization: Bearer <token>". An empty
// token, or one with a control character (a trailing newline), is an error
// from [NewClient] (and from Authenticate), so that an unset environment
// variable or a badly read file is caught at start.
func Bearer(token string) Auth {
	return &bearerAuth{value: "Bearer " + token, empty: token == ""}
}

// Basic returns an [Auth] that sends HTTP Basic credentials (RFC 7617):
// "Authorization: Basic base64(user:password)". A user containing ':' is an
// error from [NewClient] (and from Authenticate).
func Basic(user, password string) Auth {
	return &basicAuth{
		user:  user,
		value: "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password)),
	}
}

// APIKey returns an [Auth] that sets the request header named header to value,
// replacing any value it had, e.g. APIKey("X-API-Key", key). A header name
// that is not an HTTP token, or a value with a line break or another control
// character, is an error from [NewClient] (and from Authenticate).
func APIKey(header, value string) Auth {
	return &apiKeyAuth{header: http.CanonicalHeaderKey(header), value: value}
}

// APIKeyQuery returns an [Auth] that sets the query parameter param to value,
// replacing any value it had, e.g. APIKeyQuery("api_key", key). Prefer a
// header where the API accepts one: URLs end up in server and proxy logs.
// kit never puts the value in error text (the parameter's values are
// redacted from every URL kit reports, whatever its name), and the
// parameter does not follow a redirect to another origin. An empty param is
// an error from [NewClient] (and from Authenticate).
func APIKeyQuery(param, value string) Auth {
	return &apiKeyQueryAuth{param: param, value: value}
}

// NoAuth declares an endpoint that never carries the client's credentials
// and never triggers a token refresh: public endpoints, and the login
// endpoint that produces a token. It is a declaration trait: an
// [EndpointOption] only.
func NoAuth() EndpointOption { return noAuthOption{} }

// Private implementation past this point.

// authConfigError reports a bad auth configuration; NewClient returns it
// through WithAuth.
func authConfigError(a fmt.Stringer, format string, args ...any) error {
	return fmt.Errorf("%s: %s", strings.TrimPrefix(a.String(), "kit."), fmt.Sprintf(format, args...))
}

// authChecker is implemented by the built-in auths: WithAuth calls it so
// that a bad configuration is an error from NewClient.
type authChecker interface {
	checkAuth() error
}

// formatRedacted is the Format method of the built-in auths and of Token:
// whatever the verb (%v, %+v, %#v, %d, ...), only the redacted String is
// printed, never a field. Their LogValue methods do the same for log/slog.
// The auths are pointers so that, printed where fmt cannot call their
// methods (an unexported field of another struct), they show as an
// address.
func formatRedacted(f fmt.State, s string) { _, _ = f.Write([]byte(s)) }

type bearerAuth struct {
	value string // "Bearer <token>"
	empty bool
}

func (a *bearerAuth) Authenticate(req *http.Request) error {
	if err := a.checkAuth(); err != nil {
		return err
	}
	req.Header.Set("Authorization", a.value)
	return nil
}

func (a *bearerAuth) staticHeader() (string, string) { return "Authorization", a.value }

func (a *bearerAuth) checkAuth() error {
	switch {
	case a.empty:
		return authConfigError(a, "empty token")
	case httpsyntax.HasControl(a.value):
		return authConfigError(a, "the token contains a control character (a trailing newline?)")
	}
	return nil
}

func (a *bearerAuth) String() string             { return "kit.Bearer(REDACTED)" }
func (a *bearerAuth) Format(f fmt.State, _ rune) { formatRedacted(f, a.String()) }
func (a *bearerAuth) LogValue() slog.Value       { return slog.StringValue(a.String()) }

type basicAuth struct {
	user  string
	value string // "Basic <base64>"
}

func (a *basicAuth) Authenticate(req *http.Request) error {
	if err := a.checkAuth(); err != nil {
		return err
	}
	req.Header.Set("Authorization", a.value)
	return nil
}

func (a *basicAuth) staticHeader() (string, string) { return "Authorization", a.value }

func (a *basicAuth) checkAuth() error {
	switch {
	case strings.Contains(a.user, ":"):
		return authConfigError(a, "the user contains ':' (RFC 7617)")
	case httpsyntax.HasControl(a.user):
		return authConfigError(a, "the user contains a control character")
	}
	return nil
}

func (a *basicAuth) String() string             { return fmt.Sprintf("kit.Basic(%q, REDACTED)", a.user) }
func (a *basicAuth) Format(f fmt.State, _ rune) { formatRedacted(f, a.String()) }
func (a *basicAuth) LogValue() slog.Value       { return slog.StringValue(a.String()) }

type apiKeyAuth struct {
	header string // canonical
	value  string
}

func (a *apiKeyAuth) Authenticate(req *http.Request) error {
	if err := a.checkAuth(); err != nil {
		return err
	}
	req.Header[a.header] = []string{a.value}
	return nil
}

func (a *apiKeyAuth) staticHeader() (string, string) { return a.header, a.value }

func (a *apiKeyAuth) checkAuth() error {
	switch {
	case !httpsyntax.IsToken(a.header):
		return authConfigError(a, "header name %q is not an HTTP token", a.header)
	case httpsyntax.HasControl(a.value):
		return authConfigError(a, "the value contains a control character")
	}
	return nil
}

func (a *apiKeyAuth) String() string             { return fmt.Sprintf("kit.APIKey(%q, REDACTED)", a.header) }
func (a *apiKeyAuth) Format(f fmt.State, _ rune) { formatRedacted(f, a.String()) }
func (a *apiKeyAuth) LogValue() slog.Value       { return slog.StringValue(a.String()) }

type apiKeyQueryAuth struct {
	param string
	value string
}

func (a *apiKeyQueryAuth) Authenticate(req *http.Request) error {
	if err := a.checkAuth(); err != nil {
		return err
	}
	q := req.URL.Query()
	q.Set(a.param, a.value)
	req.URL.RawQuery = q.Encode()
	return nil
}

func (a *apiKeyQueryAuth) checkAuth() error {
	if a.param == "" {
		return authConfigError(a, "empty parameter name")
	}
	return nil
}

func (a *apiKeyQueryAuth) String() string {
	return fmt.Sprintf("kit.APIKeyQuery(%q, REDACTED)", a.param)
}
func (a *apiKeyQueryAuth) Format(f fmt.State, _ rune) { formatRedacted(f, a.String()) }
func (a *apiKeyQueryAuth) LogValue() slog.Value       { return slog.StringValue(a.String()) }

// staticHeaderAuth is implemented by the built-in auths whose credential is
// one header with a fixed value (Bearer, Basic, APIKey): the auth layer
// sets it itself, without calling Authenticate. Its key is canonical, and
// checkAuth has passed (WithAuth checks it) for the value.
type staticHeaderAuth interface {
	staticHeader() (key, value string)
}

// staticCredential is a staticHeaderAuth's header, worked out once per
// client.
type staticCredential struct {
	key, value string
	// rec is the authRecord of a request that did not have the header
	// before: on a redirect to another origin, the header is deleted.
	rec *authRecord
}

// The auth layer of the send chain.

// authLayer adds the client's credentials to every attempt of a call that
// uses auth, when the request is on the base URL's origin, and handles a
// 401: when the Auth is a Refresher, it renews the credentials once and
// sends the request again, once. The resend is not a retry attempt. It
// holds the client's Auth, the origin rule, the client's secrets (a query
// parameter an Auth adds becomes one) and the observer's TokenRenewal
// hook; the identity of its credentials, which the cache keys by, is its
// own too (see cache_identity.go).
type authLayer struct {
	auth      Auth
	home      homeOrigin
	secrets   *secrets
	onRenewal func(context.Context, TokenRenewalInfo) // Observer.TokenRenewal; nil: none

	fixedID     string       // the cache identity of fixed credentials; "": none
	lastTokenID lastTokenIDs // the cache identity of the last token seen
}

// newAuthLayer returns the auth layer of a; nil for a nil a.
func newAuthLayer(a Auth, home homeOrigin, sec *secrets, onRenewal func(context.Context, TokenRenewalInfo)) *authLayer {
	if a == nil {
		return nil
	}
	return &authLayer{auth: a, home: home, secrets: sec, onRenewal: onRenewal, fixedID: fixedIdentity(a)}
}

// wrap returns the layer on top of next.
func (l *authLayer) wrap(next Sender) Sender {
	if sa, ok := l.auth.(staticHeaderAuth); ok {
		key, value := sa.staticHeader()
		sc := &staticCredential{key: key, value: value, rec: &authRecord{origin: l.home.base, header: []headerWas{{key, nil}}}}
		return func(ctx context.Context, req *Request) (*Response, error) {
			if req.policy.noAuth || !l.home.contains(req.URL) {
				return next(withoutAuthRecord(ctx), req)
			}
			a, actx := l.addStaticCredential(ctx, sc, req)
			return next(actx, a)
		}
	}
	ref, canRefresh := l.auth.(Refresher)
	return func(ctx context.Context, req *Request) (*Response, error) {
		if req.URL == nil {
			return nil, finalError{errorf(l.secrets.opOf(req), "%w", errNilURL)}
		}
		if req.policy.noAuth || !l.home.contains(req.URL) {
			return next(withoutAuthRecord(ctx), req)
		}
		var start time.Time
		if l.onRenewal != nil {
			start = time.Now()
		}
		a, actx, gen, led, err := l.authenticate(ctx, req)
		if led {
			l.observeRenewal(ctx, req, false, start, err)
		}
		if err != nil {
			return nil, err
		}
		resp, err := next(actx, a)
		if !canRefresh || !l.is401(err) || (req.call != nil && req.call.refreshed) {
			return resp, err // once per call, across retries
		}
		if req.call != nil {
			req.call.refreshed = true
		}
		if l.onRenewal != nil {
			start = time.Now()
		}
		renewed, err := refreshAfter401(ctx, ref, gen)
		if renewed {
			l.observeRenewal(ctx, req, true, start, err)
		}
		if err != nil {
			return nil, finalError{errorf(l.secrets.opOf(req), "got 401, refreshing credentials: %w", err)}
		}
		a, actx, _, _, err = l.authenticate(ctx, req)
		if err != nil {
			return nil, err
		}
		return next(actx, a)
	}
}

// observeRenewal reports a renewal of credentials that began at start.
func (l *authLayer) observeRenewal(ctx context.Context, req *Request, after401 bool, start time.Time, err error) {
	if l.onRenewal != nil {
		l.onRenewal(ctx, TokenRenewalInfo{Request: req, After401: after401, Duration: time.Since(start), Err: err})
	}
}

// authenticate returns a copy of req with the client's credentials, and a
// context that records what they are for the redirect guard. gen is the
// token generation used (a *TokenSourceAuth's; 0 for other auths); led is
// true when this call fetched it (a *TokenSourceAuth's first token or the
// renewal of an expired one), also when the fetch failed.
func (l *authLayer) authenticate(ctx context.Context, req *Request) (_ *Request, _ context.Context, gen uint64, led bool, _ error) {
	a := req.clone()
	hr, err := http.NewRequestWithContext(ctx, a.Method, "", nil)
	if err == nil {
		hr.URL, hr.Header, hr.Host = a.URL, a.Header, a.URL.Host
		if ts, ok := l.auth.(*TokenSourceAuth); ok {
			gen, led, err = ts.authenticate(hr)
			if err == nil {
				a.URL, a.Header = hr.URL, hr.Header
				return a, context.WithValue(ctx, authRecordKey{}, l.record(req.Header, req.URL.RawQuery, hr)), gen, led, nil
			}
		} else {
			err = l.auth.Authenticate(hr)
		}
	}
	if err != nil {
		// The request's URL stays out of the text: the Auth may have put
		// a credential in it already.
		return nil, nil, 0, led, finalError{errorf(l.secrets.opOf(req), "adding credentials: %w", err)}
	}
	a.URL, a.Header = hr.URL, hr.Header
	return a, context.WithValue(ctx, authRecordKey{}, l.record(req.Header, req.URL.RawQuery, hr)), 0, false, nil
}

// addStaticCredential is authenticate for a staticHeaderAuth: it sets the
// header on the attempt's own copy of req (see Request.own), or on a copy
// when req is not one, and records it as authenticate does. The header's
// value is the copy's own slice, so an attempt interceptor that writes into
// it changes nothing else; the context with the record is the copy's too
// (see authContext): no allocation beyond the copy.
func (l *authLayer) addStaticCredential(ctx context.Context, sc *staticCredential, req *Request) (*Request, context.Context) {
	c := req.own
	if c == nil {
		c = req.copyOf()
	}
	a := &c.req
	a.own = nil
	old, had := a.Header[sc.key]
	c.authVal[0] = sc.value
	a.Header[sc.key] = c.authVal[:1:1]
	c.authCtx = authContext{ctx, sc.rec}
	if had {
		// Rare: the request had the header already (a header parameter, or
		// WithHeader). Record its values, as authenticate does.
		c.authCtx.rec = &authRecord{origin: l.home.base}
		if len(old) != 1 || old[0] != sc.value {
			c.authCtx.rec.header = []headerWas{{sc.key, old}}
		}
	}
	return a, &c.authCtx
}

// is401 reports whether err is a 401 from the base URL's origin (not from
// where a redirect led, which got no credentials).
func (l *authLayer) is401(err error) bool {
	var he *HTTPError
	return errors.As(err, &he) && he.StatusCode == http.StatusUnauthorized &&
		(he.finalURL == nil || l.home.contains(he.finalURL))
}

// staleRefresher is implemented by *TokenSourceAuth: after a 401 it renews
// the token only if the request used the current one.
type staleRefresher interface {
	Refresher
	refreshIfStale(ctx context.Context, usedGen uint64) (bool, error)
}

// refreshAfter401 renews the credentials of ref after a 401 to a request
// sent with token generation gen (0: not a *TokenSourceAuth's).
func refreshAfter401(ctx context.Context, ref Refresher, gen uint64) (renewed bool, err error) {
	if sr, ok := ref.(staleRefresher); ok && gen != 0 {
		return sr.refreshIfStale(ctx, gen)
	}
	return true, ref.Refresh(ctx)
}

type noAuthOption struct{}

func (noAuthOption) applyEndpoint(c *endpointConfig) { c.noAuth = true }
func (noAuthOption) String() string                  { return "kit.NoAuth()" }
