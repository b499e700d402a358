package kittest

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
)

// Fault is what a FaultServer does with one request. The named faults are
// below; a value from 100 to 599 answers that status (see FaultStatus), so
// Script(503, 503) is two 503 responses.
type Fault int

// The faults a FaultServer injects.
const (
	// FaultNone passes the request to the wrapped handler.
	FaultNone Fault = iota
	// FaultRefuse closes the connection at once with a TCP reset, without
	// a response: to the client, the same failure as a refused
	// connection. (For a truly refused connection, Close the server and
	// call its URL.)
	FaultRefuse
	// FaultReset sends the wrapped handler's status and headers with a
	// Content-Length, half of its body, then resets the connection.
	FaultReset
	// FaultTruncated is FaultReset with a clean close (FIN) instead of a
	// reset: the body is shorter than its Content-Length.
	FaultTruncated
	// FaultCutJSON is a well-framed 200 whose JSON body is the first half
	// of the wrapped handler's: Content-Length matches what is sent.
	FaultCutJSON
	// FaultMalformed is a 200 application/json response with broken JSON.
	FaultMalformed
	// FaultWrongType is a 200 text/html page.
	FaultWrongType
	// FaultHuge is a 200 JSON array streamed without Content-Length, of
	// HugeSize bytes (1 MiB unless SetHugeSize says otherwise).
	FaultHuge
	// FaultStall sends 200 headers, then nothing until the request's
	// context ends or the server is closed.
	FaultStall
	// FaultRedirectLoop answers 302 to a URL that redirects to itself
	// forever (those hops do not use the script).
	FaultRedirectLoop
	// Fault401 answers 401 with WWW-Authenticate: Bearer error="invalid_token".
	Fault401
	// FaultHang sends nothing, not even a status, until the request's
	// context ends or the server is closed: a server slow to its first
	// byte (for an attempt timeout).
	FaultHang
	// FaultStallMidBody sends the wrapped handler's status, headers (with
	// its Content-Length) and the first half of its body, then nothing
	// until the request's context ends or the server is closed: a stream
	// or a download that goes silent (for an idle timeout). The headers
	// are the handler's: in front of the API's GET /download (Accept-Ranges,
	// ETag) the client may resume with a Range, which the next request
	// (FaultNone) answers with 206 and the rest.
	FaultStallMidBody
	// FaultZstdBomb is a 200 application/json response with
	// Content-Encoding: zstd whose 32 KiB body decodes to 1 GiB of zeros:
	// a decompression bomb, which a client must bound (see
	// kit.WithResponseCompression).
	FaultZstdBomb
	// FaultIgnoreRange passes the request to the wrapped handler without
	// its Range and If-Range headers: a 200 with the whole body, as a
	// server answers a resume whose If-Range no longer matches (the
	// resource changed since the first bytes were sent).
	FaultIgnoreRange
	// FaultStatus is 503; any Fault from 100 to 599 answers that status
	// with a small JSON error body, and with the Retry-After set by
	// SetRetryAfter, if any, on 429 and 503.
	FaultStatus Fault = http.StatusServiceUnavailable
)

// loopPath is where FaultRedirectLoop leads.
const loopPath = "/kittest/redirect-loop"

// FaultServer is a loopback HTTP server that injects faults, in the order
// given to Script, into the requests it receives, and passes the others to
// a wrapped handler. Keep-alives are off, so each request has its own
// connection and a fault never touches another request. It is safe for
// concurrent use; a stalled request ends when its context ends or the
// server is closed, so Close never blocks on it.
type FaultServer struct {
	srv  *httptest.Server
	next http.Handler
	done chan struct{}
	once sync.Once

	mu         sync.Mutex
	script     []Fault
	fallback   Fault
	requests   int
	retryAfter string
	hugeSize   int64
	dieAt      int  // DieAfter: the request count after which it dies; 0: never
	dead       bool // it has died: it no longer listens
}

// NewFaultServer starts a FaultServer on 127.0.0.1 wrapping next (NewAPI()
// when nil). It is closed when the test ends.
func NewFaultServer(t TB, next http.Handler) *FaultServer {
	t.Helper()
	if next == nil {
		next = NewAPI()
	}
	s := &FaultServer{next: next, done: make(chan struct{}), hugeSize: 1 << 20}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Config.SetKeepAlivesEnabled(false)
	s.srv.Start()
	t.Cleanup(s.Close)
	return s
}

// URL returns the server's base URL, like "http://127.0.0.1:PORT".
func (s *FaultServer) URL() string { return s.srv.URL }

// Close stops the server: stalled requests end, and later connections to
// URL are refused. It is safe to call more than once.
func (s *FaultServer) Close() {
	s.once.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Script queues faults: the next requests get them in order, then the
// fallback (FaultNone unless SetFallback says otherwise). It appends to
// what is left of an earlier script.
func (s *FaultServer) Script(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, faults...)
}

// SetFallback sets the fault of every request once the script is used up,
// e.g. Fault401 for a server that rejects everything.
func (s *FaultServer) SetFallback(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = f
}

// SetRetryAfter sets the Retry-After value of 429 and 503 faults ("" for
// none, the default).
func (s *FaultServer) SetRetryAfter(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.retryAfter = v
}

// SetHugeSize sets the body size of FaultHuge.
func (s *FaultServer) SetHugeSize(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hugeSize = n
}

// DieAfter makes the server an origin that dies: it answers n more
// requests (faults and redirect hops count), then stops listening, so
// that later connections to URL are refused, as to a host that went down
// (a request already on its way gets a TCP reset, no response). DieAfter(0)
// kills it at once. Close still ends what is in flight. Use it to test a
// client's failover ([kit.WithFailover]) or circuit breaker.
func (s *FaultServer) DieAfter(n int) {
	s.mu.Lock()
	if n > 0 {
		s.dieAt = s.requests + n
		s.mu.Unlock()
		return
	}
	s.dieLocked()
	s.mu.Unlock()
}

// dieLocked closes the listener: later dials are refused. s.mu is held.
func (s *FaultServer) dieLocked() {
	if !s.dead {
		s.dead = true
		s.srv.Listener.Close()
	}
}

// Requests returns how many requests the server has received, redirect
// hops included.
func (s *FaultServer) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Pending returns how many scripted faults are left.
func (s *FaultServer) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

func (s *FaultServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.dead {
		// Accepted before the listener closed: the origin is gone.
		s.mu.Unlock()
		s.hijack(w, nil, true)
		return
	}
	s.requests++
	if s.dieAt > 0 && s.requests >= s.dieAt {
		s.dieLocked() // this request is the last one answered
	}
	if r.URL.Path == loopPath {
		s.mu.Unlock()
		http.Redirect(w, r, loopPath, http.StatusFound)
		return
	}
	f := s.fallback
	if len(s.script) > 0 {
		f, s.script = s.script[0], s.script[1:]
	}
	retryAfter, huge := s.retryAfter, s.hugeSize
	s.mu.Unlock()

	switch {
	case f >= 100 && f <= 599:
		if retryAfter != "" && (f == 429 || f == 503) {
			w.Header().Set("Retry-After", retryAfter)
		}
		apiWriteError(w, int(f), "fault", "injected "+strconv.Itoa(int(f)))
	case f == FaultRefuse:
		s.hijack(w, nil, true)
	case f == FaultReset, f == FaultTruncated, f == FaultCutJSON:
		rec := httptest.NewRecorder()
		s.next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		half := body[:len(body)/2]
		if f == FaultCutJSON {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(half)))
			w.WriteHeader(http.StatusOK)
			w.Write(half)
			return
		}
		var b bytes.Buffer
		b.WriteString("HTTP/1.1 " + strconv.Itoa(rec.Code) + " " + http.StatusText(rec.Code) + "\r\n")
		h := rec.Header().Clone()
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Connection", "close")
		h.Write(&b)
		b.WriteString("\r\n")
		b.Write(half)
		s.hijack(w, b.Bytes(), f == FaultReset)
	case f == FaultMalformed:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data": [{"id": 1, "name": "Ada",, }]`))
	case f == FaultWrongType:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte("<!DOCTYPE html><html><body><h1>Maintenance</h1></body></html>"))
	case f == FaultHuge:
		w.Header().Set("Content-Type", "application/json")
		chunk := bytes.Repeat([]byte("0,"), 16<<10)
		w.Write([]byte("["))
		for n := int64(1); n < huge-2; n += int64(len(chunk)) {
			select {
			case <-r.Context().Done():
				return
			case <-s.done:
				return
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte("0]"))
	case f == FaultStall:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	case f == FaultHang:
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	case f == FaultStallMidBody:
		rec := httptest.NewRecorder()
		s.next.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(rec.Code)
		w.Write(body[:len(body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
	case f == FaultRedirectLoop:
		http.Redirect(w, r, loopPath, http.StatusFound)
	case f == FaultZstdBomb:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "zstd")
		w.Write(zstdBomb(1 << 30))
	case f == FaultIgnoreRange:
		r = r.Clone(r.Context())
		r.Header.Del("Range")
		r.Header.Del("If-Range")
		s.next.ServeHTTP(w, r)
	case f == Fault401:
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		apiWriteError(w, http.StatusUnauthorized, "unauthorized", "injected 401")
	default:
		s.next.ServeHTTP(w, r)
	}
}

// hijack takes the connection, writes raw, and closes it, with a TCP reset
// when reset is set.
func (s *FaultServer) hijack(w http.ResponseWriter, raw []byte, reset bool) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if len(raw) > 0 {
		conn.Write(raw)
	}
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}
