package kittest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// RecordingEngine is a kit.Engine that serves every request in-process with
// Handler (no network) and records what was sent. Use it with
// kit.WithSyncEngine to check exactly which requests a piece of code makes. It
// is safe for concurrent use.
type RecordingEngine struct {
	// Handler answers the requests; nil answers 200 with an empty JSON
	// object.
	Handler http.Handler

	mu   sync.Mutex
	reqs []RecordedRequest
}

// RecordedRequest is one request seen by a RecordingEngine.
type RecordedRequest struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// Do records req and serves it with the engine's Handler. It returns the
// request context's error, without recording, if the context is done.
func (e *RecordingEngine) Do(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	e.mu.Lock()
	e.reqs = append(e.reqs, RecordedRequest{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(), Body: body})
	e.mu.Unlock()

	h := e.Handler
	if h == nil {
		h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "{}")
		})
	}
	served := req.Clone(req.Context())
	served.Body = io.NopCloser(bytes.NewReader(body))
	served.RequestURI = req.URL.RequestURI()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, served)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// Requests returns a copy of the requests recorded so far, oldest first.
func (e *RecordingEngine) Requests() []RecordedRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]RecordedRequest(nil), e.reqs...)
}

// Reset forgets the recorded requests.
func (e *RecordingEngine) Reset() {
	e.mu.Lock()
	e.reqs = nil
	e.mu.Unlock()
}
