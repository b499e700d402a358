package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// Private implementation past this point.
//
// stream.go hands a 2xx body over unread, for endpoints whose result is
// io.ReadCloser (or Result[io.ReadCloser]). The transport wraps the body in
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

	mu       sync.Mutex
	closed   bool
	releases []func()    // run once, last added first, when the body is closed
	stop     func() bool // unregisters the close on ctx's end
}

// newStreamBody wraps hresp's body. When ctx is the context of a tracked
// async call of st, the call is held open until the body is closed.
func (st *clientState) newStreamBody(ctx context.Context, hreq *http.Request, hresp *http.Response) *streamBody {
	s := &streamBody{body: hresp.Body, op: st.opOf(hreq.Method, hreq.URL), ctx: ctx}
	if t, ok := ctx.Value(asyncTaskKey{}).(*asyncTask); ok && t.w == &st.work {
		t.hold()
		s.releases = append(s.releases, t.unhold)
	}
	s.stop = context.AfterFunc(ctx, func() { s.Close() })
	return s
}

// Read reads the body. Errors other than io.EOF say what was being read,
// and match the context's error when it has ended.
func (s *streamBody) Read(p []byte) (int, error) {
	n, err := s.body.Read(p)
	if err != nil && err != io.EOF {
		if ctxErr := s.ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		if errors.Is(context.Cause(s.ctx), errCloseCancelled) && !errors.Is(err, ErrClosed) {
			err = fmt.Errorf("%w (%w)", err, errCloseCancelled)
		}
		err = errorf(s.op, "reading the response body: %w", err)
	}
	return n, err
}

// Close closes the body, releasing the connection, and gives back what the
// request held. Further calls do nothing and return nil.
func (s *streamBody) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	releases := s.releases
	s.releases = nil
	s.mu.Unlock()
	if s.stop != nil {
		s.stop()
	}
	err := s.body.Close()
	for i := len(releases) - 1; i >= 0; i-- {
		releases[i]()
	}
	return err
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
