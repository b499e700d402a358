package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Private implementation past this point.
//
// send.go is the one path every request takes, sync or async: build the
// http.Request, add headers and credentials, send it through the engine,
// refresh credentials once on a 401, read the body within the limit, and turn
// a non-2xx status into an *HTTPError.

// userAgent is sent unless the client sets its own User-Agent header.
const userAgent = "kit-go/0.1"

// outRequest is a request ready to send: everything that depends on the
// call's parameters has been worked out.
type outRequest struct {
	method   string
	url      string
	header   http.Header // header parameters of this call; may be nil
	body     []byte
	hasBody  bool
	useAuth  bool
	maxBody  int64
	endpoint string // "GET /users/{id}", for error text

	retry      *RetryPolicy  // the endpoint's policy; nil: the client's
	noRetry    bool          // the endpoint is never retried
	idempotent bool          // POST/PATCH/... may be retried
	timeout    time.Duration // the endpoint's timeout; 0: none
}

// sendFunc sends one request through an engine.
type sendFunc func(req *http.Request) (*http.Response, error)

// do sends or and returns its response with the body read. It applies the
// endpoint's timeout, waits for the client's rate limit before each
// attempt, retries under the call's RetryPolicy (see retry.go), logs each
// attempt (see logging.go), and refreshes credentials and resends once on
// a 401 when the call uses auth and the client's auth is a Refresher.
func (st *clientState) do(ctx context.Context, send sendFunc, or *outRequest) (*Response, error) {
	if or.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, or.timeout)
		defer cancel()
	}
	rt := st.retrierFor(or) // nil: this call is not retried
	refreshed := false
	attempt := 1
	for {
		if st.limiter != nil {
			if err := st.waitRateLimit(ctx, or.method, redactString(or.url)); err != nil {
				return nil, attemptsError(or.method, redactString(or.url), attempt-1, false, "", err)
			}
		}
		req, err := st.newHTTPRequest(ctx, or)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		hresp, err := send(req)
		if err != nil {
			terr := st.transportError(ctx, req, err)
			st.logAttempt(ctx, req, attempt, 0, start, terr)
			if rt == nil || !retryableError(ctx, err) {
				return nil, attemptsError(req.Method, redactURL(req.URL), attempt, false, "", terr)
			}
			wait, reason, ok := rt.next(ctx, attempt, nil)
			if !ok {
				return nil, attemptsError(req.Method, redactURL(req.URL), attempt, true, reason, terr)
			}
			if err := waitRetry(ctx, req, attempt, wait, terr); err != nil {
				return nil, err
			}
			attempt++
			continue
		}
		if hresp.StatusCode == http.StatusUnauthorized && !refreshed {
			// Refresh only when this request carried credentials and the
			// 401 came from the base URL's origin (not from where a
			// redirect led, which got no credentials). Once per call; the
			// resend is not a retry attempt.
			rec := authRecordFrom(req.Context())
			ref, ok := st.auth.(Refresher)
			if ok && rec != nil && (hresp.Request == nil || st.sameOrigin(hresp.Request.URL)) {
				discardBody(hresp)
				st.logAttempt(ctx, req, attempt, hresp.StatusCode, start, nil)
				refreshed = true
				if err := refreshAfter401(ctx, ref, rec); err != nil {
					return nil, fmt.Errorf("kit: %s %s: got 401, refreshing credentials: %w", or.method, redactURL(req.URL), err)
				}
				continue
			}
		}
		reason, exhausted := "", false
		if rt.retryStatus(hresp.StatusCode) {
			var wait time.Duration
			var ok bool
			wait, reason, ok = rt.next(ctx, attempt, hresp.Header)
			if ok {
				discardBody(hresp)
				st.logAttempt(ctx, req, attempt, hresp.StatusCode, start, nil)
				failure := fmt.Errorf("%d %s", hresp.StatusCode, http.StatusText(hresp.StatusCode))
				if err := waitRetry(ctx, req, attempt, wait, failure); err != nil {
					return nil, err
				}
				attempt++
				continue
			}
			exhausted = true
		}
		resp, err := st.readResponse(req, hresp, or.maxBody)
		logErr := err
		if _, isStatus := err.(*HTTPError); isStatus {
			logErr = nil // the status says it
		}
		st.logAttempt(ctx, req, attempt, hresp.StatusCode, start, logErr)
		if err == nil {
			return resp, nil
		}
		if !exhausted && rt != nil && retryableError(ctx, err) {
			// The body was cut short (a reset, an early close).
			wait, reason, ok := rt.next(ctx, attempt, nil)
			if !ok {
				return nil, attemptsError(req.Method, redactURL(req.URL), attempt, true, reason, err)
			}
			if err := waitRetry(ctx, req, attempt, wait, err); err != nil {
				return nil, err
			}
			attempt++
			continue
		}
		return nil, attemptsError(req.Method, redactURL(req.URL), attempt, exhausted, reason, err)
	}
}

// waitRetry waits before the retry that follows attempt n, which failed
// with failure. A ctx that ends first ends the call with its error.
func waitRetry(ctx context.Context, req *http.Request, n int, wait time.Duration, failure error) error {
	if err := sleepCtx(ctx, wait); err != nil {
		return fmt.Errorf("kit: %s %s: waiting to retry after %s (last: %v): %w",
			req.Method, redactURL(req.URL), attemptsText(n), failure, err)
	}
	return nil
}

// newHTTPRequest builds the http.Request for one attempt. The body is a
// fresh reader over the same bytes, so retries replay it.
func (st *clientState) newHTTPRequest(ctx context.Context, or *outRequest) (*http.Request, error) {
	var body io.Reader
	if or.hasBody {
		body = bytes.NewReader(or.body)
	}
	// An authRecord in the request's context: what the auth adds, for the
	// redirect guard and the 401 handling in do (see authenticate).
	var rec *authRecord
	if or.useAuth && st.auth != nil {
		rec = &authRecord{origin: st.base}
		ctx = context.WithValue(ctx, authRecordKey{}, rec)
	} else if authRecordFrom(ctx) != nil {
		// ctx is that of an authenticated request (a token fetch calling a
		// login endpoint): this request has no credentials of its own.
		ctx = withoutAuthRecord(ctx)
	}
	req, err := http.NewRequestWithContext(ctx, or.method, or.url, body)
	if err != nil {
		return nil, fmt.Errorf("kit: %s: building request: %w", or.endpoint, err)
	}
	h := req.Header
	h["Accept"] = []string{"application/json"}
	if or.hasBody {
		h["Content-Type"] = []string{"application/json"}
	}
	// The client's headers replace kit's defaults (Accept, User-Agent), and
	// a call's header parameters replace the client's for the same key.
	for k, vs := range st.header {
		h[k] = append([]string(nil), vs...)
	}
	for k, vs := range or.header {
		h[k] = append([]string(nil), vs...)
	}
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = []string{userAgent}
	}
	if rec != nil && st.sameOrigin(req.URL) {
		if err := st.authenticate(req, rec); err != nil {
			return nil, fmt.Errorf("kit: %s %s: adding credentials: %w", or.method, redactURL(req.URL), err)
		}
	}
	return req, nil
}

// sameOrigin reports whether u is on the base URL's origin.
func (st *clientState) sameOrigin(u *url.URL) bool {
	return sameOrigin(u, st.base)
}

func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && canonicalHost(a) == canonicalHost(b)
}

// canonicalHost is host:port with the scheme's default port made explicit.
func canonicalHost(u *url.URL) string {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		switch u.Scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return lower(host) + ":" + port
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return string(bytes.ToLower([]byte(s)))
		}
	}
	return s
}

// transportError wraps an engine error with what was attempted. The
// engine's own *url.Error is unwrapped: its text carries the unredacted URL.
func (st *clientState) transportError(ctx context.Context, req *http.Request, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		err = fmt.Errorf("%w (%v)", ctxErr, err)
	}
	return fmt.Errorf("kit: %s %s: %w", req.Method, redactURL(req.URL), err)
}

// readResponse reads the body (at most maxBody bytes) and maps non-2xx
// statuses to *HTTPError.
func (st *clientState) readResponse(req *http.Request, hresp *http.Response, maxBody int64) (*Response, error) {
	defer hresp.Body.Close()
	if hresp.StatusCode < 200 || hresp.StatusCode > 299 {
		body, _ := readLimited(hresp.Body, MaxErrorBodySize, hresp.ContentLength, true)
		drain(hresp.Body)
		return nil, &HTTPError{
			Method:     req.Method,
			URL:        redactURL(req.URL),
			StatusCode: hresp.StatusCode,
			Header:     hresp.Header,
			Body:       body,
		}
	}
	if maxBody <= 0 {
		maxBody = st.maxBody
	}
	size := hresp.ContentLength
	if req.Method == http.MethodHead {
		size = 0 // a HEAD response has no body, whatever its Content-Length says
	}
	if size > maxBody {
		return nil, fmt.Errorf("kit: %s %s: %w: Content-Length %d exceeds the limit of %d bytes",
			req.Method, redactURL(req.URL), ErrBodyTooLarge, size, maxBody)
	}
	body, err := readLimited(hresp.Body, maxBody, size, false)
	if err != nil {
		if errors.Is(err, ErrBodyTooLarge) {
			return nil, fmt.Errorf("kit: %s %s: %w: more than %d bytes", req.Method, redactURL(req.URL), ErrBodyTooLarge, maxBody)
		}
		if ctxErr := req.Context().Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return nil, fmt.Errorf("kit: %s %s: reading %d response body: %w", req.Method, redactURL(req.URL), hresp.StatusCode, err)
	}
	return &Response{StatusCode: hresp.StatusCode, Header: hresp.Header, Request: req, body: body}, nil
}

// readLimited reads r to the end, failing with ErrBodyTooLarge past limit
// bytes, or with truncate set, returning the first limit bytes. size is the
// announced length (-1 when unknown), used to allocate once.
func readLimited(r io.Reader, limit, size int64, truncate bool) ([]byte, error) {
	var buf []byte
	switch {
	case size == 0 && r == http.NoBody:
		return nil, nil
	case size == 0:
		// Announced empty, but an engine may leave ContentLength 0 on a
		// response that has a body: read it rather than trust the length.
	case size > 0 && size <= limit:
		buf = make([]byte, 0, size+1)
	default:
		buf = make([]byte, 0, min(limit+1, 4096))
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			if truncate {
				return buf[:limit], nil
			}
			return nil, ErrBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// drain reads a small remainder of a body so the connection can be reused.
func drain(r io.Reader) {
	_, _ = io.CopyN(io.Discard, r, 64<<10)
}

// discardBody drains and closes a response that will not be used.
func discardBody(resp *http.Response) {
	drain(resp.Body)
	resp.Body.Close()
}
