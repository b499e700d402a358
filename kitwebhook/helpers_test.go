package kitwebhook_test

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/kithttp/kit/kitwebhook"
)

// stripeHandVector signs a Stripe delivery with crypto/hmac directly, as
// Stripe documents the scheme ("t.body", HMAC-SHA256, hex, the whole
// whsec_ secret as the key), independently of kitwebhook's code.
func stripeHandVector() (v struct {
	name   string
	scheme func() (kitwebhook.Scheme, error)
	header http.Header
	body   string
	at     time.Time
	meta   kitwebhook.Meta
}) {
	const secret = "whsec_test_secret"
	const body = `{"id":"evt_1","type":"invoice.paid"}`
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("1700000000." + body))
	v.name = "Stripe (by hand)"
	v.scheme = func() (kitwebhook.Scheme, error) { return kitwebhook.Stripe(secret) }
	v.header = http.Header{"Stripe-Signature": {"t=1700000000,v1=" + hex.EncodeToString(mac.Sum(nil))}}
	v.body = body
	v.at = time.Unix(1700000060, 0)
	v.meta = kitwebhook.Meta{Time: time.Unix(1700000000, 0)}
	return v
}

func publicKeyOf(t *testing.T) string {
	t.Helper()
	seed, err := base64.StdEncoding.DecodeString("VEVTVFNJR05JTkdLRVlET05PVFVTRVRISVNGT1JBTlk=")
	if err != nil {
		t.Fatal(err)
	}
	pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
	return "whpk_" + base64.StdEncoding.EncodeToString(pub)
}
