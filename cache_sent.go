package kit

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Private implementation past this point.
//
// cache_sent.go keeps the cache's key honest about what is added below it.
// The key covers the credentials the cache layer can foresee (see
// cacheIdentity): the request's own, the client's Auth's, and the cookies
// the engine's jar holds for the URL. Anything below the auth layer (an
// attempt interceptor, the engine) may add or change more; the sent check,
// just above the attempt interceptors, compares what was finally sent (the
// response's Request, after the engine added the jar's cookies to it) with
// what it foresaw, and marks a response to a request that went out with
// other credentials, or to another URL, so that the cache does not keep
// it: under the key the cache layer worked out, it would be served to
// clients that do not hold those credentials.

// sentCheckLayer is the sent check of a chain whose engine has jar (nil:
// none, or one kit cannot see).
func sentCheckLayer(next Sender, jar http.CookieJar) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		if req.Method != http.MethodGet || req.policy.stream || req.URL == nil {
			return next(ctx, req)
		}
		u := *req.URL // the value: an interceptor may change it in place
		creds := foreseenCredentials(req.Header, jar, &u)
		resp, err := next(ctx, req)
		if err == nil && !sentAsForeseen(resp.Request, &u, creds) {
			resp.unforeseen = true
		}
		return resp, err
	}
}

// foreseenCredentials is the text of the credential headers a request
// with header h to u goes out with: h's, with the cookies jar holds for u
// added as net/http's Client adds them.
func foreseenCredentials(h http.Header, jar http.CookieJar, u *url.URL) string {
	if jar != nil {
		if cookies := jar.Cookies(u); len(cookies) > 0 {
			h = maps.Clone(h)
			if h == nil {
				h = make(http.Header, 1)
			}
			h["Cookie"] = slices.Clone(h["Cookie"])
			r := http.Request{Header: h}
			for _, c := range cookies {
				r.AddCookie(c)
			}
		}
	}
	return headerIdentity(h)
}

// sentAsForeseen reports whether sent, the request a response came back
// for, went to u with the credential headers creds (foreseenCredentials).
// A response without its request (one an interceptor made) is not.
func sentAsForeseen(sent *http.Request, u *url.URL, creds string) bool {
	if sent == nil || sent.URL == nil || *sent.URL != *u {
		return false
	}
	return headerIdentity(sent.Header) == creds
}

// jarOf returns the cookie jar of an engine kit knows (an *http.Client, or
// kit's own async engine), nil for any other.
func jarOf(engine any) http.CookieJar {
	switch e := engine.(type) {
	case *http.Client:
		return e.Jar
	case *asyncEngine:
		return e.hc.Jar
	}
	return nil
}

// jarIdentity is the text of the cookies jar holds for u, "" for none.
func jarIdentity(jar http.CookieJar, u *url.URL) string {
	if jar == nil {
		return ""
	}
	cookies := jar.Cookies(u)
	if len(cookies) == 0 {
		return ""
	}
	var b strings.Builder
	for _, c := range cookies {
		b.WriteString(c.Name)
		b.WriteByte('=')
		b.WriteString(c.Value)
		b.WriteByte(0)
	}
	return b.String()
}
