package kitwebhook

import (
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"
)

const (
	headerHubSignature = "X-Hub-Signature-256"
	headerGitHubID     = "X-Github-Delivery"
)

// GitHub returns the scheme of GitHub's webhooks: X-Hub-Signature-256,
// "sha256=" and the hex HMAC-SHA256 of the body under the webhook's secret.
// The delivery's id is X-GitHub-Delivery, and its event name X-GitHub-Event
// (use WithEventHeader("X-GitHub-Event") to route on it).
//
// GitHub signs no timestamp, so no tolerance applies, and it does not sign
// the delivery id either: replay protection (WithSeenStore) stops a
// delivery sent twice with its id, not a captured one replayed under a new
// id. Make the handling of GitHub's events idempotent where a replay would
// hurt. Give several secrets while rotating. GitHub fails when no secret
// is given or one is empty.
func GitHub(secrets ...string) (Scheme, error) {
	keys, err := rawSecrets("GitHub", secrets)
	if err != nil {
		return nil, err
	}
	return &github{macs: newMACKeys(nil, keys)}, nil
}

type github struct{ macs *macKeys }

func (*github) String() string { return "GitHub" }

func (s *github) Verify(header http.Header, body []byte, _ time.Time, _ time.Duration) (Meta, error) {
	const name = "GitHub"
	sig, err := one(name, header, headerHubSignature)
	if err != nil {
		return Meta{}, err
	}
	m := Meta{ID: header.Get(headerGitHubID)}
	enc, ok := strings.CutPrefix(sig, "sha256=")
	if !ok {
		return m, fail(name, headerHubSignature, ErrMalformed, `not "sha256=" and hex`)
	}
	var got [32]byte
	if len(enc) != hex.EncodedLen(len(got)) {
		return m, fail(name, headerHubSignature, ErrSignature, "wrong length")
	}
	if _, err := hex.Decode(got[:], []byte(enc)); err != nil {
		return m, fail(name, headerHubSignature, ErrMalformed, "not hex")
	}
	if !anyEqual(got[:], s.macs.sums(body)) {
		return m, fail(name, headerHubSignature, ErrSignature, "")
	}
	return m, nil
}

func (s *github) Sign(header http.Header, body []byte, m Meta) error {
	header.Set(headerHubSignature, "sha256="+hex.EncodeToString(s.macs.sums(body)[0]))
	if m.ID != "" {
		header.Set(headerGitHubID, m.ID)
	}
	return nil
}

// rawSecrets checks secrets used as raw bytes.
func rawSecrets(scheme string, secrets []string) ([][]byte, error) {
	if len(secrets) == 0 {
		return nil, fmt.Errorf("kitwebhook: %s: %w: give at least one secret", scheme, ErrNoSecret)
	}
	keys := make([][]byte, len(secrets))
	for i, s := range secrets {
		if s == "" {
			return nil, fmt.Errorf("kitwebhook: %s: secret %d: %w: it is empty", scheme, i+1, ErrNoSecret)
		}
		keys[i] = []byte(s)
	}
	return keys, nil
}
