package kit

import (
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
// through. The zero value and a nil *secrets redact by name only. Safe for
// concurrent use.
type secrets struct {
	names sync.Map // lower-case name → struct{}
	count atomic.Int32
	all   atomic.Bool
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

// redactURL returns u as text with userinfo and secret query values
// replaced by "REDACTED", by name only (for URLs that belong to no client
// yet, such as a base URL being checked).
func redactURL(u *url.URL) string { return (*secrets)(nil).redact(u) }

// redact returns u as text with userinfo and secret query values replaced
// by "REDACTED".
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

// redactString redacts a URL given as text.
func (s *secrets) redactString(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return strconv.Quote("<unparsable URL>")
	}
	return s.redact(u)
}

// redact is st's secrets' redact.
func (st *clientState) redact(u *url.URL) string { return st.secrets.redact(u) }

// redactPath returns the escaped path p with the segments that fill a
// secret-looking placeholder of template replaced by REDACTED, and whether
// it changed anything. The template's segments are matched against the
// last segments of p (p may start with the base URL's path); a placeholder
// always fills part of one segment, as kit escapes its value as one.
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
	off := len(psegs) - len(tsegs)
	changed := false
	for i, seg := range tsegs {
		for rest := seg; ; {
			_, after, ok := strings.Cut(rest, "{")
			if !ok {
				break
			}
			name, tail, _ := strings.Cut(after, "}")
			if (*secrets)(nil).isSecret(name) {
				psegs[off+i] = "REDACTED"
				changed = true
				break
			}
			rest = tail
		}
	}
	if !changed {
		return "", false
	}
	return "/" + strings.Join(psegs, "/"), true
}
