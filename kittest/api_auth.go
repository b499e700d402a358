package kittest

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"mime"
	"net/http"
	"strings"
	"time"
)

// apiToken is the state of an issued access token.
type apiToken struct {
	expires time.Time // zero: no time-based expiry
	uses    int       // authenticated requests made with the token
}

// login handles POST /login. It takes {"username","password"} as JSON or as
// an application/x-www-form-urlencoded form.
func (a *API) login(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.stats.Logins++
	a.mu.Unlock()

	var creds struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, apiMaxBody)
		}
		if err := r.ParseForm(); err != nil {
			apiBadRequest(w, "request body is not a valid form")
			return
		}
		creds.Username, creds.Password = r.PostForm.Get("username"), r.PostForm.Get("password")
	} else {
		body, ok := apiReadJSON(w, r, '{')
		if !ok {
			return
		}
		if err := json.Unmarshal(body, &creds); err != nil {
			apiBadRequest(w, "username and password must be strings")
			return
		}
	}
	userOK := subtle.ConstantTimeCompare([]byte(creds.Username), []byte(a.cfg.username)) == 1
	passOK := subtle.ConstantTimeCompare([]byte(creds.Password), []byte(a.cfg.password)) == 1
	if !userOK || !passOK {
		apiWriteError(w, http.StatusUnauthorized, "invalid_credentials", "wrong username or password")
		return
	}
	a.issueToken(w)
}

// issueToken writes the token response of /login and /oauth/token:
// {"access_token","token_type":"Bearer","expires_in"}.
func (a *API) issueToken(w http.ResponseWriter) {
	var raw [16]byte
	rand.Read(raw[:])
	tok := hex.EncodeToString(raw[:])
	t := &apiToken{}
	resp := struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   *int64 `json:"expires_in,omitempty"`
	}{AccessToken: tok, TokenType: "Bearer"}
	if ttl := a.cfg.tokenTTL; ttl > 0 {
		secs := int64(ttl / time.Second)
		if ttl%time.Second != 0 {
			secs++
		}
		resp.ExpiresIn = &secs
	}
	a.mu.Lock()
	if a.cfg.tokenTTL > 0 {
		t.expires = a.now().Add(a.cfg.tokenTTL)
	}
	a.tokens[tok] = t
	a.mu.Unlock()
	w.Header().Set("Cache-Control", "no-store")
	apiWriteJSON(w, http.StatusOK, resp)
}

// authorize checks the request's bearer token and uses it once. If the
// token is missing or invalid it writes a 401 and returns false.
func (a *API) authorize(w http.ResponseWriter, r *http.Request) bool {
	scheme, tok, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	tok = strings.TrimSpace(tok)
	msg := ""
	a.mu.Lock()
	t := a.tokens[tok]
	switch {
	case !strings.EqualFold(scheme, "Bearer") || tok == "":
		msg = "missing bearer token"
	case t == nil:
		msg = "unknown or revoked token"
	case !t.expires.IsZero() && !a.now().Before(t.expires):
		msg = "token expired"
		delete(a.tokens, tok)
	case a.cfg.tokenUses > 0 && t.uses >= a.cfg.tokenUses:
		msg = "token use limit reached"
		delete(a.tokens, tok)
	default:
		t.uses++
	}
	if msg != "" {
		a.stats.Unauthorized++
	}
	a.mu.Unlock()
	if msg == "" {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	apiWriteError(w, http.StatusUnauthorized, "unauthorized", msg)
	return false
}

// me handles GET /me: the demo account, user 1.
func (a *API) me(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	i, found := a.userIndexLocked(1)
	var u apiUser
	if found {
		u = a.users[i]
	}
	a.mu.Unlock()
	if !found {
		apiNotFound(w, "the demo user (id 1) has been deleted")
		return
	}
	apiWriteJSON(w, http.StatusOK, u)
}

// reports handles GET /private/reports.
func (a *API) reports(w http.ResponseWriter, r *http.Request) {
	type report struct {
		ID    int    `json:"id"`
		Title string `json:"title"`
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Data []report `json:"data"`
	}{[]report{{1, "Q1"}, {2, "Q2"}, {3, "Q3"}}})
}
