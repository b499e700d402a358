package kit

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kithttp/kit/internal/frame"
	"github.com/kithttp/kit/internal/httpsyntax"
)

// Private implementation past this point.
//
// record_stream.go is the non-generic core of Stream[T]: a recordStream reads
// the unread body of a streamed response (a streamBody, see stream.go)
// through a framer of internal/frame chosen by the content type, and
// decodes and validates one record at a time into the caller's T, on the
// caller's goroutine. No goroutine of its own runs: the stream's context
// is watched with context.AfterFunc, which closes the body (unblocking a
// read in progress) when the context ends.
//
// What the call holds (the connection, the endpoint timeout, the async
// in-flight slot) is held by the streamBody of the current connection, as
// for an io.ReadCloser result, and given up when it is closed. The stream
// itself holds the async call's task (so AsyncClient.Close waits for it,
// and the task's context outlives the first connection for a resume),
// until Close or the end of a range.
//
// Resuming: after a server-sent event stream's connection drops, the
// stream closes the old body (giving back its slot), waits, and sends a
// copy of the request as the caller made it, with Last-Event-ID, through
// the client's whole chain again; the SSE parser is reset for the new body,
// keeping the last event ID and the reconnection time.

// streamCall is what a Stream, or a download that may resume (see
// download.go), needs of the call that made it.
type streamCall struct {
	open     recordsOpener   // the *Stream[T] to make; nil for a download
	ctx      context.Context // the call's context (an async call's task context)
	chain    Sender          // the chain the call went through
	req      *Request        // a copy of the request made before the chain saw it
	deadline time.Time       // the end of the endpoint's WithTimeout; zero when none
}

// newStreamCall prepares a call of d whose result is a Stream, or a
// download that may resume; nil for other calls. It copies req before
// anything in the chain can change it.
func (d *endpointDecl) newStreamCall(ctx context.Context, st *clientState, chain Sender, req *Request) *streamCall {
	if d.records == nil && !d.resumesDownload(st, req) {
		return nil
	}
	sc := &streamCall{open: d.records, ctx: ctx, chain: chain, req: req.clone()}
	if t := req.policy.timeout; t > 0 {
		sc.deadline = time.Now().Add(t)
	}
	return sc
}

// streamAccept is the Accept header of endpoints whose result is a Stream.
var streamAccept = []string{"text/event-stream, application/x-ndjson, application/jsonl, application/json-seq, application/json"}

// framing is how a stream's records are delimited.
type framing uint8

const (
	framingNone  framing = iota // no body (204): no records
	framingSSE                  // text/event-stream
	framingLines                // NDJSON, JSON Lines
	framingSeq                  // application/json-seq
	framingArray                // a JSON array
)

// framingOf returns the framing of resp's content type, or false.
func framingOf(resp *Response) (framing, bool) {
	if resp.StatusCode == http.StatusNoContent {
		return framingNone, true
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		return 0, false
	}
	switch mt {
	case "text/event-stream":
		return framingSSE, true
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/jsonlines", "application/x-jsonlines":
		return framingLines, true
	case "application/json-seq":
		return framingSeq, true
	}
	if isJSONMediaType(mt) {
		return framingArray, true
	}
	return 0, false
}

// recordReader is a framer of delimited records or array elements.
type recordReader interface {
	Next() ([]byte, int64, error)
}

// errNotAStream is wrapped in the *DecodeError of a response whose content
// type frames no records.
var errNotAStream = errors.New("not a stream of records (want text/event-stream, NDJSON, JSON Lines, application/json-seq or a JSON array)")

// errStreamEnd is what next returns at the end of the records.
var errStreamEnd = errors.New("end of the stream")

// recordMeta is what a record's server-sent event said besides its data.
type recordMeta struct {
	id, typ string
	retry   time.Duration
}

// recordStream is the core of a Stream.
type recordStream struct {
	st     *clientState
	sc     *streamCall
	ctx    context.Context // sc.ctx, bounded by the endpoint's timeout
	op     string          // "GET https://h/events", for errors
	want   string          // T, for errors
	ctype  string          // the first response's Content-Type, for errors
	limit  int
	format framing
	sse    *frame.SSE
	recs   recordReader

	observed context.Context // the call's context from Observer.CallStart; nil without StreamEnd
	failed   error           // the first error next returned (not errStreamEnd); under mu
	seen     int             // n, for StreamEnd; under mu
	callEnd  *streamedEnd    // the first call's Observer.CallEnd, fired after StreamEnd; nil when none

	n       int // records decoded
	drops   int // reconnections since the last new event
	ranged  atomic.Bool
	stopped atomic.Bool // shutdown has run

	mu       sync.Mutex
	resp     *Response
	body     io.ReadCloser // of the current connection; nil between connections
	closed   bool
	byCaller bool          // Close closed it, not the end of the context
	closing  chan struct{} // closed by shutdown
	done     chan struct{} // closed once shutdown has run (and its releases)
	release  []func()      // run once by shutdown, last first
	panicked error         // a panic of the shutdown on the context's end, until reported
	cancel   func()        // ends the context of a resumed connection
}

// newRecordStream makes the stream of resp, whose records are Ts. On an
// error the body is closed.
func newRecordStream(st *clientState, resp *Response, sc *streamCall, t reflect.Type) (*recordStream, error) {
	body := resp.takeStream()
	rs := &recordStream{
		st:      st,
		sc:      sc,
		ctx:     sc.ctx,
		op:      resp.redact.op(resp.Request.Method, resp.Request.URL),
		want:    t.String(),
		ctype:   resp.Header.Get("Content-Type"),
		resp:    resp,
		body:    body,
		closing: make(chan struct{}),
		done:    make(chan struct{}),
	}
	if st.observe.streams() {
		rs.observed = cmp.Or(resp.observed, sc.ctx)
	}
	format, ok := framingOf(resp)
	if !ok {
		body.Close()
		return nil, rs.decodeError(0, errNotAStream)
	}
	rs.format = format
	if e := resp.observedEnd; e != nil && e.claim() {
		rs.callEnd = e
	}
	rs.limit = int(min(cmp.Or(sc.req.policy.maxBody, st.maxBody), math.MaxInt32))
	switch format {
	case framingSSE:
		rs.sse = frame.NewSSE(body, rs.limit)
	case framingLines:
		rs.recs = frame.NewLines(body, rs.limit)
	case framingSeq:
		rs.recs = frame.NewSeq(body, rs.limit)
	case framingArray:
		rs.recs = frame.NewArray(body, rs.limit)
	}
	if !sc.deadline.IsZero() {
		var cancel context.CancelFunc
		rs.ctx, cancel = context.WithDeadline(rs.ctx, sc.deadline)
		rs.release = append(rs.release, cancel)
	}
	if t, ok := sc.ctx.Value(asyncTaskKey{}).(*asyncTask); ok && t.w == &st.work {
		// The async call is not over until the stream is closed: Close of
		// the client waits for it, and its context stays alive for a
		// resume after the first connection has closed.
		t.hold()
		rs.release = append(rs.release, t.unhold)
	}
	// Under the lock: when the context has already ended, shutdown runs at
	// once on another goroutine, and must find stop among the releases.
	rs.mu.Lock()
	stop := context.AfterFunc(rs.ctx, func() { rs.shutdown(false) })
	rs.release = append(rs.release, func() { stop() })
	rs.mu.Unlock()
	return rs, nil
}

// begin starts the one range over the stream.
func (rs *recordStream) begin() error {
	if !rs.ranged.CompareAndSwap(false, true) {
		return errorf(rs.op, "the stream was already ranged over: a Stream is read once")
	}
	rs.mu.Lock()
	closed, byCaller := rs.closed, rs.byCaller
	rs.mu.Unlock()
	switch {
	case closed && byCaller:
		return errorf(rs.op, "ranging over a closed stream")
	case rs.ctx.Err() != nil:
		return rs.endedError()
	}
	return nil
}

// next decodes the next record into v, a *T, and validates it. It returns
// errStreamEnd after the last one.
func (rs *recordStream) next(v any) (recordMeta, error) {
	m, err := rs.read(v)
	if rs.observed != nil {
		rs.mu.Lock()
		if err != nil && err != errStreamEnd && rs.failed == nil {
			rs.failed = err
		}
		rs.seen = rs.n
		rs.mu.Unlock()
	}
	return m, err
}

// read is next without the bookkeeping for StreamEnd.
func (rs *recordStream) read(v any) (recordMeta, error) {
	for {
		if rs.stopped.Load() || rs.ctx.Err() != nil {
			// Closed, or the context ended: no more records, even those
			// already read.
			return recordMeta{}, rs.stopError()
		}
		var (
			data []byte
			off  int64
			meta recordMeta
			err  error
		)
		switch rs.format {
		case framingNone:
			return recordMeta{}, errStreamEnd
		case framingSSE:
			var e frame.Event
			e, err = rs.sse.Next()
			data, off, meta = e.Data, e.Offset, recordMeta{e.ID, e.Type, e.Retry}
		default:
			data, off, err = rs.recs.Next()
		}
		if err == nil {
			rs.drops = 0
			if err := rs.decode(data, off, v); err != nil {
				return recordMeta{}, err
			}
			rs.n++
			return meta, nil
		}
		if err = rs.readError(err); err != nil {
			return recordMeta{}, err
		}
		// Resumed: read on from the new connection.
	}
}

// decode decodes one record's bytes (found at input offset off) into v and
// validates it.
func (rs *recordStream) decode(data []byte, off int64, v any) error {
	if err := unmarshalJSON(data, v); err != nil {
		return rs.decodeError(off+max(jsonErrorOffset(err), 0), fmt.Errorf("record %d: %w", rs.n+1, err))
	}
	if err := validateValue(rs.st.validator, reflect.ValueOf(v).Elem()); err != nil {
		return errorf(rs.op, "record %d: %w", rs.n+1, err)
	}
	return nil
}

func (rs *recordStream) decodeError(off int64, err error) *DecodeError {
	resp := rs.response()
	de := &DecodeError{
		ContentType: rs.ctype,
		Want:        rs.want,
		Offset:      off,
		Err:         err,
	}
	if resp.Request != nil {
		de.Method, de.URL = resp.Request.Method, resp.redact.url(resp.Request.URL)
	}
	return de
}

// readError turns what a framer returned instead of a record into the
// error to yield (errStreamEnd at the end), or resumes the stream and
// returns nil.
func (rs *recordStream) readError(err error) error {
	var se *frame.SyntaxError
	switch {
	case err == io.EOF:
		return errStreamEnd
	case rs.stopped.Load() || rs.ctx.Err() != nil:
		return rs.stopError()
	case errors.Is(err, frame.ErrTooLarge):
		return errorf(rs.op, "%w: record %d is longer than the limit of %d bytes", ErrBodyTooLarge, rs.n+1, rs.limit)
	case errors.As(err, &se):
		return rs.decodeError(se.Offset, se)
	}
	if rs.format == framingSSE {
		if resumed, rerr := rs.resume(err); resumed {
			return rerr
		}
	}
	if rs.stopped.Load() || rs.ctx.Err() != nil {
		return rs.stopError() // it ended meanwhile
	}
	return errorf(rs.op, "after %s: %w", recordsText(rs.n), err)
}

// ctxError is the error of a stream whose context has ended.
func (rs *recordStream) ctxError() error {
	err := rs.ctx.Err()
	if err == nil {
		err = context.Canceled
	}
	if errors.Is(context.Cause(rs.ctx), errCloseCancelled) {
		return errorf(rs.op, "after %s: %w (%w)", recordsText(rs.n), err, errCloseCancelled)
	}
	return errorf(rs.op, "after %s: %w", recordsText(rs.n), err)
}

// stopError is what next returns once the stream is shut down or its
// context has ended: errStreamEnd when Close came first (it ends a range
// quietly, although on an AsyncClient the call's context ends with it),
// else the context's error.
func (rs *recordStream) stopError() error {
	rs.mu.Lock()
	byCaller := rs.closed && rs.byCaller
	rs.mu.Unlock()
	if !byCaller && rs.ctx.Err() != nil {
		return rs.endedError()
	}
	return errStreamEnd
}

// endedError is ctxError, with the panic of the shutdown that the end of
// the context ran, if any (and not reported yet).
func (rs *recordStream) endedError() error {
	err := rs.ctxError()
	<-rs.done // the shutdown on the context's end has run or is running
	if p := rs.takePanic(); p != nil {
		err = fmt.Errorf("%w; %w", err, p)
	}
	return err
}

func (rs *recordStream) response() *Response {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.resp
}

// Close is [Stream.Close].
func (rs *recordStream) Close() error { return rs.shutdown(true) }

// shutdown closes the stream: the body of the current connection, and
// what the stream holds. byCaller says whether Close did it; else the
// context ended, and shutdown runs on a goroutine of its own: a panic of
// what it runs (the observer's StreamEnd or CallEnd) is then recovered and
// kept for the range or Close to report. Otherwise a panic goes on, once
// everything is released. Once shutdown has run, Close returns nil, or
// the kept panic if nothing reported it yet.
func (rs *recordStream) shutdown(byCaller bool) (err error) {
	rs.mu.Lock()
	if rs.closed {
		rs.mu.Unlock()
		if !byCaller {
			return nil
		}
		<-rs.done
		if p := rs.takePanic(); p != nil {
			return errorf(rs.op, "%w", p)
		}
		return nil
	}
	rs.closed, rs.byCaller = true, byCaller
	rs.stopped.Store(true)
	close(rs.closing)
	body, cancel, release := rs.body, rs.cancel, rs.release
	rs.body, rs.cancel, rs.release = nil, nil, nil
	failed, seen := rs.failed, rs.seen
	rs.mu.Unlock()
	returned := false
	defer func() {
		if !byCaller && !returned {
			rs.keepPanic(fmt.Errorf("ending the stream: %w", newPanicOrExit(recover())))
		}
		close(rs.done)
	}()
	steps := make([]func(), 0, 4+len(release))
	if rs.observed != nil {
		steps = append(steps, func() {
			if err := rs.ctx.Err(); failed == nil && !byCaller && err != nil {
				failed = errorf(rs.op, "after %s: %w", recordsText(seen), err)
			}
			rs.st.observe.streamEnd(rs.observed, StreamResult{Request: rs.sc.req, Records: seen, Err: failed})
		})
	}
	if body != nil {
		steps = append(steps, func() { err = body.Close() })
	}
	if cancel != nil {
		steps = append(steps, cancel)
	}
	for i := len(release) - 1; i >= 0; i-- {
		steps = append(steps, release[i])
	}
	if rs.callEnd != nil {
		steps = append(steps, rs.callEnd.finish)
	}
	// Each step runs, whichever panics.
	runEach(steps)
	returned = true
	return err
}

func (rs *recordStream) keepPanic(err error) {
	rs.mu.Lock()
	rs.panicked = err
	rs.mu.Unlock()
}

// takePanic returns the panic kept by shutdown, once.
func (rs *recordStream) takePanic() error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	err := rs.panicked
	rs.panicked = nil
	return err
}

// resume reconnects a server-sent event stream after its connection
// dropped with err, when it may (see Stream). It reports whether it tried;
// if so, the error is nil when the stream goes on, or the one to yield.
func (rs *recordStream) resume(cause error) (bool, error) {
	id := rs.sse.LastEventID()
	if id == "" || httpsyntax.HasControl(id) || !retryableError(rs.ctx, cause) {
		return false, nil
	}
	rt := rs.st.retry.inForce(rs.sc.req)
	if rt == nil || refusalsOnly(rs.sc.req) {
		return false, nil
	}
	rs.drops++
	if rs.drops >= rt.maxAttempts {
		return true, errorf(rs.op, "after %s: the connection dropped %d times without a new event: %w", recordsText(rs.n), rs.drops, cause)
	}
	rs.closeBody()
	wait := rt.backoff(rs.drops)
	if d, ok := rs.sse.ReconnectionTime(); ok {
		wait = min(d, rt.maxDelay)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-rs.closing:
		return true, rs.stopError()
	}

	// The reconnection is cancelled by Close, as a read would be.
	ctx, cancel := context.WithCancel(rs.ctx)
	rs.mu.Lock()
	if rs.closed {
		rs.mu.Unlock()
		cancel()
		return true, rs.stopError()
	}
	rs.cancel = cancel
	rs.mu.Unlock()
	req := rs.sc.req.clone()
	req.Header.Set("Last-Event-ID", id)
	resp, err := rs.st.send(ctx, rs.sc.chain, req)
	if err == nil {
		if f, ok := framingOf(resp); !ok || f != framingSSE {
			resp.takeStream().Close()
			err = fmt.Errorf("the response is %d %s, not an event stream", resp.StatusCode, cmp.Or(resp.Header.Get("Content-Type"), "without a content type"))
		}
	}
	if err != nil {
		rs.closeBody() // cancels ctx
		if rs.stopped.Load() {
			return true, rs.stopError()
		}
		return true, errorf(rs.op, "after %s: reconnecting with Last-Event-ID %q: %w", recordsText(rs.n), id, err)
	}
	body := resp.takeStream()
	rs.mu.Lock()
	if rs.closed {
		rs.mu.Unlock()
		body.Close()
		return true, rs.stopError()
	}
	rs.resp, rs.body = resp, body
	rs.mu.Unlock()
	rs.sse.Reset(body)
	return true, nil
}

// closeBody closes the body of the current connection, giving back what
// it holds, while the stream goes on.
func (rs *recordStream) closeBody() {
	rs.mu.Lock()
	body, cancel := rs.body, rs.cancel
	rs.body, rs.cancel = nil, nil
	rs.mu.Unlock()
	if body != nil {
		body.Close()
	}
	if cancel != nil {
		cancel()
	}
}

func recordsText(n int) string {
	if n == 1 {
		return "1 record"
	}
	return strconv.Itoa(n) + " records"
}
