package kitwebhook

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Encoding is how an [HMACScheme] writes its signature in the header.
type Encoding uint8

const (
	// Hex is lower- or upper-case hexadecimal.
	Hex Encoding = iota
	// Base64 is standard base64 with padding.
	Base64
	// Base64URL is URL-safe base64 without padding.
	Base64URL
)

// HMACScheme describes a sender's own HMAC signature, for the APIs that
// follow no published scheme. Header and Secrets are required; the rest
// has defaults.
type HMACScheme struct {
	// Name names the scheme in errors and traces; default "HMAC".
	Name string
	// Header carries the signature, such as "X-Signature".
	Header string
	// Prefix comes before the encoded signature, such as "sha256=".
	Prefix string
	// Hash makes the hash of the HMAC; default sha256.New.
	Hash func() hash.Hash
	// Encoding of the signature; default Hex.
	Encoding Encoding
	// TimestampHeader, when set, carries the signing time in seconds since
	// the epoch; it is required and checked against the tolerance.
	TimestampHeader string
	// IDHeader, when set, carries the delivery's id (optional in a
	// delivery; replay protection uses it when present).
	IDHeader string
	// Message returns what is signed, from the delivery's id and timestamp
	// (as the headers carry them; "" when not configured) and its body.
	// Default: the body alone.
	Message func(id, timestamp string, body []byte) []byte
	// Secrets are the active secrets, used as raw bytes: a delivery is
	// accepted when its signature matches any. Sign uses the first.
	Secrets []string
}

// HMAC returns the scheme c describes. It fails when c has no Header or no
// secret, or an empty one.
func HMAC(c HMACScheme) (Scheme, error) {
	if c.Name == "" {
		c.Name = "HMAC"
	}
	if c.Header == "" {
		return nil, fmt.Errorf("kitwebhook: %s: no Header", c.Name)
	}
	if c.Encoding > Base64URL {
		return nil, fmt.Errorf("kitwebhook: %s: unknown Encoding %d", c.Name, c.Encoding)
	}
	keys, err := rawSecrets(c.Name, c.Secrets)
	if err != nil {
		return nil, err
	}
	c.Secrets = nil // kept only as MAC keys
	return &hmacScheme{c: c, macs: newMACKeys(c.Hash, keys)}, nil
}

type hmacScheme struct {
	c    HMACScheme
	macs *macKeys
}

func (s *hmacScheme) String() string { return s.c.Name }

func (s *hmacScheme) Verify(header http.Header, body []byte, now time.Time, tolerance time.Duration) (Meta, error) {
	c := &s.c
	var m Meta
	var ts string
	if c.TimestampHeader != "" {
		v, err := one(c.Name, header, c.TimestampHeader)
		if err != nil {
			return m, err
		}
		if m.Time, err = unixTime(c.Name, c.TimestampHeader, v, now, tolerance); err != nil {
			return m, err
		}
		ts = v
	}
	if c.IDHeader != "" {
		if vs := header.Values(c.IDHeader); len(vs) > 1 {
			return m, fail(c.Name, c.IDHeader, ErrMalformed, fmt.Sprintf("sent %d times", len(vs)))
		} else if len(vs) == 1 {
			m.ID = vs[0]
		}
	}
	sig, err := one(c.Name, header, c.Header)
	if err != nil {
		return m, err
	}
	enc, ok := strings.CutPrefix(sig, c.Prefix)
	if !ok {
		return m, fail(c.Name, c.Header, ErrMalformed, fmt.Sprintf("no %q prefix", c.Prefix))
	}
	got, err := s.decode(enc)
	if err != nil {
		return m, fail(c.Name, c.Header, ErrMalformed, "does not decode")
	}
	msg := body
	if c.Message != nil {
		msg = c.Message(m.ID, ts, body)
	}
	if len(got) != s.macs.size || !anyEqual(got, s.macs.sums(msg)) {
		return m, fail(c.Name, c.Header, ErrSignature, "")
	}
	return m, nil
}

func (s *hmacScheme) decode(enc string) ([]byte, error) {
	switch s.c.Encoding {
	case Base64:
		return base64.StdEncoding.DecodeString(enc)
	case Base64URL:
		return base64.RawURLEncoding.DecodeString(enc)
	}
	return hex.DecodeString(enc)
}

func (s *hmacScheme) encode(b []byte) string {
	switch s.c.Encoding {
	case Base64:
		return base64.StdEncoding.EncodeToString(b)
	case Base64URL:
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return hex.EncodeToString(b)
}

func (s *hmacScheme) Sign(header http.Header, body []byte, m Meta) error {
	c := &s.c
	var ts string
	if c.TimestampHeader != "" {
		ts = strconv.FormatInt(m.Time.Unix(), 10)
		header.Set(c.TimestampHeader, ts)
	}
	if c.IDHeader != "" && m.ID != "" {
		header.Set(c.IDHeader, m.ID)
	}
	msg := body
	if c.Message != nil {
		msg = c.Message(m.ID, ts, body)
	}
	header.Set(c.Header, c.Prefix+s.encode(s.macs.sums(msg)[0]))
	return nil
}
