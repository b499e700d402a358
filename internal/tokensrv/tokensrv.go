// Package tokensrv is the token server of kit's tests: an httptest server
// that accepts only the bearer tokens it holds as valid, and can issue new
// ones at a login path.
package tokensrv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Login configures the login path of a Server.
type Login struct {
	// Path is the login path, as "/api/login".
	Path string
	// User and Password are the only credentials accepted, sent as the JSON
	// body {"user":...,"password":...}.
	User, Password string
	// Prefix starts the tokens issued: the nth is "<Prefix>-<n>".
	Prefix string
}

// Server is an httptest server that checks bearer tokens. A request to the
// login path (when there is one) with the right credentials gets a new valid
// token, as {"access_token":...,"expires_in":3600}, and a 401 otherwise.
// Every other request is counted, passed to Hold (when set), and answered by
// OK when its token (Authorization: Bearer <token>) is valid, by a 401
// otherwise.
type Server struct {
	*httptest.Server
	// Logins counts the successful logins.
	Logins atomic.Int64
	// Requests counts the requests other than logins.
	Requests atomic.Int64
	// Hold, when set (before the first request), is called first with the
	// token each request other than a login presents.
	Hold func(token string)
	// OK answers a request whose token is valid (default: a 204).
	OK http.HandlerFunc

	login    *Login
	mu       sync.Mutex
	valid    map[string]bool
	loginSaw []string
}

// New starts a Server, closed when the test ends, that holds the tokens in
// valid as valid; login, when not nil, configures its login path.
func New(t testing.TB, login *Login, valid ...string) *Server {
	t.Helper()
	s := &Server{login: login, valid: make(map[string]bool)}
	for _, v := range valid {
		s.valid[v] = true
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// serve answers a request.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.login != nil && r.URL.Path == s.login.Path {
		s.serveLogin(w, r)
		return
	}
	s.Requests.Add(1)
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if s.Hold != nil {
		s.Hold(tok)
	}
	if !s.Valid(tok) {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid token"})
		return
	}
	if s.OK != nil {
		s.OK(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// serveLogin answers a login.
func (s *Server) serveLogin(w http.ResponseWriter, r *http.Request) {
	var creds struct{ User, Password string }
	_ = json.NewDecoder(r.Body).Decode(&creds)
	s.mu.Lock()
	s.loginSaw = append(s.loginSaw, r.Header.Get("Authorization"))
	s.mu.Unlock()
	if creds.User != s.login.User || creds.Password != s.login.Password {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "bad login"})
		return
	}
	tok := fmt.Sprintf("%s-%d", s.login.Prefix, s.Logins.Add(1))
	s.Add(tok)
	writeJSON(w, http.StatusOK, map[string]any{"access_token": tok, "expires_in": 3600})
}

// Valid reports whether tok is valid.
func (s *Server) Valid(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.valid[tok]
}

// Add makes tok valid.
func (s *Server) Add(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.valid[tok] = true
}

// RevokeAll makes every token invalid.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.valid)
}

// LoginAuthorizations returns the Authorization headers of the logins so far.
func (s *Server) LoginAuthorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.loginSaw...)
}

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
