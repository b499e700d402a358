package kit

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Sentinel errors. Match them with errors.Is; the errors kit returns wrap them
// with what was attempted.
var (
	// ErrNoPath is returned by CRUD methods and iteration of a resource whose
	// path is empty. Nothing is sent.
	ErrNoPath = errors.New("kit: resource has no path")

	// ErrEngineProtocol is matched by an *EngineError: the binding's engine
	// lacks the protocol (Engine or AsyncEngine) that the call needs.
	ErrEngineProtocol = errors.New("kit: engine lacks the protocol this call needs")

	// ErrClosed is returned by calls made through a client after it was closed.
	ErrClosed = errors.New("kit: client is closed")

	// ErrNotModel is returned where a data model (a struct, a pointer to one,
	// or a slice of them) is required and another value, such as a map, was
	// given. A map is never a request body.
	ErrNotModel = errors.New("kit: value is not a data model")

	// ErrBodyTooLarge is returned when a response body exceeds the client's
	// limit (see WithMaxBodySize). The body is not read past the limit.
	ErrBodyTooLarge = errors.New("kit: response body too large")

	// ErrTooManyRedirects is returned when the default engine (or a client
	// given with WithHTTPClient whose CheckRedirect is nil) has followed 10
	// redirects: a redirect loop ends with it instead of hanging.
	ErrTooManyRedirects = errors.New("kit: stopped after 10 redirects")

	// ErrNilBinding is returned when a call is made through a nil Binding.
	ErrNilBinding = errors.New("kit: nil binding")
)

// HTTPError is returned for a response whose status is not 2xx, whatever the
// endpoint's result type. Body holds at most MaxErrorBodySize bytes of the
// response body.
type HTTPError struct {
	Method     string
	URL        string // secret-looking query values are redacted
	StatusCode int
	Header     http.Header
	Body       []byte
}

// MaxErrorBodySize is how many bytes of a non-2xx response body an HTTPError
// keeps. The rest is discarded (a small remainder is drained so the
// connection can be reused).
const MaxErrorBodySize = 64 << 10

// Error reports the method, URL, status and the start of the body.
func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kit: %s %s: %d %s", e.Method, e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if snippet := bodySnippet(e.Body); snippet != "" {
		b.WriteString(": ")
		b.WriteString(snippet)
	}
	return b.String()
}

// DecodeError is returned when a 2xx response body cannot be decoded into the
// result type.
type DecodeError struct {
	Method      string
	URL         string
	ContentType string // the response's Content-Type
	Want        string // the Go type the body was decoded into
	Offset      int64  // byte offset in the body where decoding failed, when known
	Err         error
}

// Error reports what was decoded into what, where, and why it failed.
func (e *DecodeError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "no content type"
	}
	return fmt.Sprintf("kit: %s %s: decoding %s response into %s at byte %d: %v",
		e.Method, e.URL, ct, e.Want, e.Offset, e.Err)
}

// Unwrap returns the underlying decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// DeclarationError reports a mistake in an endpoint declaration: a
// placeholder with no field, two body fields, an unusable parameter type, a
// bad method. Get, Post, Put, Delete and Patch panic with it; NewEndpoint
// returns it.
type DeclarationError struct {
	Method string
	Path   string
	Reason string
}

// Error reports the declaration and what is wrong with it.
func (e *DeclarationError) Error() string {
	return fmt.Sprintf("kit: bad endpoint declaration %s %s: %s", e.Method, e.Path, e.Reason)
}

// EngineError is returned when a call needs a protocol that the binding's
// engine lacks: Call needs kit.Engine, Go needs kit.AsyncEngine. Nothing is
// sent. It matches ErrEngineProtocol.
type EngineError struct {
	Engine   string // the engine's Go type
	Lacks    string // "kit.Engine" or "kit.AsyncEngine"
	Endpoint string // "GET /users/{id}"
}

// Error names the endpoint, the engine and the missing protocol.
func (e *EngineError) Error() string {
	return fmt.Sprintf("kit: %s: engine %s does not implement %s", e.Endpoint, e.Engine, e.Lacks)
}

// Unwrap returns ErrEngineProtocol.
func (e *EngineError) Unwrap() error { return ErrEngineProtocol }

// Private implementation past this point.

// bodySnippet renders the first part of an error body on one line.
func bodySnippet(body []byte) string {
	const max = 200
	s := string(body)
	if len(s) > max {
		s = s[:max] + "…"
	}
	s = strings.Join(strings.Fields(s), " ")
	return strings.ToValidUTF8(s, "�")
}

// secretParams are query parameter names whose values never appear in error
// text. Matching is case-insensitive and also catches names that contain
// one of the words (x_api_key, client_secret, ...).
var secretWords = []string{"token", "key", "secret", "password", "passwd", "pwd", "pass", "auth", "jwt", "bearer", "signature", "sig", "credential", "session", "code"}

// redactURL returns u as text with userinfo and secret-looking query values
// replaced by "REDACTED".
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	if u.User == nil && u.RawQuery == "" {
		return u.String()
	}
	c := *u
	if c.User != nil {
		c.User = url.User("REDACTED")
	}
	if c.RawQuery != "" {
		q, err := url.ParseQuery(c.RawQuery)
		if err != nil {
			c.RawQuery = "REDACTED"
		} else {
			changed := false
			for k, vs := range q {
				if isSecretName(k) {
					for i := range vs {
						vs[i] = "REDACTED"
					}
					changed = true
				}
			}
			if changed {
				c.RawQuery = q.Encode()
			}
		}
	}
	return c.String()
}

func isSecretName(name string) bool {
	n := strings.ToLower(name)
	if isRegisteredSecretParam(n) { // added by an Auth (see APIKeyQuery)
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
