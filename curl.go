package kit

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
)

// CurlOptions says how [Curl] renders a request. The zero value redacts
// secrets and leaves out a body over 64 KiB.
type CurlOptions struct {
	// ShowSecrets renders the request as it is, credentials included:
	// a command to run, never to log or to paste in an issue.
	ShowSecrets bool

	// MaxBody is the longest body written into the command; a longer one
	// is left out (with a comment saying so). 0 means 64 KiB.
	MaxBody int
}

// Curl renders req as a curl command line that sends the same request:
// method, URL, headers and body (--data-binary), each argument quoted for
// a POSIX shell, so that pasting the line runs exactly that request,
// whatever bytes the values hold. It is meant for debugging: give it the
// Request an [Interceptor] or an [Observer]'s CallStart sees (an attempt
// interceptor sees the client's credentials on it).
//
// Unless o.ShowSecrets is set, secrets are redacted as in every error and
// log of kit: the values of the Authorization, Proxy-Authorization and
// Cookie headers, of the client's [APIKey] header and of any
// secret-looking header, of secret-looking query parameters and of those
// the client's Auth adds, of secret path parameters ({token}), and of
// secret-looking fields of a form body; the command then does not work
// as it is. A body that is not valid text, or over o.MaxBody, is left out
// and a trailing comment says so. The error is that of opening the body
// (GetBody).
func Curl(req *Request, o CurlOptions) (string, error) {
	if req == nil {
		return "", errors.New("kit: Curl: nil *Request")
	}
	sec := req.secrets // nil for a Request kit did not build: names only
	rd := redactor{path: req.secretPath}
	if sec != nil {
		rd = sec.redactorOf(req)
	}
	var b strings.Builder
	b.WriteString("curl")
	if req.Method != "" && req.Method != http.MethodGet {
		b.WriteString(" -X ")
		b.WriteString(shellQuote(req.Method))
	}
	if req.URL != nil {
		u := req.URL.String()
		if !o.ShowSecrets {
			u = rd.url(req.URL)
		}
		b.WriteString(" ")
		b.WriteString(shellQuote(u))
	}
	keys := make([]string, 0, len(req.Header))
	for k := range req.Header {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		secret := !o.ShowSecrets && sec.secretHeader(http.CanonicalHeaderKey(k))
		for _, v := range req.Header[k] {
			if secret {
				v = "REDACTED"
			}
			b.WriteString(" -H ")
			b.WriteString(shellQuote(k + ": " + v))
		}
	}
	if req.GetBody == nil {
		return b.String(), nil
	}
	limit := o.MaxBody
	if limit <= 0 {
		limit = 64 << 10
	}
	r, err := req.GetBody()
	if err != nil {
		return "", errorf("Curl", "opening the request body: %w", err)
	}
	defer r.Close()
	body, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return "", errorf("Curl", "reading the request body: %w", err)
	}
	switch {
	case len(body) > limit:
		b.WriteString(" # the body is left out: over the limit")
	case strings.ContainsRune(string(body), 0) || !isText(body):
		b.WriteString(" # the body is left out: binary")
	default:
		if !o.ShowSecrets {
			body = redactForm(req.Header.Get("Content-Type"), body, sec)
		}
		b.WriteString(" --data-binary ")
		b.WriteString(shellQuote(string(body)))
	}
	return b.String(), nil
}

// Private implementation past this point.

// shellQuote quotes s as one word of a POSIX shell: in single quotes, each
// single quote of s closing the quotes, escaped, and reopening them. Inside
// single quotes no byte is special, so nothing else needs escaping. A word
// of only safe characters is left as it is.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// isText reports whether b is UTF-8 text.
func isText(b []byte) bool {
	return strings.ToValidUTF8(string(b), "\uFFFD") == string(b)
}
