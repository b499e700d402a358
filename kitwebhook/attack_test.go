package kitwebhook_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit/kitwebhook"
)

const (
	secretA = "whsec_c2VjcmV0LUEtZm9yLWtpdHdlYmhvb2stdGVzdHM="
	secretB = "whsec_c2VjcmV0LUItZm9yLWtpdHdlYmhvb2stdGVzdHM="
	rawA    = "secret-A-for-kitwebhook-tests"
	rawB    = "secret-B-for-kitwebhook-tests"
)

// schemes returns one scheme of each kind with secret A, one with B, and one
// with both (a rotation).
func schemes(t testing.TB) map[string][3]kitwebhook.Scheme {
	t.Helper()
	must := func(s kitwebhook.Scheme, err error) kitwebhook.Scheme {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	hmacOf := func(secrets ...string) (kitwebhook.Scheme, error) {
		return kitwebhook.HMAC(kitwebhook.HMACScheme{
			Name: "Acme", Header: "X-Acme-Signature", Prefix: "sha256=", Encoding: kitwebhook.Base64,
			TimestampHeader: "X-Acme-Timestamp", IDHeader: "X-Acme-Delivery",
			Message: func(id, ts string, body []byte) []byte { return append([]byte(id+"."+ts+"."), body...) },
			Secrets: secrets,
		})
	}
	return map[string][3]kitwebhook.Scheme{
		"standard": {must(kitwebhook.StandardWebhooks(secretA)), must(kitwebhook.StandardWebhooks(secretB)), must(kitwebhook.StandardWebhooks(secretA, secretB))},
		"github":   {must(kitwebhook.GitHub(rawA)), must(kitwebhook.GitHub(rawB)), must(kitwebhook.GitHub(rawA, rawB))},
		"stripe":   {must(kitwebhook.Stripe(rawA)), must(kitwebhook.Stripe(rawB)), must(kitwebhook.Stripe(rawA, rawB))},
		"slack":    {must(kitwebhook.Slack(rawA)), must(kitwebhook.Slack(rawB)), must(kitwebhook.Slack(rawA, rawB))},
		"hmac":     {must(hmacOf(rawA)), must(hmacOf(rawB)), must(hmacOf(rawA, rawB))},
	}
}

var testBody = []byte(`{"id":"evt_1","type":"user.created","data":{"name":"Ada"}}`)

func signed(t *testing.T, s kitwebhook.Scheme, body []byte, at time.Time) http.Header {
	t.Helper()
	h := http.Header{}
	if err := s.Sign(h, body, kitwebhook.Meta{ID: "msg_1", Time: at}); err != nil {
		t.Fatal(err)
	}
	return h
}

// checkNoSecret fails when err's text holds a secret or the signature
// that would have matched.
func checkNoSecret(t *testing.T, err error, h http.Header) {
	t.Helper()
	text := err.Error()
	for _, s := range []string{secretA, secretB, rawA, rawB, "c2VjcmV0"} {
		if strings.Contains(text, s) {
			t.Errorf("error text %q holds a secret", text)
		}
	}
	for _, vs := range h {
		for _, v := range vs {
			if len(v) > 16 && strings.Contains(text, v) {
				t.Errorf("error text %q echoes a header value", text)
			}
		}
	}
}

func TestAttacks(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for name, s := range schemes(t) {
		a, b, both := s[0], s[1], s[2]
		timed := name != "github"
		t.Run(name, func(t *testing.T) {
			good := signed(t, a, testBody, now)
			if _, err := a.Verify(good, testBody, now, time.Minute); err != nil {
				t.Fatalf("a good delivery: %v", err)
			}
			reject := func(what string, h http.Header, body []byte, at time.Time, want error) {
				t.Helper()
				_, err := a.Verify(h, body, at, 5*time.Minute)
				if err == nil {
					t.Errorf("%s: accepted", what)
					return
				}
				if want != nil && !errors.Is(err, want) {
					t.Errorf("%s: %v, want %v", what, err, want)
				}
				checkNoSecret(t, err, good)
			}
			// Forged: signed with another secret.
			reject("forged", signed(t, b, testBody, now), testBody, now, kitwebhook.ErrSignature)
			// Tampered or truncated bodies.
			reject("tampered", good, []byte(strings.Replace(string(testBody), "Ada", "Eve", 1)), now, kitwebhook.ErrSignature)
			reject("truncated", good, testBody[:len(testBody)-1], now, kitwebhook.ErrSignature)
			reject("empty body", good, nil, now, kitwebhook.ErrSignature)
			// No headers at all.
			reject("unsigned", http.Header{}, testBody, now, kitwebhook.ErrUnsigned)
			// Every signature header cut short, lengthened, and repeated.
			for k := range good {
				if isMetaOnly(k) {
					continue
				}
				v := good.Get(k)
				for what, bad := range map[string]string{"cut": v[:len(v)-2], "longer": v + "00", "emptied": ""} {
					h := good.Clone()
					h.Set(k, bad)
					reject(k+" "+what, h, testBody, now, nil)
				}
				h := good.Clone()
				h.Add(k, v)
				reject(k+" repeated", h, testBody, now, kitwebhook.ErrMalformed)
			}
			if timed {
				// Replayed after the window, or stamped in the future.
				reject("old", good, testBody, now.Add(6*time.Minute), kitwebhook.ErrTimestamp)
				reject("future", signed(t, a, testBody, now.Add(time.Hour)), testBody, now, kitwebhook.ErrTimestamp)
				reject("far future", signed(t, a, testBody, now.Add(100*365*24*time.Hour)), testBody, now, kitwebhook.ErrTimestamp)
			}
			// Rotation: a receiver with both secrets takes deliveries signed
			// with either; one that dropped A refuses A's.
			if _, err := both.Verify(signed(t, b, testBody, now), testBody, now, time.Minute); err != nil {
				t.Errorf("rotation, B under A+B: %v", err)
			}
			if _, err := both.Verify(good, testBody, now, time.Minute); err != nil {
				t.Errorf("rotation, A under A+B: %v", err)
			}
			if _, err := b.Verify(good, testBody, now, time.Minute); !errors.Is(err, kitwebhook.ErrSignature) {
				t.Errorf("A's delivery after A was retired: %v", err)
			}
		})
	}
}

// isMetaOnly reports the headers that carry no signature and whose change
// some schemes do not notice (GitHub's delivery id is not signed).
func isMetaOnly(k string) bool { return k == "X-Github-Delivery" }

func TestStripeManySignatures(t *testing.T) {
	s, _ := kitwebhook.Stripe(rawA)
	now := time.Unix(1_800_000_000, 0)
	h := signed(t, s, testBody, now)
	v := h.Get("Stripe-Signature")
	// The right signature after 20 wrong ones: refused as malformed, so
	// that a forged header cannot buy unbounded work.
	h.Set("Stripe-Signature", "t=1800000000"+strings.Repeat(",v1="+strings.Repeat("0", 64), 20)+v[len("t=1800000000"):])
	if _, err := s.Verify(h, testBody, now, time.Minute); !errors.Is(err, kitwebhook.ErrMalformed) {
		t.Fatalf("21 signatures: %v", err)
	}
	// A few wrong ones before the right one: accepted (rotation).
	h.Set("Stripe-Signature", "t=1800000000,v0=abc,v1="+strings.Repeat("0", 64)+v[len("t=1800000000"):])
	if _, err := s.Verify(h, testBody, now, time.Minute); err != nil {
		t.Fatalf("wrong then right: %v", err)
	}
}

func TestConstructorsRefuseMissingSecrets(t *testing.T) {
	for name, f := range map[string]func() (kitwebhook.Scheme, error){
		"standard none":    func() (kitwebhook.Scheme, error) { return kitwebhook.StandardWebhooks() },
		"standard bad b64": func() (kitwebhook.Scheme, error) { return kitwebhook.StandardWebhooks("whsec_!!not-base64!!") },
		"standard whpk":    func() (kitwebhook.Scheme, error) { return kitwebhook.StandardWebhooks("whpk_AAAA") },
		"github empty":     func() (kitwebhook.Scheme, error) { return kitwebhook.GitHub("") },
		"stripe none":      func() (kitwebhook.Scheme, error) { return kitwebhook.Stripe() },
		"slack empty":      func() (kitwebhook.Scheme, error) { return kitwebhook.Slack(rawA, "") },
		"hmac no header": func() (kitwebhook.Scheme, error) {
			return kitwebhook.HMAC(kitwebhook.HMACScheme{Secrets: []string{rawA}})
		},
	} {
		_, err := f()
		if !errors.Is(err, kitwebhook.ErrNoSecret) && (err == nil || !strings.Contains(err.Error(), "Header")) {
			t.Errorf("%s: %v", name, err)
		}
		if err != nil && strings.Contains(err.Error(), "not-base64") {
			t.Errorf("%s: the error echoes the key: %v", name, err)
		}
	}
}
