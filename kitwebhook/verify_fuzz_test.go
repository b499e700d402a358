package kitwebhook_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/kithttp/kit/kitwebhook"
)

// FuzzVerify feeds every scheme header values and bodies from outside. No
// input may panic, no error may carry a secret, and whatever is accepted
// must be bound to its body: the same headers with the body changed are
// refused.
func FuzzVerify(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	ss := schemesFor(f)
	for _, s := range ss {
		h := http.Header{}
		s.Sign(h, testBody, kitwebhook.Meta{ID: "msg_1", Time: now})
		var sig, ts, id string
		for k, v := range h {
			switch k {
			case "Webhook-Signature", "X-Hub-Signature-256", "Stripe-Signature", "X-Slack-Signature", "X-Acme-Signature":
				sig = v[0]
			case "Webhook-Timestamp", "X-Slack-Request-Timestamp", "X-Acme-Timestamp":
				ts = v[0]
			case "Webhook-Id", "X-Acme-Delivery":
				id = v[0]
			}
		}
		f.Add(sig, ts, id, testBody)
	}
	f.Add("v1,AAAA v1a,BBBB", "1800000000", "x", []byte("{}"))
	f.Add("t=1,t=2,v1=zz", "-5", "", []byte(nil))
	f.Fuzz(func(t *testing.T, sig, ts, id string, body []byte) {
		for _, s := range ss {
			h := http.Header{}
			for _, k := range []string{"Webhook-Signature", "X-Hub-Signature-256", "Stripe-Signature", "X-Slack-Signature", "X-Acme-Signature"} {
				h.Set(k, sig)
			}
			for _, k := range []string{"Webhook-Timestamp", "X-Slack-Request-Timestamp", "X-Acme-Timestamp"} {
				h.Set(k, ts)
			}
			for _, k := range []string{"Webhook-Id", "X-Acme-Delivery"} {
				h.Set(k, id)
			}
			_, err := s.Verify(h, body, now, 5*time.Minute)
			if err != nil {
				checkNoSecret(t, err, nil)
				continue
			}
			changed := append(append([]byte(nil), body...), ' ')
			if _, err := s.Verify(h, changed, now, 5*time.Minute); err == nil {
				t.Fatalf("%s accepted a body it did not sign", s)
			}
		}
	})
}

func schemesFor(tb testing.TB) []kitwebhook.Scheme {
	var out []kitwebhook.Scheme
	for _, s := range schemes(tb) {
		out = append(out, s[2])
	}
	return out
}
