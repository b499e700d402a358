package kit

import (
	"context"
	"net/http"
	"net/url"

	"github.com/kithttp/kit/internal/pagescan"
)

// Response is a response whose body has been read: its status, headers, the
// request that produced it, and the body bytes. An endpoint whose result
// type is *Response returns it undecoded; [Resource.Delete] returns it; each
// [Page] carries one; Result[T] embeds one. A Response is safe for concurrent
// reads.
//
// The response of an endpoint whose result is io.ReadCloser, a [Stream] (or a
// [Result] of either) is streamed: its body is handed to the caller
// unread, and JSON and Bytes see no body, in interceptors too.
type Response struct {
	StatusCode  int
	Header      http.Header
	Request     *http.Request
	body        []byte
	stream      *streamBody     // the unread body of a streamed response; nil otherwise
	page        *pagescan.Info  // what the single pass over a page found
	redact      redactor        // the client's and request's, for redacting URLs in errors
	cached      bool            // served from the client's cache (WithCache)
	unforeseen  bool            // sent with credentials or a URL the cache's key does not cover (see cache_sent.go)
	observed    context.Context // a streamed call's context from Observer.CallStart; nil otherwise
	observedEnd *streamedEnd    // a streamed call's Observer.CallEnd; nil otherwise
	finalURL    *url.URL        // the URL that answered (after redirects); nil when Request's or unknown
}

// originOr returns the origin of the URL that answered: where a redirect
// led, else sent (the URL the request was sent to).
func (r *Response) originOr(sent *url.URL) originKey {
	if r.finalURL != nil {
		return originOf(r.finalURL)
	}
	return originOf(sent)
}

// JSON decodes the body into v, which must be a pointer. An empty body or
// one that is not JSON gives a [*DecodeError].
func (r *Response) JSON(v any) error {
	return decodeBody(r, v)
}

// Bytes returns the body (nil for a streamed response). The slice is
// shared: do not modify it.
func (r *Response) Bytes() []byte { return r.body }
