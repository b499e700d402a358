package kittest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// apiMaxBody is the largest request body the API reads.
const apiMaxBody = 1 << 20

// apiMaxInt is the largest int.
const apiMaxInt = int(^uint(0) >> 1)

// APIError is the API's error model: the JSON body of every error
// response, {"error": "<code>", "message": "<text>"}, with "fields" on a
// 422 validation_failed. *APIError implements error, so a client can pass
// it to kit's WithErrorModel and match it with errors.As:
//
//	c, _ := kit.NewClient(srv.URL, kit.WithErrorModel[kittest.APIError]())
//	_, err := getUser.Call(ctx, c, UserID{424242})
//	var apiErr *kittest.APIError
//	if errors.As(err, &apiErr) && apiErr.Code == "not_found" { ... }
type APIError struct {
	Code    string            `json:"error"`            // not_found, validation_failed, ...
	Message string            `json:"message"`          // for people
	Fields  map[string]string `json:"fields,omitempty"` // field name -> problem, on a 422
}

// Error returns "<code>: <message>".
func (e *APIError) Error() string { return e.Code + ": " + e.Message }

// apiEncodeJSON encodes v as a response body: JSON without HTML escaping,
// with a trailing newline. If v cannot be encoded it returns the body of a
// 500 error and false.
func apiEncodeJSON(v any) ([]byte, bool) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(`{"error":"internal","message":"encoding the response failed"}` + "\n"), false
	}
	return buf.Bytes(), true
}

// apiWriteJSON writes v as a JSON response with the given status.
func apiWriteJSON(w http.ResponseWriter, status int, v any) {
	body, ok := apiEncodeJSON(v)
	if !ok {
		status = http.StatusInternalServerError
	}
	apiWriteBody(w, status, body)
}

// apiWriteBody writes an encoded JSON body with the given status.
func apiWriteBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// apiWriteError writes an error response.
func apiWriteError(w http.ResponseWriter, status int, code, msg string) {
	apiWriteJSON(w, status, APIError{Code: code, Message: msg})
}

func apiBadRequest(w http.ResponseWriter, msg string) {
	apiWriteError(w, http.StatusBadRequest, "bad_request", msg)
}

func apiNotFound(w http.ResponseWriter, msg string) {
	apiWriteError(w, http.StatusNotFound, "not_found", msg)
}

func apiValidationFailed(w http.ResponseWriter, fields map[string]string) {
	apiWriteJSON(w, http.StatusUnprocessableEntity, APIError{
		Code:    "validation_failed",
		Message: "the request has invalid fields",
		Fields:  fields,
	})
}

// apiParseID parses a path id: decimal digits only, at least 1, no
// overflow.
func apiParseID(s string) (int, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1
}

// apiIntParam reads the integer query parameter name: def when absent or
// empty, an error message when it is not an integer in lo..hi.
func apiIntParam(q url.Values, name string, def, lo, hi int) (int, string) {
	s := q.Get(name)
	if s == "" {
		return def, ""
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		if hi == apiMaxInt {
			return 0, name + " must be an integer of at least " + strconv.Itoa(lo)
		}
		return 0, name + " must be an integer between " + strconv.Itoa(lo) + " and " + strconv.Itoa(hi)
	}
	return n, ""
}

// apiParseFilter reads the listing filters active, team_id and q.
func apiParseFilter(q url.Values) (apiFilter, string) {
	var f apiFilter
	if s := q.Get("active"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return f, "active must be true or false"
		}
		f.active = &b
	}
	if s := q.Get("team_id"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return f, "team_id must be an integer"
		}
		f.teamID, f.hasTeam = n, true
	}
	f.q = strings.ToLower(q.Get("q"))
	return f, ""
}

// apiIsJSONType reports whether the request's Content-Type is JSON:
// application/json or application/*+json, with any parameters.
func apiIsJSONType(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// apiReadBody reads the request body, at most apiMaxBody bytes. On failure
// it writes the error response and returns false.
func apiReadBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Body == nil {
		return nil, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, apiMaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			apiWriteError(w, http.StatusRequestEntityTooLarge, "payload_too_large",
				"request body is larger than "+strconv.Itoa(apiMaxBody)+" bytes")
			return nil, false
		}
		apiBadRequest(w, "reading the request body failed")
		return nil, false
	}
	return body, true
}

// apiReadJSON checks that the request has a JSON Content-Type and a
// well-formed JSON body whose first character is open ('{' or '['), and
// returns the body. On failure it writes the error response (415, 413 or
// 400) and returns false.
func apiReadJSON(w http.ResponseWriter, r *http.Request, open byte) ([]byte, bool) {
	if !apiIsJSONType(r) {
		apiWriteError(w, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"Content-Type must be application/json")
		return nil, false
	}
	body, ok := apiReadBody(w, r)
	if !ok {
		return nil, false
	}
	body = bytes.TrimSpace(body)
	what := "object"
	if open == '[' {
		what = "array"
	}
	switch {
	case len(body) == 0:
		apiBadRequest(w, "request body is empty; expected a JSON "+what)
	case !json.Valid(body):
		apiBadRequest(w, "request body is not valid JSON")
	case body[0] != open:
		apiBadRequest(w, "request body must be a JSON "+what)
	default:
		return body, true
	}
	return nil, false
}
