package kitwebhook

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const (
	headerSlackSignature = "X-Slack-Signature"
	headerSlackTimestamp = "X-Slack-Request-Timestamp"
)

// Slack returns the scheme of Slack's signed requests (Events API, slash
// commands, interactivity): X-Slack-Request-Timestamp, and X-Slack-Signature
// "v0=" and the hex HMAC-SHA256 of "v0:timestamp:body" under the app's
// signing secret. Slack sends no delivery id in a header (its event_id is
// in the body: WithIDKey("event_id")). Slack fails when no secret is given
// or one is empty.
func Slack(secrets ...string) (Scheme, error) {
	keys, err := rawSecrets("Slack", secrets)
	if err != nil {
		return nil, err
	}
	return &slack{macs: newMACKeys(nil, keys)}, nil
}

type slack struct{ macs *macKeys }

func (*slack) String() string { return "Slack" }

func (s *slack) Verify(header http.Header, body []byte, now time.Time, tolerance time.Duration) (Meta, error) {
	const name = "Slack"
	ts, err := one(name, header, headerSlackTimestamp)
	if err != nil {
		return Meta{}, err
	}
	sig, err := one(name, header, headerSlackSignature)
	if err != nil {
		return Meta{}, err
	}
	t, err := unixTime(name, headerSlackTimestamp, ts, now, tolerance)
	if err != nil {
		return Meta{}, err
	}
	m := Meta{Time: t}
	enc, ok := strings.CutPrefix(sig, "v0=")
	if !ok {
		return m, fail(name, headerSlackSignature, ErrMalformed, `not "v0=" and hex`)
	}
	var got [32]byte
	if len(enc) != hex.EncodedLen(len(got)) {
		return m, fail(name, headerSlackSignature, ErrSignature, "wrong length")
	}
	if _, err := hex.Decode(got[:], []byte(enc)); err != nil {
		return m, fail(name, headerSlackSignature, ErrMalformed, "not hex")
	}
	if !anyEqual(got[:], s.macs.sums([]byte("v0:"), []byte(ts), []byte{':'}, body)) {
		return m, fail(name, headerSlackSignature, ErrSignature, "")
	}
	return m, nil
}

func (s *slack) Sign(header http.Header, body []byte, m Meta) error {
	ts := strconv.FormatInt(m.Time.Unix(), 10)
	header.Set(headerSlackTimestamp, ts)
	header.Set(headerSlackSignature, "v0="+hex.EncodeToString(s.macs.sums([]byte("v0:"), []byte(ts), []byte{':'}, body)[0]))
	return nil
}
