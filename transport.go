package kit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Private implementation past this point.
//
// transport.go is the last layer of the send chain: it turns the Request
// into an *http.Request, sends it through the client's engine, reads the
// body within the limit, and turns a non-2xx status into an *HTTPError.

// roundTripper is implemented by kit's default async engine: the async
// chain already runs on a goroutine of its own (the call's), so it sends
// there rather than through AsyncEngine.Go.
type roundTripper interface {
	roundTrip(req *http.Request) (*http.Response, error)
}

// syncTransport sends through the client's Engine.
func (st *clientState) syncTransport(ctx context.Context, req *Request) (*Response, error) {
	hreq, err := st.httpRequest(ctx, req)
	if err != nil {
		return nil, err
	}
	hresp, err := st.syncEng.Do(hreq)
	return st.receive(ctx, req, hreq, hresp, err)
}

// asyncTransport sends through the client's AsyncEngine. A call that Close
// has cancelled is never sent, even when its context's cancellation has not
// reached it yet.
func (st *clientState) asyncTransport(ctx context.Context, req *Request) (*Response, error) {
	if st.work.isCancelling() {
		return nil, errorf(st.opOf(req), "%w (%w)", context.Canceled, errCloseCancelled)
	}
	hreq, err := st.httpRequest(ctx, req)
	if err != nil {
		return nil, err
	}
	var hresp *http.Response
	if rt, ok := st.asyncEng.(roundTripper); ok {
		hresp, err = rt.roundTrip(hreq)
	} else {
		// An AsyncEngine must end promptly once the request's context
		// ends, so waiting without a context of our own is safe.
		hresp, err = st.asyncEng.Go(hreq).wait()
	}
	return st.receive(ctx, req, hreq, hresp, err)
}

// httpRequest makes the *http.Request of one attempt. It shares req's URL
// and Header: nothing below the transport changes them.
func (st *clientState) httpRequest(ctx context.Context, req *Request) (*http.Request, error) {
	if req.URL == nil {
		return nil, finalError{errorf(st.opOf(req), "%w", errNilURL)}
	}
	hreq, err := http.NewRequestWithContext(ctx, req.Method, "", nil)
	if err != nil {
		return nil, finalError{errorf(st.opOf(req), "building the request: %w", err)}
	}
	hreq.URL = req.URL
	hreq.Host = ""
	hreq.Header = req.Header
	// Where the request finally goes: credentials only to the base URL's
	// origin, whatever the interceptors did to the URL.
	st.confineCredentials(hreq, req)
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, finalError{errorf(st.opOf(req), "opening the request body: %w", err)}
		}
		hreq.Body = body
		hreq.GetBody = req.GetBody
		hreq.ContentLength = req.ContentLength
	}
	return hreq, nil
}

// errBadLocation replaces net/http's error for a redirect whose Location
// is not a URL, which repeats it.
var errBadLocation = errors.New("following a redirect: the Location header is not a valid URL")

// errNilURL is the error of a request that an interceptor left without a
// URL: it is not sent.
var errNilURL = errors.New("an interceptor set the request's URL to nil")

// receive turns what the engine returned into the chain's answer: the
// response with its body read within the limit, or an error.
func (st *clientState) receive(ctx context.Context, req *Request, hreq *http.Request, hresp *http.Response, err error) (*Response, error) {
	if err != nil {
		return nil, st.transportError(ctx, req, err)
	}
	if hresp == nil {
		return nil, errorf(st.opOf(req), "the engine returned neither a response nor an error")
	}
	if decodes(st.decode, hreq) {
		if err := st.decode(hresp); err != nil {
			if is2xx(hresp.StatusCode) {
				return nil, errorf(st.opOf(req), "reading the %d response body: %w", hresp.StatusCode, err)
			}
			hresp.Body = http.NoBody // the status says enough
		}
	}
	if !is2xx(hresp.StatusCode) {
		defer hresp.Body.Close()
		body, _ := readLimited(hresp.Body, MaxErrorBodySize, hresp.ContentLength, true)
		drain(hresp.Body)
		return nil, st.httpError(req.policy, st.redactorOf(req), hreq, hresp.Request, hresp.StatusCode, hresp.Header, body)
	}
	if req.policy.stream {
		// Handed over unread; no size limit. The caller closes it.
		return &Response{StatusCode: hresp.StatusCode, Header: hresp.Header, Request: hreq, stream: st.newStreamBody(ctx, req, hreq, hresp), redact: st.redactorOf(req), finalURL: finalURL(hreq, hresp)}, nil
	}
	defer hresp.Body.Close()
	limit := cmp.Or(req.policy.maxBody, st.maxBody)
	size := hresp.ContentLength
	if hreq.Method == http.MethodHead {
		size = 0 // a HEAD response has no body, whatever its Content-Length says
	}
	if size > limit {
		return nil, errorf(st.opOf(req), "%w: Content-Length %d exceeds the limit of %d bytes", ErrBodyTooLarge, size, limit)
	}
	body, err := readLimited(hresp.Body, limit, size, false)
	if err != nil {
		if errors.Is(err, ErrBodyTooLarge) {
			return nil, errorf(st.opOf(req), "%w: more than %d bytes", ErrBodyTooLarge, limit)
		}
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return nil, errorf(st.opOf(req), "reading the %d response body: %w", hresp.StatusCode, err)
	}
	resp := &Response{StatusCode: hresp.StatusCode, Header: hresp.Header, Request: hreq, body: body, redact: st.redactorOf(req), finalURL: finalURL(hreq, hresp)}
	if req.policy.bodyCheck != nil || st.bodyCheck != nil {
		if err := st.checkBody(req.policy, resp); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// finalURL is the URL that answered hreq with hresp, when a redirect led
// elsewhere; nil otherwise.
func finalURL(hreq *http.Request, hresp *http.Response) *url.URL {
	if hresp.Request == nil || hresp.Request == hreq || hresp.Request.URL == hreq.URL {
		return nil
	}
	return hresp.Request.URL
}

// httpError is the *HTTPError of a non-2xx response to req. final is the
// request that got it (another, after a redirect), nil when unknown. The
// body is decoded into the error model of the endpoint (pol), else of the
// client, if there is one.
func (st *clientState) httpError(pol *callPolicy, rd redactor, req, final *http.Request, status int, header http.Header, body []byte) *HTTPError {
	if final == nil {
		final = req
	}
	var m *errorModel
	if pol != nil {
		m = pol.errorModel.find(status)
	}
	if m == nil {
		m = st.errorModel.find(status)
	}
	return &HTTPError{
		Method:     req.Method,
		URL:        rd.url(req.URL),
		StatusCode: status,
		Header:     header,
		Body:       body,
		Model:      m.model(status, header, body),
		finalURL:   final.URL,
		retry:      st.retry.forPolicy(pol),
	}
}

// transportError wraps an engine error with what was attempted. The
// engine's own *url.Error is unwrapped: its text carries the unredacted URL.
func (st *clientState) transportError(ctx context.Context, req *Request, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if strings.HasPrefix(err.Error(), "failed to parse Location header") {
		// net/http quotes the Location it could not follow, which may
		// hold a secret (a presigned URL's signature), and wraps nothing.
		err = errBadLocation
	}
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		err = fmt.Errorf("%w (%v)", ctxErr, err)
	}
	if st.failover != nil {
		err = noResponse{err} // for the failover layer: no response came
	}
	return errorf(st.opOf(req), "%w", err)
}

// Reading bodies: the first allocation follows what the server announces
// only up to initialBodyBuffer; past that the buffer grows with the bytes
// actually received, so a Content-Length that lies costs nothing.
const (
	initialBodyBuffer = 256 << 10
	unknownBodyBuffer = 4 << 10
)

// readLimited reads r to the end, failing with ErrBodyTooLarge past limit
// bytes, or with truncate set, returning the first limit bytes. size is the
// announced length (-1 when unknown).
func readLimited(r io.Reader, limit, size int64, truncate bool) ([]byte, error) {
	if size == 0 && r == http.NoBody {
		return nil, nil
	}
	// One byte past the limit tells a body at the limit from a longer one.
	first := int64(unknownBodyBuffer)
	if size > 0 {
		first = min(size, initialBodyBuffer)
	}
	first = min(first, limit) + 1
	buf := make([]byte, 0, first)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := buf[len(buf):cap(buf)]
		if over := int64(len(buf)) + int64(len(room)) - limit - 1; over > 0 && int64(len(room)) > over {
			room = room[:int64(len(room))-over] // never read more than limit+1 bytes
		}
		n, err := r.Read(room)
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
