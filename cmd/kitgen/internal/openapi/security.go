package openapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// securityDecls declares a kit.Option per security scheme of the
// document, named With and the scheme's name: WithBearerAuth(token),
// WithAPIKey(key), WithBasicAuth(user, password). A scheme kit has no
// built-in Auth for (OAuth2, OpenID Connect, an API key in a cookie)
// takes a kit.Auth, and its doc says where one comes from: kitoauth2,
// named in the comment only, so that the package needs no module it does
// not use. Mutual TLS is a transport's, not an Auth's: none.
func (g *generator) securityDecls() string {
	var names []string
	for name := range g.doc.Security {
		names = append(names, name)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, key := range names {
		s := g.doc.Security[key]
		var params, auth, what string
		switch {
		case s.Type == "http" && s.Scheme == "bearer":
			params, auth, what = "token string", "kit.Bearer(token)", "sends token as a bearer token (HTTP bearer)"
		case s.Type == "http" && s.Scheme == "basic":
			params, auth, what = "user, password string", "kit.Basic(user, password)", "sends user and password (HTTP basic)"
		case s.Type == "apiKey" && s.In == "header":
			params, auth, what = "key string", fmt.Sprintf("kit.APIKey(%s, key)", strconv.Quote(s.Param)), fmt.Sprintf("sends key in the header %s", strconv.Quote(s.Param))
		case s.Type == "apiKey" && s.In == "query":
			params, auth, what = "key string", fmt.Sprintf("kit.APIKeyQuery(%s, key)", strconv.Quote(s.Param)), fmt.Sprintf("sends key in the query parameter %s", strconv.Quote(s.Param))
		case s.Type == "apiKey":
			params, auth, what = "auth kit.Auth", "auth", fmt.Sprintf("authenticates with auth: the document sends a key in the %s %s, for which kit has no built-in; auth sets it", s.In, strconv.Quote(s.Param))
		case s.Type == "oauth2" && s.TokenURL != "":
			params, auth, what = "auth kit.Auth", "auth", fmt.Sprintf("authenticates with auth, an OAuth2 token source: for the client credentials flow, kitoauth2.Auth(cc.TokenSource(ctx)) with cc a clientcredentials.Config{TokenURL: %s} (github.com/kithttp/kit/kitoauth2, golang.org/x/oauth2/clientcredentials)", strconv.Quote(s.TokenURL))
		case s.Type == "oauth2" || s.Type == "openIdConnect":
			params, auth, what = "auth kit.Auth", "auth", "authenticates with auth, an OAuth2 token source: kitoauth2.Auth(tokenSource) (github.com/kithttp/kit/kitoauth2)"
		default:
			continue // mutualTLS: a client certificate is the transport's (kit.WithHTTPClient)
		}
		name := g.names.name("With" + exported(key, "Auth"))
		g.secOpts = append(g.secOpts, secOpt{scheme: key, option: name, params: params})
		writeDoc(&b, "", fmt.Sprintf("%s returns the option that %s, as the security scheme %s says.", name, what, strconv.Quote(key)), "")
		fmt.Fprintf(&b, "func %s(%s) kit.Option {\n\treturn kit.WithAuth(%s)\n}\n\n", name, params, auth)
	}
	return b.String()
}

// secOpt is the option securityDecls declared for a scheme, and what it
// takes ("token string", "user, password string", "key string" or
// "auth kit.Auth").
type secOpt struct {
	scheme, option, params string
}
