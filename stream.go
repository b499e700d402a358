package kit

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"time"
)

// Stream is a stream of typed records: the result of an endpoint declared
// with R = *Stream[T]. Call (or Go) returns it as soon as a 2xx status and
// its headers have arrived, with the body unread; the records are read and
// decoded one at a time as the caller ranges over All or Events, each
// decoded and validated as R = T would be. A non-2xx status is an
// [*HTTPError] from Call, as always.
//
//	var chat = kit.Post[struct{ Body ChatRequest }, *kit.Stream[Chunk]]("/chat")
//
//	s, err := chat.Call(ctx, c, struct{ Body ChatRequest }{req})
//	if err != nil { ... }
//	defer s.Close()
//	for chunk, err := range s.All() {
//		if err != nil { ... } // the one error; the loop ends after it
//		fmt.Print(chunk.Text)
//	}
//
// The response's Content-Type says how records are framed:
//
//	text/event-stream                   one record per server-sent event: its data lines, joined
//	application/x-ndjson, application/jsonl (also application/ndjson,
//	application/jsonlines, application/x-jsonlines)
//	                                    one JSON value per line; blank lines are skipped
//	application/json-seq                one JSON value per RS-separated record (RFC 7464)
//	application/json (and +json types)  a top-level JSON array, one element at a time
//
// Any other content type is a [*DecodeError] from Call; a 204 No Content is
// a stream without records. Endpoints with R = *Stream[T] send an Accept
// header naming these types ([WithHeader] on the endpoint replaces it).
//
// Server-sent events are parsed by the WHATWG rules (see [Event]): comment
// lines are skipped, and so are events without data (or with empty data);
// an event whose data is [DONE] ends the stream, as streaming completion
// APIs send. T is decoded from each event's data as JSON whatever its
// event type: use Events to see the type, and a T that fits every type
// the endpoint sends (any, or a struct with the union of their fields).
//
// Memory holds one record, not the stream: a stream of any length is read
// with a buffer the size of its largest record. A single record larger
// than the body limit ([WithMaxBodySize]) is an error matching
// [ErrBodyTooLarge], while the stream itself has no size limit.
//
// A range yields each record, or one error and then ends: a record that
// does not decode (a *DecodeError, also for a body that is not the framing
// its content type says), one that does not validate (a [*ValidationError]),
// a record over the limit, or a failed connection. The context of the call
// bounds the stream: once it ends, the range stops with an error matching
// the context's error (and an endpoint's [WithTimeout] bounds the whole
// stream). A Stream is read once: ranging a second time, over All or
// Events, yields only an error.
//
// Breaking out of the range, reaching its end, or Close releases the
// connection, the endpoint's timeout and, on an [AsyncClient], the in-flight
// slot and the call that [AsyncClient.Close] waits for. A Stream that is
// never ranged over must be closed; a deferred Close is always safe.
//
// # Resuming server-sent events
//
// When the connection of a text/event-stream drops (a reset, or a body cut
// short: not a response that ends normally) after events that carried an
// id, and the endpoint may be retried (a [WithRetry] policy applies to it,
// and its method is idempotent or it is declared [Idempotent]), kit sends the
// request again with a Last-Event-ID header, as a browser's EventSource
// does, and the range goes on with the new connection's events: a server
// that honours Last-Event-ID sends each event once, and none is lost (an
// event the drop cut in the middle is discarded, and its id is not
// acknowledged). Before reconnecting kit waits the reconnection time the
// server set with a retry field, capped by the policy's MaxDelay, or a
// backoff of the policy when the server set none. The request goes through
// the whole send chain again (interceptors, the rate limit, auth, logging,
// and the retry policy for the reconnection itself). A drop with no new
// event since the last reconnection counts against the policy's
// MaxAttempts; once they are used up, the range yields the error of the
// drop.
//
// A Stream is safe for concurrent use in this sense: Close and Response may
// be called from any goroutine, also while another ranges over it, and a
// Close during a range ends the range after the record in hand, without an
// error. Only one goroutine ranges over a Stream.
type Stream[T any] struct {
	rs *recordStream
}

// All returns the records of the stream, in order, each decoded and
// validated as R = T would be. See [Stream] for the errors it yields.
func (s *Stream[T]) All() iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		rs, err := s.begin("All")
		if err != nil {
			yield(zero, err)
			return
		}
		defer rs.Close()
		for {
			var v T
			if _, err := rs.next(&v); err != nil {
				if err != errStreamEnd {
					yield(zero, err)
				}
				return
			}
			if !yield(v, nil) {
				return
			}
		}
	}
}

// Events returns the records of the stream like All, with the metadata of
// the server-sent event each came from (empty for the other framings).
func (s *Stream[T]) Events() iter.Seq2[Event[T], error] {
	return func(yield func(Event[T], error) bool) {
		rs, err := s.begin("Events")
		if err != nil {
			yield(Event[T]{}, err)
			return
		}
		defer rs.Close()
		for {
			var e Event[T]
			m, err := rs.next(&e.Data)
			if err != nil {
				if err != errStreamEnd {
					yield(Event[T]{}, err)
				}
				return
			}
			e.ID, e.Type, e.Retry = m.id, m.typ, m.retry
			if !yield(e, nil) {
				return
			}
		}
	}
}

// Response returns the response the records are read from: its status,
// headers and request, with no body bytes. After a server-sent event
// stream has resumed, it is the response of the new connection. It is nil
// for a nil [Stream].
func (s *Stream[T]) Response() *Response {
	if s == nil || s.rs == nil {
		return nil
	}
	return s.rs.response()
}

// Close releases the connection and what the call held (see [Stream]). It is
// idempotent: later calls do nothing and return nil, except that after the
// end of the stream's context closed it, Close returns the [*PanicError]
// of an [Observer] that panicked meanwhile if the range did not.
func (s *Stream[T]) Close() error {
	if s == nil || s.rs == nil {
		return nil
	}
	return s.rs.Close()
}

// Event is a record of a [Stream] with the metadata of the server-sent event
// it came from, as [Stream.Events] yields it. For the framings other than
// text/event-stream, ID and Type are "" and Retry is 0.
type Event[T any] struct {
	// ID is the event's ID: the value of the last id field the stream
	// sent, up to and including this event (the WHATWG "last event ID",
	// which carries over to the events after it until another id field
	// changes it); "" when there was none.
	ID string
	// Type is the event's event field; "" when absent.
	Type string
	// Data is the record, decoded from the event's data.
	Data T
	// Retry is the reconnection time the server set with a retry field
	// since the event before; 0 when it set none.
	Retry time.Duration
}

// Private implementation past this point.
//
// stream.go holds two things: Stream, the typed records of an R =
// *Stream[T] endpoint (its framing, decoding and resuming live in
// record_stream.go), and streamBody, the unread 2xx body both kinds of streamed
// result are read from.

// begin returns the stream's core for a range, or the error to yield.
func (s *Stream[T]) begin(method string) (*recordStream, error) {
	if s == nil || s.rs == nil {
		return nil, errorf("Stream."+method, "nil Stream (use the one Call or Go returns)")
	}
	return s.rs, s.rs.begin()
}

// openStream makes the *Stream[T] of resp in *ptr (a **Stream[T]). It is
// called on a nil *Stream[T]: decodeInto opens a stream without knowing T.
func (*Stream[T]) openStream(ptr any, st *clientState, resp *Response, sc *streamCall) error {
	rs, err := newRecordStream(st, resp, sc, reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	*ptr.(**Stream[T]) = &Stream[T]{rs: rs}
	return nil
}

// recordType returns T.
func (*Stream[T]) recordType() reflect.Type { return reflect.TypeFor[T]() }

// recordsOpener is implemented by *Stream[T].
type recordsOpener interface {
	openStream(ptr any, st *clientState, resp *Response, sc *streamCall) error
	recordType() reflect.Type
}

var recordsOpenerType = reflect.TypeFor[recordsOpener]()

// isStreamType reports whether t is an instance of Stream (not a type that
// embeds one).
func isStreamType(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == responseType.Elem().PkgPath() &&
		len(t.Name()) > 7 && t.Name()[:7] == "Stream[" && reflect.PointerTo(t).Implements(recordsOpenerType)
}

// The unread body.
//
// A 2xx body is handed over unread for endpoints whose result is
// io.ReadCloser (or Result[io.ReadCloser]) or a *Stream[T]. The transport wraps the body in
// a streamBody instead of reading it; the layers that hold something for
// the duration of a request (the endpoint timeout's context, the async
// in-flight slot, the async call's task that AsyncClient.Close waits for)
// give it up when the body is closed rather than when the chain returns.
// The body also closes itself when the request's context ends, so an
// abandoned stream cannot hold a slot past its context or past Close.

// streamBody is the body of a streamed response.
type streamBody struct {
	body io.ReadCloser // the engine's response body
	op   string        // "GET https://...", for errors
	ctx  context.Context
	done chan struct{} // closed once Close has run (and its releases)
	idle *idleWatch    // WithIdleTimeout; nil: none
	// decoded: the engine or kit decoded the body's Content-Encoding, so
	// its bytes are not the representation's (a Range cannot resume it).
	decoded bool

	mu       sync.Mutex
	closed   bool
	releases []func()    // run once, last added first, when the body is closed
	stop     func() bool // unregisters the close on ctx's end; under mu
	panicked error       // a panic of the close on ctx's end, until reported
}

// newStreamBody wraps hresp's body. When ctx is the context of a tracked
// async call of st, the call is held open until the body is closed.
func (st *clientState) newStreamBody(ctx context.Context, req *Request, hreq *http.Request, hresp *http.Response) *streamBody {
	s := &streamBody{body: hresp.Body, op: st.redactorOf(req).op(hreq.Method, hreq.URL), ctx: ctx, done: make(chan struct{}), decoded: hresp.Uncompressed}
	if s.idle = newIdleWatch(cmp.Or(req.policy.idleTimeout, st.idleTimeout), hresp.Body); s.idle != nil {
		s.releases = append(s.releases, s.idle.stop)
	}
	if t, ok := ctx.Value(asyncTaskKey{}).(*asyncTask); ok && t.w == &st.work {
		t.hold()
		s.releases = append(s.releases, t.unhold)
	}
	// Under the lock: when ctx has already ended, the func runs at once on
	// another goroutine, and its close must see stop.
	s.mu.Lock()
	s.stop = context.AfterFunc(ctx, func() { s.close(true) })
	s.mu.Unlock()
	return s
}

// Read reads the body. Errors other than io.EOF say what was being read,
// and match the context's error when it has ended (and a *PanicError when
// what its end ran panicked).
func (s *streamBody) Read(p []byte) (int, error) {
	var n int
	var err error
	if s.idle != nil {
		n, err = s.idle.read(s.body, p)
	} else {
		n, err = s.body.Read(p)
	}
	if err != nil && err != io.EOF {
		if ctxErr := s.ctx.Err(); ctxErr != nil {
			if !errors.Is(err, ctxErr) {
				err = fmt.Errorf("%w (%v)", ctxErr, err)
			}
			<-s.done // the close on ctx's end has run or is running
			if p := s.takePanic(); p != nil {
				err = fmt.Errorf("%w; %w", err, p)
			}
		}
		if errors.Is(context.Cause(s.ctx), errCloseCancelled) && !errors.Is(err, ErrClosed) {
			err = fmt.Errorf("%w (%w)", err, errCloseCancelled)
		}
		err = errorf(s.op, "reading the response body: %w", err)
	}
	return n, err
}

// Close closes the body, releasing the connection, and gives back what the
// request held. Further calls return nil once that is done, or the panic
// of the close that the end of the context ran (see close), once.
func (s *streamBody) Close() error { return s.close(false) }

// close is Close; onCtx says the end of the context runs it, on a
// goroutine of its own: a panic of what it runs (an observer's CallEnd) is
// then recovered and kept for Read or Close to report. Otherwise a panic
// goes on, once every release has run.
func (s *streamBody) close(onCtx bool) (err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		if onCtx {
			return nil
		}
		<-s.done
		if p := s.takePanic(); p != nil {
			return errorf(s.op, "%w", p)
		}
		return nil
	}
	s.closed = true
	releases, stop := s.releases, s.stop
	s.releases, s.stop = nil, nil
	s.mu.Unlock()
	returned := false
	defer func() {
		if onCtx && !returned {
			s.keepPanic(fmt.Errorf("ending the call: %w", newPanicOrExit(recover())))
		}
		close(s.done)
	}()
	if stop != nil {
		stop()
	}
	err = s.body.Close()
	slices.Reverse(releases)
	runEach(releases)
	returned = true
	return err
}

func (s *streamBody) keepPanic(err error) {
	s.mu.Lock()
	s.panicked = err
	s.mu.Unlock()
}

// takePanic returns the panic kept by close, once.
func (s *streamBody) takePanic() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.panicked
	s.panicked = nil
	return err
}

// runEach runs each of fs in order: when one panics, those after it run
// too, then the panic goes on.
func runEach(fs []func()) {
	for i, f := range fs {
		ran := false
		defer func() {
			if !ran {
				runEach(fs[i+1:])
			}
		}()
		f()
		ran = true
	}
}

// onClose adds f to what Close runs; f runs at once if the body is closed.
func (s *streamBody) onClose(f func()) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		f()
		return
	}
	s.releases = append(s.releases, f)
	s.mu.Unlock()
}

// takeStream returns the response's body as a reader: the stream, for a
// streamed response, else a reader of the body bytes (a response made by
// an interceptor with NewResponse).
func (r *Response) takeStream() io.ReadCloser {
	if r.stream != nil {
		return r.stream
	}
	return io.NopCloser(bytes.NewReader(r.body))
}

// asyncTaskKey is the context key of the asyncTask whose context it is.
type asyncTaskKey struct{}
