package kitwebhook_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/kithttp/kit/kitwebhook"
)

// The test vectors published with each scheme. Sources:
//   - Standard Webhooks: the specification's reference libraries'
//     tests (github.com/standard-webhooks/standard-webhooks,
//     libraries/go/webhook_test.go TestWebhookSign and
//     webhook_asymmetric_test.go TestAsymmetricWebhookSign).
//   - GitHub: "Validating webhook deliveries" in GitHub's REST docs (secret
//     "It's a Secret to Everybody", payload "Hello, World!").
//   - Slack: "Verifying requests from Slack" in Slack's API docs (the
//     slash-command example with signing secret 8f7422...85a5).
//   - Stripe publishes the format, not a vector: its vector here is
//     computed by hand with crypto/hmac in stripeHandVector.
var vectors = []struct {
	name   string
	scheme func() (kitwebhook.Scheme, error)
	header http.Header
	body   string
	at     time.Time
	meta   kitwebhook.Meta
}{
	{
		name: "Standard Webhooks v1",
		scheme: func() (kitwebhook.Scheme, error) {
			return kitwebhook.StandardWebhooks("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
		},
		header: http.Header{
			"Webhook-Id":        {"msg_p5jXN8AQM9LWM0D4loKWxJek"},
			"Webhook-Timestamp": {"1614265330"},
			"Webhook-Signature": {"v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="},
		},
		body: `{"test": 2432232314}`,
		at:   time.Unix(1614265330, 0),
		meta: kitwebhook.Meta{ID: "msg_p5jXN8AQM9LWM0D4loKWxJek", Time: time.Unix(1614265330, 0)},
	},
	{
		name: "Standard Webhooks v1a",
		scheme: func() (kitwebhook.Scheme, error) {
			return kitwebhook.StandardWebhooks("whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=")
		},
		header: http.Header{
			"Webhook-Id":        {"msg_p5jXN8AQM9LWM0D4loKWxJek"},
			"Webhook-Timestamp": {"1614265330"},
			"Webhook-Signature": {"v1a,tQ9V2XOqn7jL/DQenEFpqIugdBVtiMmER5mhSkXBNwM0mkATuDe6KYYUuxqtaiHeYGb7KaaBRdM5WqyeFiL8Ag=="},
		},
		body: `{"test": 2432232314}`,
		at:   time.Unix(1614265330, 0),
		meta: kitwebhook.Meta{ID: "msg_p5jXN8AQM9LWM0D4loKWxJek", Time: time.Unix(1614265330, 0)},
	},
	{
		name:   "GitHub",
		scheme: func() (kitwebhook.Scheme, error) { return kitwebhook.GitHub("It's a Secret to Everybody") },
		header: http.Header{
			"X-Hub-Signature-256": {"sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"},
			"X-Github-Delivery":   {"72d3162e-cc78-11e3-81ab-4c9367dc0958"},
		},
		body: "Hello, World!",
		at:   time.Now(),
		meta: kitwebhook.Meta{ID: "72d3162e-cc78-11e3-81ab-4c9367dc0958"},
	},
	{
		name:   "Slack",
		scheme: func() (kitwebhook.Scheme, error) { return kitwebhook.Slack("8f742231b10e8888abcd99yyyzzz85a5") },
		header: http.Header{
			"X-Slack-Request-Timestamp": {"1531420618"},
			"X-Slack-Signature":         {"v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503"},
		},
		body: "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
		at:   time.Unix(1531420618, 0),
		meta: kitwebhook.Meta{Time: time.Unix(1531420618, 0)},
	},
	stripeHandVector(),
}

func TestVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			s, err := v.scheme()
			if err != nil {
				t.Fatal(err)
			}
			m, err := s.Verify(v.header, []byte(v.body), v.at, kitwebhook.DefaultTolerance)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if m.ID != v.meta.ID || !m.Time.Equal(v.meta.Time) {
				t.Errorf("Meta = %+v, want %+v", m, v.meta)
			}
			// Sign reproduces the published signature.
			h := http.Header{}
			if err := s.Sign(h, []byte(v.body), v.meta); err != nil {
				t.Fatal(err)
			}
			for k := range h {
				if k == "X-Github-Delivery" && v.meta.ID == "" {
					continue
				}
				if h.Get(k) != v.header.Get(k) {
					t.Errorf("Sign set %s = %q, want %q", k, h.Get(k), v.header.Get(k))
				}
			}
		})
	}
}

func TestStandardWebhooksUnprefixedSecret(t *testing.T) {
	s, err := kitwebhook.StandardWebhooks("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(vectors[0].header, []byte(vectors[0].body), vectors[0].at, time.Minute); err != nil {
		t.Fatal(err)
	}
}

// TestStandardWebhooksPublicKeyOnly: a receiver holding only the public
// key verifies v1a and cannot sign.
func TestStandardWebhooksPublicKeyOnly(t *testing.T) {
	priv, err := kitwebhook.StandardWebhooks("whsk_VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := kitwebhook.StandardWebhooks(publicKeyOf(t))
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	now := time.Now()
	if err := priv.Sign(h, []byte("{}"), kitwebhook.Meta{ID: "msg_1", Time: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := pub.Verify(h, []byte("{}"), now, time.Minute); err != nil {
		t.Fatalf("public key: %v", err)
	}
	if err := pub.Sign(http.Header{}, []byte("{}"), kitwebhook.Meta{ID: "x", Time: now}); err == nil {
		t.Fatal("Sign with only a public key: no error")
	}
	if got := h.Get("Webhook-Timestamp"); got != strconv.FormatInt(now.Unix(), 10) {
		t.Errorf("timestamp %q", got)
	}
}
