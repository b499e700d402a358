package kit

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kithttp/kit/internal/pathtmpl"
)

// Private implementation past this point.
//
// redact.go keeps secrets out of what kit reports. Query parameters whose
// names look secret, and the names of query parameters that an Auth adds
// (APIKeyQuery's, and any an Auth is seen adding), have their values
// replaced by "REDACTED" in every URL kit reports: errors and logs,
// including next-page links that echo them back; observers also get
// secret-looking path parameters redacted.

// secretWords make a query parameter's value secret when its name contains
// one of them (x_api_key, client_secret, ...), case-insensitively.
var secretWords = []string{"token", "key", "secret", "password", "passwd", "pwd", "pass", "auth", "jwt", "bearer", "signature", "sig", "credential", "session", "code"}

// maxSecretNames bounds the names one client remembers.
const maxSecretNames = 1024

// secrets is what one client keeps out of the URLs it reports: the names
// of the query parameters its Auth adds (APIKeyQuery's, and any a custom
// Auth is seen adding), beside the secret-looking names every client
// redacts. A client that has seen more than maxSecretNames such names
// redacts every query value from then on, so the bound never lets a secret
// through. It also knows the header of the client's APIKey auth, whose
// values dumps and curl commands hide. The zero value and a nil *secrets
// redact by name only. Safe for concurrent use.
type secrets struct {
	names        sync.Map // lower-case name → struct{}
	count        atomic.Int32
	all          atomic.Bool
	apiKeyHeader string // the header of an APIKey auth (set when the client is made): a credential
}

// add records name as secret.
func (s *secrets) add(name string) {
	n := strings.ToLower(name)
	if n == "" || s.has(n) {
		return
	}
	if s.count.Add(1) > maxSecretNames {
		s.all.Store(true)
		return
	}
	s.names.Store(n, struct{}{})
}

// has reports whether the lower-case name was added.
func (s *secrets) has(lowerName string) bool {
	_, ok := s.names.Load(lowerName)
	return ok
}

// isSecret reports whether the values of the query parameter name are
// redacted.
func (s *secrets) isSecret(name string) bool {
	n := strings.ToLower(name)
	if s != nil && (s.all.Load() || s.has(n)) {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// redactor turns URLs into text for whatever kit reports: error texts,
// HTTPError.URL and DecodeError.URL, log records, observer events. It is
// the only way kit reports a URL: user info, the values of secret query
// parameters, and the path segments that a secret-looking path parameter
// fills ({token}, and every segment of a {token...}) are replaced by
// "REDACTED". The zero value redacts by name only.
type redactor struct {
	secrets *secrets // the client's; nil: by name only
	// path holds the runs of whole path segments that secret path
	// parameters filled when kit built the URL (see
	// pathtmpl.ExpandSecrets), escaped; nil when none did.
	path []string
}

// isSecretName reports whether a path or query parameter's name looks
// secret ({token}, api_key, ...): its value is redacted in every client.
func isSecretName(name string) bool { return (*secrets)(nil).isSecret(name) }

// hasSecretPlaceholder reports whether a placeholder of t has a
// secret-looking name.
func hasSecretPlaceholder(t *pathtmpl.Template) bool {
	return slices.ContainsFunc(t.Placeholders, isSecretName)
}

// redactURL returns u as text with userinfo and secret query values
// replaced by "REDACTED", by name only (for URLs that belong to no client
// yet, such as a base URL being checked).
func redactURL(u *url.URL) string { return redactor{}.url(u) }

// url returns u as text, redacted.
func (r redactor) url(u *url.URL) string {
	if u == nil {
		return ""
	}
	if len(r.path) > 0 {
		if p, ok := redactRuns(u.EscapedPath(), r.path); ok {
			c := *u
			c.RawPath = p
			c.Path, _ = url.PathUnescape(p)
			u = &c
		}
	}
	return r.secrets.redact(u)
}

// op is what a request to u with method attempts, for error text:
// "GET https://h/users?api_key=REDACTED".
func (r redactor) op(method string, u *url.URL) string {
	if u == nil {
		return method + " <no URL>"
	}
	return method + " " + r.url(u)
}

// text redacts a URL given as text.
func (r redactor) text(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return strconv.Quote("<unparsable URL>")
	}
	return r.url(u)
}

// redactorOf is the redactor of the URLs of req (nil: of a URL that no
// request of this client built).
func (st *clientState) redactorOf(req *Request) redactor { return st.secrets.redactorOf(req) }

// opOf is what req attempts, for error text: its method and redacted URL.
func (st *clientState) opOf(req *Request) string { return st.secrets.opOf(req) }

// secretHeader reports whether the values of the header k (canonical) are
// redacted in dumps and curl commands. A nil s knows no APIKey header.
func (s *secrets) secretHeader(k string) bool {
	if k == "Set-Cookie" || isCredentialName(k) {
		return true
	}
	return s != nil && s.apiKeyHeader != "" && k == http.CanonicalHeaderKey(s.apiKeyHeader)
}

// redactorOf is the redactor of the URLs of req, a request of the client
// whose secrets s are (nil req: of a URL that no request of it built). The
// layers of the send chain hold s, the one thing of the client they share.
func (s *secrets) redactorOf(req *Request) redactor {
	r := redactor{secrets: s}
	if req != nil {
		r.path = req.secretPath
	}
	return r
}

// opOf is what req attempts, for error text: its method and redacted URL.
func (s *secrets) opOf(req *Request) string {
	return s.redactorOf(req).op(req.Method, req.URL)
}

// redact returns u as text with userinfo and secret query values replaced
// by "REDACTED". Only redactor calls it: it leaves the path alone.
func (s *secrets) redact(u *url.URL) string {
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
				if s.isSecret(k) {
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

// redactRuns returns the escaped path p with every occurrence of each run
// (one or more whole segments, without the slashes around them) replaced
// by the one segment "REDACTED", and whether it changed anything.
func redactRuns(p string, runs []string) (string, bool) {
	changed := false
	for _, run := range runs {
		if run == "" {
			continue
		}
		var b strings.Builder
		rest := p
		for {
			i := strings.Index(rest, "/"+run)
			if i < 0 {
				break
			}
			end := i + 1 + len(run)
			if end < len(rest) && rest[end] != '/' {
				// Not a whole segment: go on after this '/'.
				b.WriteString(rest[:i+1])
				rest = rest[i+1:]
				continue
			}
			b.WriteString(rest[:i])
			b.WriteString("/REDACTED")
			rest = rest[end:]
			changed = true
		}
		if b.Len() > 0 {
			b.WriteString(rest)
			p = b.String()
		}
	}
	return p, changed
}

// redactPath returns the escaped path p with the segments that fill a
// secret-looking placeholder of template replaced by REDACTED, and whether
// it changed anything: for a Request kit did not build, which carries no
// runs of its own (see redactor). The template's segments are matched
// against the last segments of p (p may start with the base URL's path);
// a placeholder fills part of one segment, as kit escapes its value as
// one, except {name...}, which fills one or more: the segments before the
// first such placeholder are then matched at the first place in p where
// their literals stand, and every segment between the two ends is
// redacted when a placeholder there is secret. The number of segments is
// kept.
func redactPath(template, p string) (string, bool) {
	t, _, _ := strings.Cut(template, "?")
	if i := strings.Index(t, "://"); i >= 0 {
		j := strings.IndexByte(t[i+3:], '/')
		if j < 0 {
			return "", false
		}
		t = t[i+3+j:]
	}
	if !strings.Contains(t, "{") {
		return "", false
	}
	tsegs := strings.Split(strings.Trim(t, "/"), "/")
	psegs := strings.Split(strings.Trim(p, "/"), "/")
	if len(psegs) < len(tsegs) {
		return "", false
	}
	// secretSeg reports whether a template segment holds a secret
	// placeholder, and whether it holds a {name...} one.
	secretSeg := func(seg string) (secret, multi bool) {
		for rest := seg; ; {
			_, after, ok := strings.Cut(rest, "{")
			if !ok {
				return secret, multi
			}
			name, tail, _ := strings.Cut(after, "}")
			name, m := strings.CutSuffix(name, "...")
			multi = multi || m
			secret = secret || isSecretName(name)
			rest = tail
		}
	}
	first, last := -1, -1 // template segments with a {name...}
	for i, seg := range tsegs {
		if _, m := secretSeg(seg); m {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	changed := false
	redact := func(i int) {
		psegs[i] = "REDACTED"
		changed = true
	}
	if first < 0 {
		off := len(psegs) - len(tsegs)
		for i, seg := range tsegs {
			if s, _ := secretSeg(seg); s {
				redact(off + i)
			}
		}
	} else {
		// The tail, after the last {name...}, from the end.
		tail := len(tsegs) - 1 - last
		for i := range tail {
			if s, _ := secretSeg(tsegs[last+1+i]); s {
				redact(len(psegs) - tail + i)
			}
		}
		// The head, before the first {name...}, where its literals first
		// stand with at least one segment left for the middle.
		head := tsegs[:first]
		end := len(psegs) - tail // the middle ends here
		k := -1
		for at := 0; at+len(head) < end && k < 0; at++ {
			k = at
			for i, seg := range head {
				if !strings.Contains(seg, "{") && psegs[at+i] != seg {
					k = -1
					break
				}
			}
		}
		from := 0 // no place for the head: the middle is everything
		if k >= 0 {
			for i, seg := range head {
				if s, _ := secretSeg(seg); s {
					redact(k + i)
				}
			}
			from = k + len(head)
		}
		secretMiddle := false
		for _, seg := range tsegs[first : last+1] {
			if s, _ := secretSeg(seg); s {
				secretMiddle = true
			}
		}
		if secretMiddle {
			for i := from; i < end; i++ {
				redact(i)
			}
		}
	}
	if !changed {
		return "", false
	}
	return "/" + strings.Join(psegs, "/"), true
}
