package kit

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Private implementation past this point.
//
// request.go builds the *Request of every call: endpoint calls, resource
// operations and the pages of a walk all come through build, so they get
// the same URL joining, headers, body validation and encoding.

// userAgent is sent unless the client sets its own User-Agent header.
const userAgent = "kit-go/0.1"

// callPolicy is what an endpoint declaration says about how its calls are
// sent. It is worked out once, at declaration; every Request points at its
// endpoint's policy and the layers of the chain read it from there.
type callPolicy struct {
	noAuth     bool          // NoAuth
	maxBody    int64         // WithMaxBodySize; 0: the client's
	retry      *RetryPolicy  // WithRetry; nil: the client's
	noRetry    bool          // NoRetry
	idempotent bool          // Idempotent
	timeout    time.Duration // WithTimeout; 0: none
}

// defaultPolicy is the policy of resource operations and page requests.
var defaultPolicy = &callPolicy{}

// build turns a routed call of declaration d into a Request. rawURL, when
// set, is the whole URL to request (a next-page link), used instead of d's
// path and r's query. The body, if any, is validated and encoded here:
// nothing is sent when build fails.
func (st *clientState) build(d *endpointDecl, r *routed, rawURL string) (*Request, error) {
	if rawURL == "" {
		var b strings.Builder
		b.Grow(len(st.prefix) + len(d.tmpl.Raw) + 64)
		if err := st.writePath(&b, d, r); err != nil {
			return nil, err
		}
		if q := mergeQuery(st.baseQuery, d.tmpl.Static, r.query); len(q) > 0 {
			b.WriteByte('?')
			b.WriteString(q.Encode())
		}
		rawURL = b.String()
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the URL, which may hold a secret
		}
		return nil, errorf(d.name, "building the URL: %w", err)
	}
	req := &Request{
		Method:   d.method,
		URL:      u,
		Endpoint: d.name,
		policy:   &d.callPolicy,
	}
	h := make(http.Header, 4+len(st.header)+len(r.header))
	// kit's own header values share one backing array (capped slices, so
	// an append to one copies it): one allocation instead of three.
	defaults := make([]string, 3)
	defaults[0], defaults[1], defaults[2] = "application/json", userAgent, "application/json"
	h["Accept"] = defaults[0:1:1]
	if r.body.IsValid() {
		if err := validateValue(st.validator, r.body); err != nil {
			return nil, errorf(d.name, "request body: %w", err)
		}
		body, err := marshalJSON(r.body.Interface())
		if err != nil {
			return nil, errorf(d.name, "encoding the request body: %w", err)
		}
		h["Content-Type"] = defaults[2:3:3]
		req.GetBody = bytesBody(body)
		req.ContentLength = int64(len(body))
	}
	// The client's headers replace kit's defaults (Accept, User-Agent), and
	// a call's header parameters replace the client's for the same key.
	for k, vs := range st.header {
		h[k] = append([]string(nil), vs...)
	}
	for k, vs := range r.header {
		h[k] = vs
	}
	if _, ok := h["User-Agent"]; !ok {
		h["User-Agent"] = defaults[1:2:2]
	}
	req.Header = h
	return req, nil
}

// writePath writes the URL of a call of d without its query: the client's
// prefix and d's path with the routed placeholder values.
func (st *clientState) writePath(b *strings.Builder, d *endpointDecl, r *routed) error {
	for i, ok := range r.filled {
		if !ok {
			return errorf(d.name, "no value for path parameter {%s}", r.names[i])
		}
	}
	b.WriteString(st.prefix)
	if err := d.tmpl.Expand(b, r.names, r.vals); err != nil {
		return errorf(d.name, "%w", err)
	}
	return nil
}

// bytesBody is a GetBody over b: each call gets a new reader of the same
// bytes, so every attempt sends them again.
func bytesBody(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}
