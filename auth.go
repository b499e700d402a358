package kit

import (
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Auth adds credentials to a request. kit calls Authenticate on each
// request it builds for a call that uses auth (endpoints declared with NoAuth
// never do), only for requests to the client's base URL origin, and on
// every attempt (a request resent after a 401 is authenticated again). The
// request is kit's own: Authenticate may set headers and query parameters on
// it. Its context is the call's context.
//
// Credentials stay on the base URL's origin. When the engine is kit's
// default *http.Client, or one given with WithHTTPClient, and a response
// redirects to another origin (another scheme, host or port), every header
// that Authenticate added or changed and every query parameter it added are
// removed from the redirected request (and from its Referer). An engine
// given with WithEngine follows, or refuses, redirects itself and is
// responsible for doing the same.
//
// Implementations must be safe for concurrent use. Bearer, Basic, APIKey,
// APIKeyQuery and TokenAuth are the built-in ones, all safe for concurrent
// use; printing them (fmt, any verb, or log/slog) and every error they
// return leave the secret out.
type Auth interface {
	Authenticate(req *http.Request) error
}

// Refresher is an Auth whose credentials can be renewed. When a call that
// uses auth gets a 401 from the base URL's origin and the client's Auth is a
// Refresher, kit calls Refresh once and sends the request again, once; a
// second 401 is returned as an *HTTPError. Implementations must be safe for
// concurrent use, and concurrent 401s should share one renewal, as
// *TokenSourceAuth does.
type Refresher interface {
	Refresh(ctx context.Context) error
}

// Bearer returns an Auth that sends "Authorization: Bearer <token>". An empty
// token, or one with a control character (a trailing newline), is an error
// from NewClient (and from Authenticate), so that an unset environment
// variable or a badly read file is caught at start.
func Bearer(token string) Auth {
	return &bearerAuth{value: "Bearer " + token, empty: token == ""}
}

// Basic returns an Auth that sends HTTP Basic credentials (RFC 7617):
// "Authorization: Basic base64(user:password)". A user containing ':' is an
// error from NewClient (and from Authenticate).
func Basic(user, password string) Auth {
	return &basicAuth{
		user:  user,
		value: "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password)),
	}
}

// APIKey returns an Auth that sets the request header named header to value,
// replacing any value it had, e.g. APIKey("X-API-Key", key). A header name
// that is not an HTTP token, or a value with a line break or another control
// character, is an error from NewClient (and from Authenticate).
func APIKey(header, value string) Auth {
	return &apiKeyAuth{header: http.CanonicalHeaderKey(header), value: value}
}

// APIKeyQuery returns an Auth that sets the query parameter param to value,
// replacing any value it had, e.g. APIKeyQuery("api_key", key). Prefer a
// header where the API accepts one: URLs end up in server and proxy logs.
// kit never puts the value in error text (the parameter's values are
// redacted from every URL kit reports, whatever its name), and the
// parameter does not follow a redirect to another origin. An empty param is
// an error from NewClient (and from Authenticate).
func APIKeyQuery(param, value string) Auth {
	registerSecretParam(param)
	return &apiKeyQueryAuth{param: param, value: value}
}

// Private implementation past this point.

// authConfigError reports a bad auth configuration; NewClient returns it
// through WithAuth.
func authConfigError(a fmt.Stringer, format string, args ...any) error {
	return fmt.Errorf("kit: %v: %s", a, fmt.Sprintf(format, args...))
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

func (a *bearerAuth) checkAuth() error {
	switch {
	case a.empty:
		return authConfigError(a, "empty token")
	case hasControl(a.value):
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

func (a *basicAuth) checkAuth() error {
	switch {
	case strings.Contains(a.user, ":"):
		return authConfigError(a, "the user contains ':' (RFC 7617)")
	case hasControl(a.user):
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

func (a *apiKeyAuth) checkAuth() error {
	switch {
	case !isToken(a.header):
		return authConfigError(a, "header name %q is not an HTTP token", a.header)
	case hasControl(a.value):
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

// hasControl reports whether s has a byte that may not appear in a header
// value: a control character other than tab.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return true
		}
	}
	return false
}

// Secret query parameters. The names of query parameters that an Auth adds
// (APIKeyQuery's, and any an Auth is seen adding) are registered here so
// that redactURL hides their values in every URL kit reports, including
// next-page links that echo them back. The set only grows, and is bounded.

const maxSecretParams = 256

var (
	secretParams     sync.Map // lower-case name → struct{}
	secretParamCount atomic.Int32
)

// registerSecretParam adds name to the set of secret parameter names.
func registerSecretParam(name string) {
	n := strings.ToLower(name)
	if n == "" || isRegisteredSecretParam(n) || secretParamCount.Load() >= maxSecretParams {
		return
	}
	if _, loaded := secretParams.LoadOrStore(n, struct{}{}); !loaded {
		secretParamCount.Add(1)
	}
}

// isRegisteredSecretParam reports whether the lower-case name was
// registered by registerSecretParam.
func isRegisteredSecretParam(lowerName string) bool {
	_, ok := secretParams.Load(lowerName)
	return ok
}

// An authRecord is kept in the context of each request that kit
// authenticated: what Authenticate added, so that a redirect to another
// origin can take it off again, and the token generation it used, so that a
// 401 refreshes only a token that is still current. newHTTPRequest puts it
// in the context of every request of a call that uses auth; it is active
// once Authenticate is called (never, for a request to another origin).
type authRecord struct {
	active bool
	origin *url.URL    // the base URL: the only origin credentials go to
	header []headerWas // headers Authenticate added or changed
	query  [][2]string // query parameters Authenticate added: name, value
	gen    uint64      // token generation used (TokenSourceAuth); 0: none
}

// headerWas is a header's values before Authenticate (nil: absent).
type headerWas struct {
	key string
	old []string
}

type authRecordKey struct{}

// authRecordFrom returns the record of the request whose context is ctx, or
// nil when kit did not authenticate that request.
func authRecordFrom(ctx context.Context) *authRecord {
	if rec, _ := ctx.Value(authRecordKey{}).(*authRecord); rec != nil && rec.active {
		return rec
	}
	return nil
}

// authenticate applies st.auth to req, a request kit just built whose
// context holds rec, and records in rec what the auth added.
func (st *clientState) authenticate(req *http.Request, rec *authRecord) error {
	rec.active = true
	before := req.Header.Clone()
	rawQuery := req.URL.RawQuery
	if err := st.auth.Authenticate(req); err != nil {
		rec.active = false
		req.URL.RawQuery = rawQuery // keep a credential out of the error text
		return err
	}
	for k, vs := range req.Header {
		if old, ok := before[k]; !ok || !slices.Equal(old, vs) {
			rec.header = append(rec.header, headerWas{k, old})
		}
	}
	if req.URL.RawQuery != rawQuery {
		rec.query = addedParams(rawQuery, req.URL.RawQuery)
		for _, p := range rec.query {
			registerSecretParam(p[0])
		}
	}
	return nil
}

// addedParams returns the name-value pairs of query after that are not in
// query before.
func addedParams(before, after string) [][2]string {
	b, _ := url.ParseQuery(before)
	a, _ := url.ParseQuery(after)
	var added [][2]string
	for k, vs := range a {
		for _, v := range vs {
			if !slices.Contains(b[k], v) {
				added = append(added, [2]string{k, v})
			}
		}
	}
	return added
}

// withoutAuthRecord hides an authRecord that ctx inherited from an
// enclosing request (a token fetch calling a login endpoint runs under the
// context of the call that started it): the request built with it was not
// authenticated.
func withoutAuthRecord(ctx context.Context) context.Context {
	if authRecordFrom(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, authRecordKey{}, (*authRecord)(nil))
}

// stripCredentialsOnRedirect removes, from a redirected request going to
// another origin than the base URL's, what Authenticate added to the
// original request: headers it added are deleted, headers it changed get
// their earlier values back (when net/http has not already dropped them),
// query parameters it added are removed from the URL and the Referer. It is
// part of the CheckRedirect of kit's default *http.Client and of the copy
// kit makes of one given with WithHTTPClient.
func stripCredentialsOnRedirect(req *http.Request) {
	rec := authRecordFrom(req.Context())
	if rec == nil || sameOrigin(req.URL, rec.origin) {
		return
	}
	for _, h := range rec.header {
		if _, ok := req.Header[h.key]; !ok {
			continue
		}
		if h.old == nil {
			delete(req.Header, h.key)
		} else {
			req.Header[h.key] = slices.Clone(h.old)
		}
	}
	if len(rec.query) == 0 {
		return
	}
	if q, ok := removeParams(req.URL.RawQuery, rec.query); ok {
		req.URL.RawQuery = q
		req.URL.ForceQuery = false
	}
	if ref := req.Header.Get("Referer"); ref != "" {
		if u, err := url.Parse(ref); err != nil {
			req.Header.Del("Referer")
		} else if q, ok := removeParams(u.RawQuery, rec.query); ok {
			u.RawQuery = q
			req.Header.Set("Referer", u.String())
		}
	}
}

// removeParams removes the name-value pairs from a raw query. ok reports
// whether it changed.
func removeParams(rawQuery string, pairs [][2]string) (string, bool) {
	if rawQuery == "" {
		return rawQuery, false
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		// Unparsable: drop it if it might hold a credential.
		for _, p := range pairs {
			if strings.Contains(rawQuery, p[1]) || strings.Contains(rawQuery, url.QueryEscape(p[1])) {
				return "", true
			}
		}
		return rawQuery, false
	}
	changed := false
	for _, p := range pairs {
		vs, ok := q[p[0]]
		if !ok {
			continue
		}
		n := len(vs)
		kept := slices.DeleteFunc(vs, func(v string) bool { return v == p[1] })
		if len(kept) != n {
			changed = true
		}
		if len(kept) == 0 {
			delete(q, p[0])
		} else {
			q[p[0]] = kept
		}
	}
	if !changed {
		return rawQuery, false
	}
	return q.Encode(), true
}

// redirectGuard wraps a CheckRedirect policy (nil: net/http's default, at
// most 10 redirects) so that credentials are stripped before it runs.
func redirectGuard(next func(req *http.Request, via []*http.Request) error) func(req *http.Request, via []*http.Request) error {
	if next == nil {
		next = checkRedirect
	}
	return func(req *http.Request, via []*http.Request) error {
		stripCredentialsOnRedirect(req)
		return next(req, via)
	}
}

// guardHTTPClient returns a shallow copy of hc whose CheckRedirect strips
// credentials on a redirect to another origin. hc itself is not modified.
func guardHTTPClient(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = redirectGuard(hc.CheckRedirect)
	return &c
}

// staleRefresher is implemented by *TokenSourceAuth: after a 401 it renews
// the token only if the request used the current one.
type staleRefresher interface {
	Refresher
	refreshIfStale(ctx context.Context, usedGen uint64) error
}

// refreshAfter401 renews the credentials of ref after a 401 to the request
// described by rec.
func refreshAfter401(ctx context.Context, ref Refresher, rec *authRecord) error {
	if sr, ok := ref.(staleRefresher); ok && rec.gen != 0 {
		return sr.refreshIfStale(ctx, rec.gen)
	}
	return ref.Refresh(ctx)
}
