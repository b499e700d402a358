package kitwebhook

import (
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of Standard Webhooks.
const (
	headerWebhookID        = "Webhook-Id"
	headerWebhookTimestamp = "Webhook-Timestamp"
	headerWebhookSignature = "Webhook-Signature"
)

// StandardWebhooks returns the scheme of the Standard Webhooks
// specification (standardwebhooks.com), used by Svix, OpenAI, Resend, Clerk
// and many others: the headers webhook-id, webhook-timestamp and
// webhook-signature; the signed content "id.timestamp.body"; and a
// space-separated list of signatures, "v1,<base64>" for HMAC-SHA256 and
// "v1a,<base64>" for ed25519.
//
// Each key is one of:
//   - "whsec_<base64>": a symmetric secret (the prefix may be left out, as
//     the specification's libraries allow); verifies and signs v1;
//   - "whpk_<base64>": an ed25519 public key; verifies v1a;
//   - "whsk_<base64>": an ed25519 private key (its 32-byte seed); verifies
//     and signs v1a.
//
// Give several keys while rotating: a delivery is accepted when any of its
// signatures matches any key. Sign signs with every key able to sign.
// StandardWebhooks fails when no key is given or one does not decode; the
// error names the key's position, never its value.
func StandardWebhooks(keys ...string) (Scheme, error) {
	s := &standard{}
	var secrets [][]byte
	for i, k := range keys {
		switch {
		case strings.HasPrefix(k, "whpk_"):
			b, err := base64.StdEncoding.DecodeString(k[len("whpk_"):])
			if err != nil || len(b) != ed25519.PublicKeySize {
				return nil, fmt.Errorf("kitwebhook: StandardWebhooks: key %d: %w: a whpk_ key is the base64 of a %d-byte ed25519 public key", i+1, ErrNoSecret, ed25519.PublicKeySize)
			}
			s.public = append(s.public, ed25519.PublicKey(b))
		case strings.HasPrefix(k, "whsk_"):
			b, err := base64.StdEncoding.DecodeString(k[len("whsk_"):])
			if err != nil || len(b) != ed25519.SeedSize {
				return nil, fmt.Errorf("kitwebhook: StandardWebhooks: key %d: %w: a whsk_ key is the base64 of a %d-byte ed25519 seed", i+1, ErrNoSecret, ed25519.SeedSize)
			}
			priv := ed25519.NewKeyFromSeed(b)
			s.private = append(s.private, priv)
			s.public = append(s.public, priv.Public().(ed25519.PublicKey))
		default:
			b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(k, "whsec_"))
			if err != nil || len(b) == 0 {
				return nil, fmt.Errorf("kitwebhook: StandardWebhooks: key %d: %w: a whsec_ secret is base64 after its prefix", i+1, ErrNoSecret)
			}
			secrets = append(secrets, b)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("kitwebhook: StandardWebhooks: %w: give at least one key", ErrNoSecret)
	}
	if len(secrets) > 0 {
		s.macs = newMACKeys(nil, secrets)
	}
	return s, nil
}

type standard struct {
	macs    *macKeys // nil without symmetric secrets
	public  []ed25519.PublicKey
	private []ed25519.PrivateKey
}

func (s *standard) String() string { return "Standard Webhooks" }

func (s *standard) Verify(header http.Header, body []byte, now time.Time, tolerance time.Duration) (Meta, error) {
	const name = "Standard Webhooks"
	id, err := one(name, header, headerWebhookID)
	if err != nil {
		return Meta{}, err
	}
	ts, err := one(name, header, headerWebhookTimestamp)
	if err != nil {
		return Meta{}, err
	}
	sigs, err := one(name, header, headerWebhookSignature)
	if err != nil {
		return Meta{}, err
	}
	t, err := unixTime(name, headerWebhookTimestamp, ts, now, tolerance)
	if err != nil {
		return Meta{}, err
	}
	m := Meta{ID: id, Time: t}
	var (
		macs     [][]byte
		message  []byte
		seen     int
		got      [ed25519.SignatureSize]byte
		versions int
	)
	for sig := range strings.FieldsSeq(sigs) {
		if seen++; seen > maxSignatures {
			return m, fail(name, headerWebhookSignature, ErrMalformed, fmt.Sprintf("more than %d signatures", maxSignatures))
		}
		version, enc, ok := strings.Cut(sig, ",")
		if !ok {
			return m, fail(name, headerWebhookSignature, ErrMalformed, "a signature is not version,base64")
		}
		switch version {
		case "v1":
			if s.macs == nil {
				continue
			}
			versions++
			if base64.StdEncoding.DecodedLen(len(enc)) > len(got) {
				continue // the wrong length: cannot match
			}
			n, err := base64.StdEncoding.Decode(got[:], []byte(enc))
			if err != nil {
				continue
			}
			if macs == nil {
				macs = s.macs.sums([]byte(id), []byte{'.'}, []byte(ts), []byte{'.'}, body)
			}
			if anyEqual(got[:n], macs) {
				return m, nil
			}
		case "v1a":
			if len(s.public) == 0 {
				continue
			}
			versions++
			if base64.StdEncoding.DecodedLen(len(enc)) > len(got)+2 {
				continue
			}
			var buf [ed25519.SignatureSize + 3]byte
			n, err := base64.StdEncoding.Decode(buf[:], []byte(enc))
			if err != nil || n != ed25519.SignatureSize {
				continue
			}
			if message == nil {
				message = signedContent(id, ts, body)
			}
			for _, pk := range s.public {
				if ed25519.Verify(pk, message, buf[:n]) {
					return m, nil
				}
			}
		}
	}
	if versions == 0 {
		return m, fail(name, headerWebhookSignature, ErrSignature, "no signature of a version this scheme has keys for")
	}
	return m, fail(name, headerWebhookSignature, ErrSignature, fmt.Sprintf("checked %d", versions))
}

func signedContent(id, ts string, body []byte) []byte {
	msg := make([]byte, 0, len(id)+len(ts)+2+len(body))
	msg = append(msg, id...)
	msg = append(msg, '.')
	msg = append(msg, ts...)
	msg = append(msg, '.')
	return append(msg, body...)
}

func (s *standard) Sign(header http.Header, body []byte, m Meta) error {
	if s.macs == nil && len(s.private) == 0 {
		return fmt.Errorf("kitwebhook: Standard Webhooks: Sign: %w: only public keys were given", ErrNoSecret)
	}
	ts := strconv.FormatInt(m.Time.Unix(), 10)
	var sigs []string
	if s.macs != nil {
		for _, mac := range s.macs.sums([]byte(m.ID), []byte{'.'}, []byte(ts), []byte{'.'}, body) {
			sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac))
		}
	}
	if len(s.private) > 0 {
		msg := signedContent(m.ID, ts, body)
		for _, pk := range s.private {
			sigs = append(sigs, "v1a,"+base64.StdEncoding.EncodeToString(ed25519.Sign(pk, msg)))
		}
	}
	header.Set(headerWebhookID, m.ID)
	header.Set(headerWebhookTimestamp, ts)
	header.Set(headerWebhookSignature, strings.Join(sigs, " "))
	return nil
}
