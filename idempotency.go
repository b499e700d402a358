package kit

import (
	"crypto/rand"
	"fmt"
	"net/http"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// WithIdempotencyKey makes every write safe to retry, as Stripe's API and
// the IETF's Idempotency-Key draft expect: each call of a POST, PATCH, PUT
// or DELETE gets a fresh random key (a UUIDv4: 122 random bits from
// crypto/rand) in the header named header ("" means "Idempotency-Key").
// The key is the same on every attempt of the call and on the resend after
// a 401, so a server that remembers keys carries the write out once, and
// answers a replay with the first response. Such a call is retried under
// WithRetry like an idempotent one (see RetryPolicy); the pages of a walk
// and other reads get no key. (net/http's Transport, kit's default engine,
// also resends a request that carries an Idempotency-Key once by itself when
// a connection it reused closes before the answer: the key makes that safe
// too.)
//
// IdempotencyKey(k) on a call sends k instead. So does a header parameter
// of the call (a `kit:",header"` field), or WithHeader as a CallOption, of
// that name: the caller's own key always wins.
//
// It is both an Option (every write of the client, resource operations
// included) and an EndpointOption (that endpoint's writes; its header wins
// over the client's). A header name that is not an HTTP token makes
// NewClient, or the declaration, fail. Default: no key is sent.
func WithIdempotencyKey(header string) ClientEndpointOption {
	if header == "" {
		header = DefaultIdempotencyHeader
	}
	return idempotencyOption{http.CanonicalHeaderKey(header)}
}

// DefaultIdempotencyHeader is the header of WithIdempotencyKey("") and of
// IdempotencyKey when no WithIdempotencyKey is in force.
const DefaultIdempotencyHeader = "Idempotency-Key"

// Private implementation past this point.

type idempotencyOption struct{ header string }

func (o idempotencyOption) check() error {
	if !httpsyntax.IsToken(o.header) {
		return fmt.Errorf("WithIdempotencyKey(%q): the header name is not an HTTP token", o.header)
	}
	return nil
}

func (o idempotencyOption) applyClient(c *clientConfig) error {
	if err := o.check(); err != nil {
		return fmt.Errorf("kit: %w", err)
	}
	c.idemHeader = o.header
	return nil
}

func (o idempotencyOption) applyEndpoint(c *endpointConfig) {
	if err := o.check(); err != nil {
		c.problem = err.Error()
		return
	}
	c.idemHeader = o.header
}

func (o idempotencyOption) String() string {
	return fmt.Sprintf("kit.WithIdempotencyKey(%q)", o.header)
}

// isWrite reports whether a request of method gets an idempotency key.
func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// setIdempotencyKey puts the call's idempotency key in h, when it has one,
// and reports whether it did: the caller's key (IdempotencyKey, or a header
// of that name the call already sets), else a new random one for a write
// of an endpoint or client with WithIdempotencyKey.
func (st *clientState) setIdempotencyKey(d *endpointDecl, cs *callSettings, h http.Header) bool {
	name := d.idemHeader
	if name == "" {
		name = st.idemHeader
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
