// Package kitoauth2 lets a kit client take its tokens from
// golang.org/x/oauth2. It is a module of its own, so that programs using
// kit without OAuth2 do not depend on golang.org/x/oauth2.
//
// Wrap any oauth2.TokenSource:
//
//	ts := conf.TokenSource(ctx, savedToken) // *oauth2.Config, refresh token flow
//	c, err := kit.NewClient(baseURL, kit.WithAuth(kitoauth2.Auth(ts)))
//
// or, better where the flow allows it, call a context-aware token method
// from a kit.TokenAuth fetch function:
//
//	cc := &clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: tokenURL}
//	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
//		t, err := cc.Token(ctx)
//		return kitoauth2.Token(t), err
//	})
//
// kit then caches the token, renews it shortly before it expires and after
// a 401, and shares one renewal among concurrent calls (see
// kit.TokenSourceAuth).
package kitoauth2

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/kithttp/kit"
	"golang.org/x/oauth2"
)

// Auth returns a kit auth whose tokens come from ts: kit.TokenAuth with
// Fetch(ts) as the fetch function, and opts.
//
// Token sources made by oauth2 (Config.TokenSource,
// clientcredentials.Config.TokenSource, ReuseTokenSource) cache their
// token until it expires, so after a 401 the refresh may get the same
// token back; the request is then sent again once with it, and a second
// 401 is returned. Where the server can revoke tokens early, fetch with a
// context-aware call that does not cache, as in the package example.
func Auth(ts oauth2.TokenSource, opts ...kit.TokenOption) *kit.TokenSourceAuth {
	return kit.TokenAuth(Fetch(ts), opts...)
}

// Fetch adapts ts to the fetch function of kit.TokenAuth. Because
// oauth2.TokenSource.Token takes no context, it runs on a goroutine of its
// own: when ctx ends first (kit's fetch timeout), Fetch returns ctx's error
// at once and that goroutine ends when ts.Token returns. A panic of
// ts.Token there is an error matching *kit.PanicError.
func Fetch(ts oauth2.TokenSource) func(ctx context.Context) (kit.Token, error) {
	return func(ctx context.Context) (kit.Token, error) {
		if ts == nil {
			return kit.Token{}, errNilSource
		}
		type result struct {
			tok *oauth2.Token
			err error
		}
		ch := make(chan result, 1)
		go func() {
			var r result
			defer func() {
				if p := recover(); p != nil {
					// As kit reports a panic on a goroutine of its own.
					r = result{nil, fmt.Errorf("kitoauth2: the TokenSource: %w", &kit.PanicError{Value: p, Stack: debug.Stack()})}
				}
				ch <- r
			}()
			r.tok, r.err = ts.Token()
		}()
		select {
		case r := <-ch:
			if r.err != nil {
				return kit.Token{}, r.err
			}
			if r.tok == nil {
				return kit.Token{}, errNilToken
			}
			return Token(r.tok), nil
		case <-ctx.Done():
			return kit.Token{}, ctx.Err()
		}
	}
}

// Token converts an oauth2 token: its access token, its type (as
// oauth2.Token.Type normalises it: "Bearer" when empty) and its expiry. A
// nil token gives the zero kit.Token. The refresh token is not part of a
// kit.Token.
func Token(t *oauth2.Token) kit.Token {
	if t == nil {
		return kit.Token{}
	}
	return kit.Token{Value: t.AccessToken, Type: t.Type(), Expiry: t.Expiry}
}

// Private implementation past this point.

var (
	errNilSource = errors.New("kitoauth2: nil oauth2.TokenSource")
	errNilToken  = errors.New("kitoauth2: the oauth2.TokenSource returned a nil token")
)
