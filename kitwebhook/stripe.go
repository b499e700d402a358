package kitwebhook

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const headerStripeSignature = "Stripe-Signature"

// Stripe returns the scheme of Stripe's webhooks: one Stripe-Signature
// header, "t=<Unix time>,v1=<hex>[,v1=<hex>...]", each v1 the hex
// HMAC-SHA256 of "t.body" under an endpoint secret ("whsec_...", used as
// it is). Other schemes listed in the header (v0) are ignored.
//
// Stripe's events carry their id in the body, not in a header: add
// WithIDKey("id") for replay protection, and route on the body's "type"
// (the default event key). Give several secrets while rotating (Stripe
// signs with each active one). Stripe fails when no secret is given or one
// is empty.
func Stripe(secrets ...string) (Scheme, error) {
	keys, err := rawSecrets("Stripe", secrets)
	if err != nil {
		return nil, err
	}
	return &stripe{macs: newMACKeys(nil, keys)}, nil
}

type stripe struct{ macs *macKeys }

func (*stripe) String() string { return "Stripe" }

func (s *stripe) Verify(header http.Header, body []byte, now time.Time, tolerance time.Duration) (Meta, error) {
	const name = "Stripe"
	v, err := one(name, header, headerStripeSignature)
	if err != nil {
		return Meta{}, err
	}
	var (
		ts    string
		sigs  [maxSignatures][32]byte
		nsigs int
		items int
	)
	for item := range strings.SplitSeq(v, ",") {
		if items++; items > 2*maxSignatures {
			return Meta{}, fail(name, headerStripeSignature, ErrMalformed, "too many items")
		}
		k, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return Meta{}, fail(name, headerStripeSignature, ErrMalformed, "an item is not key=value")
		}
		switch k {
		case "t":
			if ts != "" {
				return Meta{}, fail(name, headerStripeSignature, ErrMalformed, "t given twice")
			}
			ts = val
		case "v1":
			if nsigs == len(sigs) {
				return Meta{}, fail(name, headerStripeSignature, ErrMalformed, fmt.Sprintf("more than %d signatures", maxSignatures))
			}
			if len(val) != 64 {
				continue // the wrong length: cannot match
			}
			if _, err := hex.Decode(sigs[nsigs][:], []byte(val)); err != nil {
				continue
			}
			nsigs++
		}
	}
	if ts == "" {
		return Meta{}, fail(name, headerStripeSignature, ErrMalformed, "no t= timestamp")
	}
	t, err := unixTime(name, headerStripeSignature, ts, now, tolerance)
	if err != nil {
		return Meta{}, err
	}
	m := Meta{Time: t}
	if nsigs == 0 {
		return m, fail(name, headerStripeSignature, ErrSignature, "no v1 signature")
	}
	macs := s.macs.sums([]byte(ts), []byte{'.'}, body)
	for i := range nsigs {
		if anyEqual(sigs[i][:], macs) {
			return m, nil
		}
	}
	return m, fail(name, headerStripeSignature, ErrSignature, fmt.Sprintf("checked %d", nsigs))
}

func (s *stripe) Sign(header http.Header, body []byte, m Meta) error {
	ts := strconv.FormatInt(m.Time.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, mac := range s.macs.sums([]byte(ts), []byte{'.'}, body) {
		b.WriteString(",v1=" + hex.EncodeToString(mac))
	}
	header.Set(headerStripeSignature, b.String())
	return nil
}
