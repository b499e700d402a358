package kit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Private implementation past this point.
//
// cache_identity.go keys the cache by who asks: the credentials a request
// would carry, so that no caller is served what another's credentials
// fetched.

// cacheIdentityOf is a hash of the credentials req would carry ("" for
// none): those of the client's Auth (computed once for the built-in fixed
// credentials, from the current token for a TokenAuth, and for any other
// Auth from what it adds to a scratch request), any credential the request
// carries already (an Authorization or Cookie header, or one with a
// secret-looking name, set with WithHeader or a header parameter), the user
// info of its URL, and the cookies jar (the engine's) holds for its URL. A
// caller that has seen that the request has no credential header
// (isCredentialName) says so with headers false. What is added below the
// auth layer is not foreseen here: the sent check (cache_sent.go) keeps
// such responses out of the cache. A client with attempt interceptors
// (which may add credentials to some requests and not others) shares no
// entry with another client: its identity has a random value of its own,
// so that it is never served what a client without its credentials kept.
func (l *cacheLayer) cacheIdentityOf(ctx context.Context, req *Request, headers bool, jar http.CookieJar) (string, error) {
	id, err := l.auth.identity(ctx, req)
	if err != nil {
		return "", err
	}
	if headers {
		if own := headerIdentity(req.Header); own != "" {
			id = identityHash(id + "\x00" + own)
		}
	}
	if req.URL.User != nil {
		id = identityHash(id + "\x00user\x00" + req.URL.User.String())
	}
	if cookies := jarIdentity(jar, req.URL); cookies != "" {
		id = identityHash(id + "\x00jar\x00" + cookies)
	}
	if l.clientID != "" {
		id = identityHash(id + "\x00client\x00" + l.clientID)
	}
	return id, nil
}

// isCredentialName reports whether a request header (canonical) carries
// credentials, for the cache key: Authorization, Proxy-Authorization,
// Cookie, or a secret-looking name.
func isCredentialName(k string) bool {
	switch k {
	case "Accept", "User-Agent", "Content-Type", "Cache-Control", "Accept-Language", "Accept-Encoding", "Pragma":
		return false
	case "Authorization", "Proxy-Authorization", "Cookie":
		return true
	}
	return (*secrets)(nil).isSecret(k)
}

// headerIdentity is the text of the credential headers of h, sorted; ""
// when there are none.
func headerIdentity(h http.Header) string {
	var names []string
	for k := range h {
		if isCredentialName(k) {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(k)
		for _, v := range h[k] {
			b.WriteByte(0)
			b.WriteString(v)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// identity is the identity of the credentials the auth layer l would add
// to req; "" for none (and for a nil l: a client without auth).
func (l *authLayer) identity(ctx context.Context, req *Request) (string, error) {
	if l == nil || req.policy.noAuth || !l.home.contains(req.URL) {
		return "", nil
	}
	if l.fixedID != "" {
		return l.fixedID, nil
	}
	if ts, ok := l.auth.(*TokenSourceAuth); ok {
		var start time.Time
		if l.onRenewal != nil {
			start = time.Now()
		}
		tok, _, led, err := ts.current(ctx)
		if led { // the first token, or a renewal, fetched for the key
			l.observeRenewal(ctx, req, false, start, err)
		}
		if err != nil {
			return "", err
		}
		return l.tokenIdentity(tok), nil
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, "", nil)
	if err != nil {
		return "", err
	}
	u := *req.URL
	u.RawQuery = ""
	hr.URL, hr.Header, hr.Host = &u, make(http.Header), u.Host
	if err := l.auth.Authenticate(hr); err != nil {
		return "", err
	}
	keys := make([]string, 0, len(hr.Header))
	for k := range hr.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k)
		for _, v := range hr.Header[k] {
			b.WriteByte(0)
			b.WriteString(v)
		}
		b.WriteByte('\n')
	}
	b.WriteString(hr.URL.RawQuery)
	return identityHash(b.String()), nil
}

// tokenIdentity is the identity of tok, remembered for the last token seen.
func (l *authLayer) tokenIdentity(tok Token) string {
	if last := l.lastTokenID.Load(); last != nil && last.value == tok.Value && last.typ == tok.typ() {
		return last.id
	}
	id := identityHash(tok.typ() + " " + tok.Value)
	l.lastTokenID.Store(&tokenID{value: tok.Value, typ: tok.typ(), id: id})
	return id
}

type tokenID struct{ value, typ, id string }

// varyValue is the value of the request header name (canonical) that a
// response varying on it is chosen by: the values of h joined, or for a
// credential (isCredentialName) their hash, so that no store holds the
// secret.
func varyValue(h http.Header, name string) string {
	v := strings.Join(h.Values(name), ", ")
	if v != "" && isCredentialName(name) {
		return identityHash(name + "\x00" + v)
	}
	return v
}

// identityHash hashes a credential for a cache key.
func identityHash(secret string) string {
	sum := sha256.Sum256([]byte("kit cache identity\x00" + secret))
	return hex.EncodeToString(sum[:16])
}

// fixedIdentity is the identity of the built-in auths whose credentials
// never change; "" for the others.
func fixedIdentity(a Auth) string {
	switch a := a.(type) {
	case *bearerAuth:
		return identityHash("Authorization\x00" + a.value)
	case *basicAuth:
		return identityHash("Authorization\x00" + a.value)
	case *apiKeyAuth:
		return identityHash(a.header + "\x00" + a.value)
	case *apiKeyQueryAuth:
		return identityHash("?" + a.param + "=" + a.value)
	}
	return ""
}

// lastTokenIDs is the type of clientState.lastTokenID.
type lastTokenIDs = atomic.Pointer[tokenID]
