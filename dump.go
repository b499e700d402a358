package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// WithDump writes each attempt's request and response to w, a
// [RequestOption] (client, declaration, call; the nearest wins): the
// request line and headers as sent (after every interceptor, with the
// client's credentials), up to maxBody bytes of its body, then the status
// line and headers of the response and up to maxBody bytes of its body, or
// the attempt's error. Request lines start with "> ", response lines with
// "< ", and a line "* " says which attempt it was and how long it took. A
// streamed result's body (a [Stream], an io.ReadCloser) is not shown: the
// caller reads it. maxBody 0 shows no bodies.
//
// Secrets are redacted as in every error and log of kit: the values of
// the Authorization, Proxy-Authorization, Cookie and Set-Cookie headers,
// of the [APIKey] header and of any secret-looking header (X-Api-Key,
// ...), of secret-looking query parameters and of those the client's Auth
// adds, of secret path parameters ({token}), and of secret-looking fields
// of a form body. Other bodies are shown as they are: keep maxBody 0 for
// an endpoint whose JSON body carries a password.
//
// Writes are whole dumps, one at a time: one w may be shared by concurrent
// calls. A write error is ignored. w must not be nil, nor maxBody
// negative.
func WithDump(w io.Writer, maxBody int) RequestOption {
	return requestOption[dumpOption]{dumpOption{&dumper{w: w, max: maxBody, mu: new(sync.Mutex)}}}
}

// WithDumpLogger is [WithDump] to a *slog.Logger: one record per attempt,
// at slog.LevelDebug, with the message "kit: attempt" and the attributes
// method, url (redacted), attempt, duration, status (0 after a connection
// error), request and response (the dump's text of each, as WithDump
// writes it) and error (when the attempt failed). l must not be nil, nor
// maxBody negative.
func WithDumpLogger(l *slog.Logger, maxBody int) RequestOption {
	return requestOption[dumpOption]{dumpOption{&dumper{l: l, max: maxBody}}}
}

// Private implementation past this point.

type dumpOption struct{ d *dumper }

func (o dumpOption) applyRequest(c *requestConfig, _ level) error {
	switch {
	case o.d.w == nil && o.d.l == nil && o.d.mu != nil:
		return errors.New("WithDump: nil io.Writer")
	case o.d.w == nil && o.d.l == nil:
		return errors.New("WithDumpLogger: nil *slog.Logger")
	case o.d.max < 0:
		return fmt.Errorf("%s: maxBody %d is negative", o.String(), o.d.max)
	}
	c.dump = o.d
	return nil
}

func (o dumpOption) String() string {
	if o.d.l != nil {
		return fmt.Sprintf("kit.WithDumpLogger(..., %d)", o.d.max)
	}
	return fmt.Sprintf("kit.WithDump(..., %d)", o.d.max)
}

// dumper is one WithDump or WithDumpLogger: where dumps go and how much of
// a body they show.
type dumper struct {
	w   io.Writer
	l   *slog.Logger
	max int
	mu  *sync.Mutex // WithDump's: one dump at a time on w
}

// dump writes the dump of one attempt of req, which got resp or err.
func (d *dumper) dump(ctx context.Context, sec *secrets, req *Request, resp *Response, err error, took time.Duration) {
	if d.l != nil && !d.l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	rd := sec.redactorOf(req)
	var reqText, respText strings.Builder
	d.request(&reqText, sec, rd, req)
	status := 0
	var he *HTTPError
	switch {
	case err == nil:
		status = resp.StatusCode
		body := resp.body
		if resp.stream != nil {
			body = nil
		}
		d.response(&respText, sec, status, resp.Header, body, resp.stream != nil)
	case errors.As(err, &he):
		status = he.StatusCode
		d.response(&respText, sec, status, he.Header, he.Body, false)
	default:
		fmt.Fprintf(&respText, "< error: %v\n", err)
	}
	attempt := max(req.attempt, 1)
	if d.l != nil {
		attrs := []slog.Attr{
			slog.String("method", req.Method), slog.String("url", rd.url(req.URL)),
			slog.Int("attempt", attempt), slog.Duration("duration", took), slog.Int("status", status),
			slog.String("request", reqText.String()), slog.String("response", respText.String()),
		}
		if err != nil {
			attrs = append(attrs, slog.String("error", err.Error()))
		}
		d.l.LogAttrs(ctx, slog.LevelDebug, "kit: attempt", attrs...)
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.w, "* attempt %d of %s, %v\n%s%s", attempt, rd.op(req.Method, req.URL), took.Round(time.Microsecond), reqText.String(), respText.String())
}

// request writes the request's lines.
func (d *dumper) request(b *strings.Builder, sec *secrets, rd redactor, req *Request) {
	fmt.Fprintf(b, "> %s %s\n", req.Method, rd.url(req.URL))
	writeHeader(b, "> ", req.Header, sec.secretHeader)
	b.WriteString(">\n")
	if d.max > 0 && req.GetBody != nil {
		if body, err := peekBody(req, d.max); err != nil {
			fmt.Fprintf(b, "> (the body cannot be read: %v)\n", err)
		} else {
			writeBody(b, "> ", redactForm(req.Header.Get("Content-Type"), body, sec), d.max, req.ContentLength)
		}
	}
}

// response writes a response's lines.
func (d *dumper) response(b *strings.Builder, sec *secrets, status int, h http.Header, body []byte, streamed bool) {
	fmt.Fprintf(b, "< %d %s\n", status, http.StatusText(status))
	writeHeader(b, "< ", h, sec.secretHeader)
	b.WriteString("<\n")
	switch {
	case streamed:
		b.WriteString("< (streamed body: read by the caller)\n")
	case d.max > 0 && len(body) > 0:
		writeBody(b, "< ", body, d.max, int64(len(body)))
	}
}

// writeHeader writes h, sorted by key, secret values as REDACTED.
func writeHeader(b *strings.Builder, prefix string, h http.Header, secret func(string) bool) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			if secret(http.CanonicalHeaderKey(k)) {
				v = "REDACTED"
			}
			fmt.Fprintf(b, "%s%s: %s\n", prefix, k, v)
		}
	}
}

// peekBody reads up to n bytes of req's body from a reader of its own.
func peekBody(req *Request, n int) ([]byte, error) {
	r, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, int64(n)))
}

// writeBody writes the first limit bytes of body (of size bytes in all, -1:
// unknown): as text when it is UTF-8, else as a note of its size.
func writeBody(b *strings.Builder, prefix string, body []byte, limit int, size int64) {
	shown := body[:min(len(body), limit)]
	if !utf8.Valid(shown) && utf8.Valid(shown[:max(0, len(shown)-utf8.UTFMax)]) {
		// Cut inside a rune: show whole runes.
		for len(shown) > 0 && !utf8.Valid(shown) {
			shown = shown[:len(shown)-1]
		}
	}
	if !utf8.Valid(shown) {
		fmt.Fprintf(b, "%s(%d bytes of binary data)\n", prefix, cmpSize(size, len(body)))
		return
	}
	for line := range bytes.Lines(shown) {
		b.WriteString(prefix)
		b.Write(bytes.TrimRight(line, "\n"))
		b.WriteByte('\n')
	}
	if int64(len(shown)) < cmpSize(size, len(body)) || size < 0 && len(body) >= limit {
		fmt.Fprintf(b, "%s(cut at %d bytes)\n", prefix, len(shown))
	}
}

func cmpSize(size int64, n int) int64 {
	if size >= 0 {
		return size
	}
	return int64(n)
}

// redactForm returns a form body with its secret-looking fields' values
// replaced by REDACTED; any other body as it is.
func redactForm(contentType string, body []byte, sec *secrets) []byte {
	if !strings.HasPrefix(contentType, "application/x-www-form-urlencoded") {
		return body
	}
	parts := strings.Split(string(body), "&")
	changed := false
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if sec.isSecret(name) {
			parts[i] = k + "=REDACTED"
			changed = true
		}
	}
	if !changed {
		return body
	}
	return []byte(strings.Join(parts, "&"))
}
