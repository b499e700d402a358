package kitwebhook

import (
	"crypto/hmac"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Scheme is how a sender signs its deliveries: which headers carry the
// signature, the delivery's id and its timestamp, what is signed, and with
// which algorithm. kit provides the schemes real APIs use ([StandardWebhooks],
// [GitHub], [Stripe], [Slack]) and a configurable one for the rest ([HMAC]).
//
// A Scheme is immutable and safe for concurrent use. Implementations outside
// kit are welcome; they must compare signatures in constant time and must
// not put secrets or expected signatures in their errors.
type Scheme interface {
	// Verify checks the signature header carries for body. now is the time
	// of receipt; a scheme with a signed timestamp refuses one further than
	// tolerance from now, in the past or the future (tolerance <= 0 turns
	// that check off). It returns what the headers say of the delivery.
	// Its errors match one of ErrUnsigned, ErrMalformed, ErrSignature or
	// ErrTimestamp.
	Verify(header http.Header, body []byte, now time.Time, tolerance time.Duration) (Meta, error)
	// Sign sets the headers a sender would send with body, with the id and
	// time of m, as the scheme's first secret signs them. It is what
	// kittest's webhook sender uses, so that tests of a receiver need no
	// real sender. A scheme that holds no key able to sign (only public
	// keys) returns an error matching ErrNoSecret.
	Sign(header http.Header, body []byte, m Meta) error
	// String names the scheme ("Standard Webhooks", "GitHub", ...), for
	// errors and traces; it never includes a secret.
	String() string
}

// Meta is what a delivery's headers say of it.
type Meta struct {
	// ID identifies the delivery; a sender that retries keeps it, so it
	// is what replay protection keys on. Empty when the scheme's headers
	// carry none (see WithIDKey).
	ID string
	// Time is when the sender signed the delivery; zero when the scheme
	// signs no timestamp.
	Time time.Time
}

// DefaultTolerance is how far a signed timestamp may be from the time of
// receipt, in either direction, unless WithTolerance says otherwise: five
// minutes, as Standard Webhooks, Stripe and Slack recommend.
const DefaultTolerance = 5 * time.Minute

// The errors of verification. Every error kitwebhook returns for a
// delivery that fails a check matches one of them with errors.Is; its text
// names the scheme, the header and the check, never a secret or the
// signature that was expected.
var (
	// ErrUnsigned: a header the scheme requires is missing.
	ErrUnsigned = errors.New("missing header")
	// ErrMalformed: a header is present but does not parse, or is
	// repeated.
	ErrMalformed = errors.New("malformed header")
	// ErrSignature: no signature in the headers matches the body under
	// any of the scheme's secrets.
	ErrSignature = errors.New("no signature matches")
	// ErrTimestamp: the signed timestamp is further from the time of
	// receipt than the tolerance.
	ErrTimestamp = errors.New("timestamp outside the tolerance")
	// ErrTooLarge: the body is larger than the limit (WithMaxBodySize).
	ErrTooLarge = errors.New("body too large")
	// ErrNoSecret: the scheme was made without a usable secret or key.
	ErrNoSecret = errors.New("no secret")
)

// verifyError is every verification failure: the scheme, the header, the
// check, and a detail that never holds a secret or an expected signature.
type verifyError struct {
	scheme, header, detail string
	err                    error
}

func (e *verifyError) Error() string {
	s := "kitwebhook: " + e.scheme + ": "
	if e.header != "" {
		s += e.header + ": "
	}
	s += e.err.Error()
	if e.detail != "" {
		s += " (" + e.detail + ")"
	}
	return s
}

func (e *verifyError) Unwrap() error { return e.err }

func fail(scheme, header string, err error, detail string) error {
	return &verifyError{scheme: scheme, header: header, detail: detail, err: err}
}

// maxSignatures bounds how many signatures one header may list, so that a
// forged header cannot make a receiver compute thousands of comparisons.
const maxSignatures = 16

// one returns the single value of header key: ErrUnsigned when there is
// none (or it is empty), ErrMalformed when the header is repeated, so that
// a proxy or an attacker adding a second value cannot choose which one is
// read.
func one(scheme string, header http.Header, key string) (string, error) {
	vs := header.Values(key)
	switch {
	case len(vs) == 0 || (len(vs) == 1 && vs[0] == ""):
		return "", fail(scheme, key, ErrUnsigned, "")
	case len(vs) > 1:
		return "", fail(scheme, key, ErrMalformed, fmt.Sprintf("sent %d times", len(vs)))
	}
	return vs[0], nil
}

// unixTime parses a timestamp in seconds since the epoch and checks it
// against now and tolerance.
func unixTime(scheme, key, v string, now time.Time, tolerance time.Duration) (time.Time, error) {
	sec, err := strconv.ParseInt(v, 10, 64)
	if err != nil || sec < 0 || len(v) > 12 {
		return time.Time{}, fail(scheme, key, ErrMalformed, "not a Unix time in seconds")
	}
	t := time.Unix(sec, 0)
	if tolerance > 0 {
		d := now.Sub(t)
		if d > tolerance || d < -tolerance {
			dir := "old"
			if d < 0 {
				dir = "in the future"
			}
			return t, fail(scheme, key, ErrTimestamp, fmt.Sprintf("%v %s, tolerance %v", d.Abs().Round(time.Second), dir, tolerance))
		}
	}
	return t, nil
}

// anyEqual reports whether got equals one of wants, in time that depends
// only on the lengths (hmac.Equal for each; every one is compared).
func anyEqual(got []byte, wants [][]byte) bool {
	ok := 0
	for _, w := range wants {
		if hmac.Equal(got, w) {
			ok = 1
		}
	}
	return ok == 1
}
