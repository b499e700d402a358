package kit

import (
	"crypto/rand"
	"fmt"
	"net/http"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// Idempotency is one concept in three options: [Idempotent] declares that
// an endpoint's request may be sent twice; [WithIdempotencyHeader] makes
// kit send a fresh key with every write; [IdempotencyKey] gives one call's
// key.

// Idempotent declares that sending the endpoint's request twice has the
// effect of sending it once (for example, it carries an idempotency key), so
// that a POST, PATCH or other non-idempotent method may be retried under a
// [RetryPolicy]. It does not turn retrying on by itself. It is a
// declaration trait: an [EndpointOption] only.
func Idempotent() EndpointOption { return idempotentOption{} }

// WithIdempotencyHeader makes every write safe to retry, as Stripe's API
// and the IETF's Idempotency-Key draft expect: each call of a POST, PATCH,
// PUT or DELETE gets a fresh random key (a UUIDv4: 122 random bits from
// crypto/rand) in the header named header ("" means "Idempotency-Key").
// The key is the same on every attempt of the call and on the resend after
// a 401, so a server that remembers keys carries the write out once, and
// answers a replay with the first response. Such a call is retried under
// WithRetry like an idempotent one (see RetryPolicy); the pages of a GET
// walk and other reads get no key. (net/http's Transport, kit's default
// engine, also resends a request that carries an Idempotency-Key once by
// itself when a connection it reused closes before the answer: the key
// makes that safe too.)
//
// [IdempotencyKey](k) on a call sends k instead. So does a header parameter
// of the call (a `kit:",header"` field), or WithHeader on the call, of that
// name: the caller's own key always wins.
//
// It is a [RequestOption]: on a client, every write of the client (resource
// operations included); on a declaration, that endpoint's or resource's
// writes (its header wins over the client's); on a call, that call's write
// (its header wins over both). A header name that is not an HTTP token
// makes NewClient, the declaration or the call fail. Default: no key is
// sent.
func WithIdempotencyHeader(header string) RequestOption {
	return newIdempotencyOption(header, "WithIdempotencyHeader")
}

// WithIdempotencyKey is [WithIdempotencyHeader], under the name v0.3.0 gave
// it: header is the name of the header that carries the keys, not a key.
//
// Deprecated: use [WithIdempotencyHeader], whose name says that it takes a
// header name; [IdempotencyKey] gives one call's key.
func WithIdempotencyKey(header string) RequestOption {
	return newIdempotencyOption(header, "WithIdempotencyKey")
}

// IdempotencyKey sends key as this call's idempotency key: in the header of
// the WithIdempotencyHeader in force for the call (the call's, the
// declaration's, else the client's), or in "Idempotency-Key" when none is.
// It replaces the key kit would make, and, like it, is the same on every
// attempt and on the resend after a 401, and lets a POST or PATCH be
// retried under WithRetry. A key names one request, so it is a
// [CallOption] only. An empty key, or one with a control character, fails
// the call before anything is sent, as does IdempotencyKey given to a walk
// (Iterate, Pages, All), whose pages are requests of their own.
func IdempotencyKey(key string) CallOption { return idempotencyKeyOption{key} }

// DefaultIdempotencyHeader is the header of WithIdempotencyHeader("") and
// of IdempotencyKey when no WithIdempotencyHeader is in force.
const DefaultIdempotencyHeader = "Idempotency-Key"

// Private implementation past this point.

type idempotentOption struct{}

func (idempotentOption) applyEndpoint(c *endpointConfig) { c.idempotent = true }
func (idempotentOption) String() string                  { return "kit.Idempotent()" }

func newIdempotencyOption(header, name string) RequestOption {
	if header == "" {
		header = DefaultIdempotencyHeader
	}
	return requestOption[idempotencyOption]{idempotencyOption{http.CanonicalHeaderKey(header), name}}
}

// idempotencyOption is WithIdempotencyHeader's setting; name is the
// constructor the caller used, for messages.
type idempotencyOption struct{ header, name string }

func (o idempotencyOption) applyRequest(c *requestConfig, _ level) error {
	if !httpsyntax.IsToken(o.header) {
		return fmt.Errorf("%s(%q): the header name is not an HTTP token", o.name, o.header)
	}
	c.idemHeader = o.header
	return nil
}

func (o idempotencyOption) String() string {
	return fmt.Sprintf("kit.%s(%q)", o.name, o.header)
}

type idempotencyKeyOption struct{ key string }

func (o idempotencyKeyOption) applyCall(c *callConfig) error {
	if o.key == "" {
		return fmt.Errorf("IdempotencyKey(...): empty key")
	}
	if httpsyntax.HasControl(o.key) {
		return fmt.Errorf("IdempotencyKey(...): a control character in the key")
	}
	c.key = o.key
	return nil
}

// String leaves the key out, as it may be derived from the caller's data.
func (o idempotencyKeyOption) String() string { return "kit.IdempotencyKey(...)" }

// isWrite reports whether a request of method gets an idempotency key.
func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// idempotency is the client's part of idempotency keys: the header of its
// WithIdempotencyHeader ("": none). The request builder asks it for a
// request's key.
type idempotency struct{ header string }

// applies reports whether a request of d with the call's settings cs may
// get a key: a header is set on the call, the declaration or the client,
// or the call gives its key.
func (k idempotency) applies(d *endpointDecl, cs *callSettings) bool {
	return d.idemHeader != "" || k.header != "" || cs != nil && (cs.key != "" || cs.idemHeader != "")
}

// setKey puts the call's idempotency key in h, when it has one, and
// reports whether it did: the caller's key (IdempotencyKey, or a header of
// that name the call already sets), else a new random one for a write of a
// call, declaration or client with WithIdempotencyHeader.
func (k idempotency) setKey(d *endpointDecl, cs *callSettings, h http.Header) bool {
	name := d.idemHeader
	if cs != nil && cs.idemHeader != "" {
		name = cs.idemHeader
	}
	if name == "" {
		name = k.header
	}
	if cs != nil && cs.key != "" {
		if name == "" {
			name = DefaultIdempotencyHeader
		}
		h[name] = []string{cs.key}
		return true
	}
	if name == "" || !isWrite(d.method) {
		return false
	}
	if vs := h[name]; len(vs) > 0 && vs[0] != "" {
		return true
	}
	h[name] = []string{newIdempotencyKey()}
	return true
}

// newIdempotencyKey returns a random UUID (version 4, RFC 9562): 122 bits
// from crypto/rand.
func newIdempotencyKey() string {
	var u [16]byte
	_, _ = rand.Read(u[:])  // crypto/rand.Read never fails (it aborts the program instead)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // variant 10 (RFC 9562)
	const hexDigits = "0123456789abcdef"
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[c>>4], hexDigits[c&0x0f]
		j += 2
	}
	return string(b[:])
}
