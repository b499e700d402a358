package kittest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

func (a *API) health(w http.ResponseWriter, r *http.Request) {
	apiWriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// status handles /status/{code} for any method: it answers with the status
// code (200-599) and the body {"error":"status","message":"status <code>"}.
// A 3xx carries "Location: ../health", relative to the request so that it
// stays correct under a prefix; 204 and 304 have no body. The optional
// query parameter retry_after=N adds "Retry-After: N". Informational codes
// (1xx) cannot be a final response, so they are a 400 like any other code
// outside 200-599.
func (a *API) status(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("code")
	code, ok := apiParseID(raw)
	if !ok || code < 200 || code > 599 {
		apiBadRequest(w, "status code must be an integer between 200 and 599, got "+strconv.Quote(raw))
		return
	}
	if s := r.URL.Query().Get("retry_after"); s != "" {
		if n, err := strconv.Atoi(s); err != nil || n < 0 {
			apiBadRequest(w, "retry_after must be a non-negative integer")
			return
		}
		w.Header().Set("Retry-After", s)
	}
	if code >= 300 && code < 400 {
		w.Header().Set("Location", "../health")
	}
	if code == http.StatusNoContent || code == http.StatusNotModified {
		w.WriteHeader(code)
		return
	}
	apiWriteError(w, code, "status", "status "+strconv.Itoa(code))
}

// apiMaxSlow is the longest /slow waits.
const apiMaxSlow = 30000

// slow handles GET /slow?ms=N: it waits N milliseconds (default 1000, at
// most 30000) or until the request's context is done.
func (a *API) slow(w http.ResponseWriter, r *http.Request) {
	ms, msg := apiIntParam(r.URL.Query(), "ms", 1000, 0, apiMaxInt)
	if msg != "" {
		apiBadRequest(w, msg)
		return
	}
	ms = min(ms, apiMaxSlow)
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
	}
	apiWriteJSON(w, http.StatusOK, map[string]int{"slept_ms": ms})
}

func (a *API) text(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len("hello, not json")))
	w.Write([]byte("hello, not json"))
}

// apiMaxBig is the largest string /big serves.
const apiMaxBig = 64 << 20

// big handles GET /big?bytes=N: a JSON string of N 'a' characters (default
// 1024, at most 64 MiB), so the body is N+2 bytes. It is streamed in chunks.
func (a *API) big(w http.ResponseWriter, r *http.Request) {
	n, msg := apiIntParam(r.URL.Query(), "bytes", 1024, 0, apiMaxInt)
	if msg != "" {
		apiBadRequest(w, msg)
		return
	}
	n = min(n, apiMaxBig)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(n+2))
	w.WriteHeader(http.StatusOK)
	chunk := bytes.Repeat([]byte{'a'}, min(n, 32<<10))
	if _, err := w.Write([]byte{'"'}); err != nil {
		return
	}
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := w.Write(chunk[:k]); err != nil {
			return
		}
		n -= k
	}
	w.Write([]byte{'"'})
}

// echo handles /echo and /echo/{rest...} for any method: it describes the
// request it received. "path" is the path the API saw (after any
// http.StripPrefix), "request_uri" the request target exactly as sent,
// header names are lower-cased, and "body" is the request body as JSON,
// null when empty.
func (a *API) echo(w http.ResponseWriter, r *http.Request) {
	body, ok := apiReadBody(w, r)
	if !ok {
		return
	}
	body = bytes.TrimSpace(body)
	var parsed bytes.Buffer
	if len(body) == 0 {
		parsed.WriteString("null")
	} else if err := json.Compact(&parsed, body); err != nil {
		apiBadRequest(w, "request body is not valid JSON")
		return
	}
	headers := make(map[string][]string, len(r.Header))
	for k, v := range r.Header {
		lk := strings.ToLower(k)
		headers[lk] = append(headers[lk], v...)
	}
	query := r.URL.Query()
	if query == nil {
		query = map[string][]string{}
	}
	apiWriteJSON(w, http.StatusOK, struct {
		Method     string              `json:"method"`
		Path       string              `json:"path"`
		RequestURI string              `json:"request_uri"`
		Host       string              `json:"host"`
		Query      map[string][]string `json:"query"`
		Headers    map[string][]string `json:"headers"`
		Body       json.RawMessage     `json:"body"`
	}{r.Method, r.URL.Path, r.RequestURI, r.Host, query, headers, json.RawMessage(parsed.Bytes())})
}
