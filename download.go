package kit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kithttp/kit/internal/httpsyntax"
	"github.com/kithttp/kit/internal/routing"
)

// ErrDownloadChanged is matched (errors.Is) by the error of a download
// (an io.ReadCloser result) that [WithIdleTimeout] could not resume
// because what the server sent for the rest cannot follow the bytes
// already read: it answered the resume with the whole resource (200: its
// ETag or Last-Modified no longer matches, so it changed), or with other
// bytes than asked for (a Content-Range that does not start where the
// read stopped, or with another complete length). Nothing of the new
// response reaches the reader: read the resource again from the start.
// [Retryable] says no to it.
var ErrDownloadChanged = errors.New("kit: the download changed on the server")

// Private implementation past this point.
//
// download.go resumes a download: the io.ReadCloser result of an endpoint
// under WithIdleTimeout and a retry policy, whose first response says the
// server can send the rest (Accept-Ranges: bytes, a strong ETag or a
// Last-Modified, the body not content-decoded). When the body goes idle or
// its connection drops, the download closes it (giving back what it held),
// waits the policy's backoff, and sends a copy of the request as the
// caller made it, with Range: bytes=N- and If-Range, through the client's
// whole chain; a 206 whose Content-Range continues at N is read on in the
// same reader. Like a Stream (see record_stream.go), it holds the async
// call's task and the endpoint timeout's deadline until it is closed.

// resumesDownload reports whether a download of d, sent as req, is read
// through a download that may resume it.
func (d *endpointDecl) resumesDownload(st *clientState, req *Request) bool {
	if d.result != routing.ResultBody && d.inner != routing.ResultBody {
		return false
	}
	if cmp.Or(req.policy.idleTimeout, st.idleTimeout) <= 0 || len(req.Header["Range"]) > 0 {
		return false
	}
	return st.retry.inForce(req) != nil && !refusalsOnly(req)
}

// download is a resumable io.ReadCloser result. Read is the caller's, one
// at a time; Close may come from any goroutine.
type download struct {
	st        *clientState
	sc        *streamCall
	rt        *retrier
	ctx       context.Context // sc.ctx, bounded by the endpoint's timeout
	first     *Response       // the first response, for opOf
	validator string          // the If-Range value: a strong ETag or a Last-Modified date
	etag      bool            // validator is an ETag
	total     int64           // the complete length; -1 when unknown
	off       int64           // bytes read
	drops     int             // resumes since the last new byte
	pending   error           // the error after bytes that Read returned; handled next
	failed    error           // the error every Read returns once it failed
	stopped   atomic.Bool     // Close or the end of the context has run
	closing   chan struct{}   // closed by shutdown
	done      chan struct{}   // closed once shutdown has run (and its releases)
	callEnd   *streamedEnd    // the first call's Observer.CallEnd, fired by shutdown; nil when none

	mu       sync.Mutex
	body     io.ReadCloser // of the current connection; nil between connections and once closed
	cancel   func()        // ends the context of a resumed connection
	closed   bool
	byCaller bool        // Close closed it, not the end of the context
	release  []func()    // run once by shutdown, last first
	stop     func() bool // unregisters the shutdown on the context's end
	panicked error       // a panic of the shutdown on the context's end, until reported
}

// newDownload returns the io.ReadCloser result of resp: resp's body, read
// through a download when the server can send the rest of it.
func newDownload(st *clientState, resp *Response, sc *streamCall) io.ReadCloser {
	body := resp.takeStream()
	validator, etag := rangeValidator(resp.Header)
	if sc.open != nil || resp.stream == nil || resp.stream.decoded || resp.StatusCode != http.StatusOK || validator == "" || !acceptsByteRanges(resp.Header) {
		return body
	}
	total := int64(-1)
	if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
		total = n
	}
	d := &download{
		st:        st,
		sc:        sc,
		rt:        st.retry.inForce(sc.req),
		ctx:       sc.ctx,
		first:     resp,
		validator: validator,
		etag:      etag,
		total:     total,
		closing:   make(chan struct{}),
		done:      make(chan struct{}),
		body:      body,
	}
	if e := resp.observedEnd; e != nil && e.claim() {
		d.callEnd = e
	}
	if !sc.deadline.IsZero() {
		var cancel context.CancelFunc
		d.ctx, cancel = context.WithDeadline(d.ctx, sc.deadline)
		d.release = append(d.release, cancel)
	}
	if t, ok := sc.ctx.Value(asyncTaskKey{}).(*asyncTask); ok && t.w == &st.work {
		// As for a Stream: the async call is not over until the download
		// is closed, and its context stays alive for a resume.
		t.hold()
		d.release = append(d.release, t.unhold)
	}
	// Under the lock: when the context has already ended, shutdown runs
	// at once on another goroutine, and must find stop among the releases.
	d.mu.Lock()
	d.stop = context.AfterFunc(d.ctx, func() { d.shutdown(false) })
	d.mu.Unlock()
	return d
}

// rangeValidator returns the If-Range value of a response with header h,
// by RFC 9110 section 13.1.5: its ETag when strong; without an ETag, its
// Last-Modified when that is a strong validator (at least a second before
// the response's Date); "" otherwise.
func rangeValidator(h http.Header) (v string, etag bool) {
	if e := h.Get("ETag"); e != "" {
		if strings.HasPrefix(e, "W/") || httpsyntax.HasControl(e) {
			return "", false
		}
		return e, true
	}
	lm := h.Get("Last-Modified")
	if lm == "" || httpsyntax.HasControl(lm) {
		return "", false
	}
	mod, err := http.ParseTime(lm)
	if err != nil {
		return "", false
	}
	if date, err := http.ParseTime(h.Get("Date")); err != nil || date.Sub(mod) < time.Second {
		return "", false
	}
	return lm, false
}

// acceptsByteRanges reports whether h has Accept-Ranges: bytes.
func acceptsByteRanges(h http.Header) bool {
	for _, v := range h.Values("Accept-Ranges") {
		for v != "" {
			var u string
			u, v, _ = strings.Cut(v, ",")
			if strings.EqualFold(strings.TrimSpace(u), "bytes") {
				return true
			}
		}
	}
	return false
}

// Read reads the download, resuming it when its connection goes idle or
// drops and the server can send the rest.
func (d *download) Read(p []byte) (int, error) {
	if d.failed != nil {
		return 0, d.failed
	}
	for {
		if err := d.pending; err != nil {
			d.pending = nil
			if err = d.resume(err); err != nil {
				d.failed = err
				return 0, err
			}
		}
		d.mu.Lock()
		body := d.body
		d.mu.Unlock()
		if body == nil {
			return 0, d.stoppedError()
		}
		n, err := body.Read(p)
		if d.total >= 0 && d.off+int64(n) > d.total {
			// A resumed body longer than its Content-Range said: never
			// more than the complete length the first response gave.
			n = int(d.total - d.off)
			err = errorf(d.op(), "%w: the resumed body runs past the complete length of %d bytes", ErrDownloadChanged, d.total)
			d.failed = err
		}
		d.off += int64(n)
		if n > 0 {
			d.drops = 0
		}
		switch {
		case err == nil || d.failed != nil:
			return n, err
		case err == io.EOF && (d.total < 0 || d.off == d.total):
			return n, io.EOF
		case err == io.EOF:
			// A 206 that ends before the complete length: the server sent
			// part of the rest; ask for what is left.
			err = errorf(d.op(), "reading the response body: %w after %d of %d bytes", io.ErrUnexpectedEOF, d.off, d.total)
		}
		if n > 0 {
			d.pending = err // resumed by the next Read
			return n, nil
		}
		d.pending = err
	}
}

// op is "GET https://h/file" (redacted), for errors.
func (d *download) op() string {
	return d.first.redact.op(d.first.Request.Method, d.first.Request.URL)
}

// resume reconnects after the current connection failed with cause,
// when it may: it returns nil when the download goes on, else the error
// for Read to return (cause itself when nothing was tried).
func (d *download) resume(cause error) error {
	if d.stopped.Load() || d.ctx.Err() != nil {
		return d.stoppedOr(cause)
	}
	if !errors.Is(cause, ErrIdleTimeout) && !retryableError(d.ctx, cause) {
		return cause
	}
	d.drops++
	if d.drops >= d.rt.maxAttempts {
		return errorf(d.op(), "after %d bytes: the connection dropped %d times without a new byte: %w", d.off, d.drops, cause)
	}
	d.closeBody()
	t := time.NewTimer(d.rt.backoff(d.drops))
	defer t.Stop()
	select {
	case <-t.C:
	case <-d.closing:
		return d.stoppedOr(cause)
	}

	// The reconnection is cancelled by Close, as a read would be.
	ctx, cancel := context.WithCancel(d.ctx)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		cancel()
		return d.stoppedOr(cause)
	}
	d.cancel = cancel
	d.mu.Unlock()
	req := d.sc.req.clone()
	req.Header.Set("Range", "bytes="+strconv.FormatInt(d.off, 10)+"-")
	req.Header.Set("If-Range", d.validator)
	if len(req.Header["Accept-Encoding"]) == 0 {
		// The offset counts the representation's bytes: the rest must
		// come as they are, not content-coded.
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := d.st.send(ctx, d.sc.chain, req)
	var body io.ReadCloser
	if err == nil {
		body = resp.takeStream()
		err = d.check(resp)
	}
	if err != nil {
		if body != nil {
			body.Close()
		}
		d.closeBody() // cancels ctx
		if d.stopped.Load() {
			return d.stoppedOr(cause)
		}
		if errors.Is(err, ErrDownloadChanged) {
			return err
		}
		return errorf(d.op(), "after %d bytes (%v): resuming with Range: bytes=%d-: %w", d.off, cause, d.off, err)
	}
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		body.Close()
		return d.stoppedOr(cause)
	}
	d.body = body
	d.mu.Unlock()
	return nil
}

// check checks that resp, the answer to a resume, continues the download.
func (d *download) check(resp *Response) error {
	if resp.StatusCode == http.StatusOK {
		return errorf(d.op(), "%w: after %d bytes, the server answered the resume with the whole resource again (If-Range %s no longer matches)", ErrDownloadChanged, d.off, d.validator)
	}
	if resp.StatusCode != http.StatusPartialContent {
		return errorf(d.op(), "%w: after %d bytes, the server answered the resume with %d, not 206 Partial Content", ErrDownloadChanged, d.off, resp.StatusCode)
	}
	cr := resp.Header.Get("Content-Range")
	first, _, complete, ok := httpsyntax.ParseContentRange(cr)
	switch {
	case !ok, first != d.off, d.total >= 0 && complete >= 0 && complete != d.total:
		want := "*"
		if d.total >= 0 {
			want = strconv.FormatInt(d.total, 10)
		}
		return errorf(d.op(), "%w: asked for the bytes from %d of %s, the server sent Content-Range %q", ErrDownloadChanged, d.off, want, cr)
	case resp.stream != nil && resp.stream.decoded:
		return errorf(d.op(), "%w: the rest came content-coded, not as the bytes of the representation", ErrDownloadChanged)
	case d.etag && resp.Header.Get("ETag") != "" && resp.Header.Get("ETag") != d.validator:
		return errorf(d.op(), "%w: the rest has ETag %s, not %s", ErrDownloadChanged, resp.Header.Get("ETag"), d.validator)
	}
	if d.total < 0 && complete >= 0 {
		d.total = complete
	}
	return nil
}

// stoppedOr is the error of a download that Close or the end of its
// context stopped, or cause when neither did.
func (d *download) stoppedOr(cause error) error {
	if !d.stopped.Load() && d.ctx.Err() == nil {
		return cause
	}
	return d.stoppedError()
}

// stoppedError is what Read returns once the download is shut down: the
// context's error when it ended, else the error of reading a closed body.
func (d *download) stoppedError() error {
	d.mu.Lock()
	byCaller := d.closed && d.byCaller
	d.mu.Unlock()
	if ctxErr := d.ctx.Err(); ctxErr != nil && !byCaller {
		err := ctxErr
		if errors.Is(context.Cause(d.ctx), errCloseCancelled) {
			err = fmt.Errorf("%w (%w)", ctxErr, errCloseCancelled)
		}
		<-d.done // the shutdown on the context's end has run or is running
		if p := d.takePanic(); p != nil {
			err = fmt.Errorf("%w; %w", err, p)
		}
		return errorf(d.op(), "reading the response body after %d bytes: %w", d.off, err)
	}
	return errorf(d.op(), "reading the response body: %w", http.ErrBodyReadAfterClose)
}

// Close closes the download: the body of the current connection, and what
// the download holds. Further calls return nil, or the panic of the
// shutdown that the end of the context ran (its observer's CallEnd), once.
func (d *download) Close() error { return d.shutdown(true) }

// shutdown is Close; byCaller says whether Close runs it, else the end of
// the context does, on a goroutine of its own: a panic of what it runs is
// then recovered and kept for Read or Close to report. Otherwise a panic
// goes on, once everything is released.
func (d *download) shutdown(byCaller bool) (err error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		if !byCaller {
			return nil
		}
		<-d.done
		if p := d.takePanic(); p != nil {
			return errorf(d.op(), "%w", p)
		}
		return nil
	}
	d.closed, d.byCaller = true, byCaller
	d.stopped.Store(true)
	close(d.closing)
	body, cancel, release, stop := d.body, d.cancel, d.release, d.stop
	d.body, d.cancel, d.release, d.stop = nil, nil, nil, nil
	d.mu.Unlock()
	returned := false
	defer func() {
		if !byCaller && !returned {
			p := fmt.Errorf("ending the call: %w", newPanicOrExit(recover()))
			d.mu.Lock()
			d.panicked = p
			d.mu.Unlock()
		}
		close(d.done)
	}()
	if stop != nil {
		stop()
	}
	steps := make([]func(), 0, 3+len(release))
	if body != nil {
		steps = append(steps, func() { err = body.Close() })
	}
	if cancel != nil {
		steps = append(steps, cancel)
	}
	for i := len(release) - 1; i >= 0; i-- {
		steps = append(steps, release[i])
	}
	if d.callEnd != nil {
		steps = append(steps, d.callEnd.finish)
	}
	runEach(steps)
	returned = true
	return err
}

// takePanic returns the panic kept by shutdown, once.
func (d *download) takePanic() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	err := d.panicked
	d.panicked = nil
	return err
}

// closeBody closes the body of the current connection, giving back what
// it holds, while the download goes on.
func (d *download) closeBody() {
	d.mu.Lock()
	body, cancel := d.body, d.cancel
	d.body, d.cancel = nil, nil
	d.mu.Unlock()
	if body != nil {
		body.Close()
	}
	if cancel != nil {
		cancel()
	}
}
