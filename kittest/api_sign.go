package kittest

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"time"
)

// apiSignatureWindow is how far X-Timestamp may be from the API's clock.
const apiSignatureWindow = 5 * time.Minute

// WithSigningKey makes every route except GET /health require a request
// signature made with key: the headers X-Timestamp, the Unix time in
// seconds in decimal digits, and X-Signature, the lowercase hex of
//
//	HMAC-SHA256(key, METHOD + "\n" + PATH + "\n" + X-Timestamp + "\n" + BODY)
//
// where PATH is the escaped path the API sees (URL.EscapedPath: after any
// http.StripPrefix, without the query) and BODY the request body's bytes.
// A missing or wrong signature, or a timestamp more than 5 minutes from
// the API's clock, is a 401 with the code invalid_signature. key is
// copied; an empty key (the default) turns signing off.
func WithSigningKey(key []byte) APIOption {
	key = bytes.Clone(key)
	return apiOptionFunc(func(c *apiConfig) { c.signingKey = key })
}

// verifySignature checks the request's signature, if the API has a signing
// key. It reads the body, at most apiMaxBody bytes, and replaces r.Body
// with a reader of the same bytes for the route. If the signature is
// missing or wrong it writes a 401 and returns false; if the body cannot be
// read it writes a 413 or 400 and returns false.
func (a *API) verifySignature(w http.ResponseWriter, r *http.Request) bool {
	key := a.cfg.signingKey
	if len(key) == 0 {
		return true
	}
	ts, sig := r.Header.Get("X-Timestamp"), r.Header.Get("X-Signature")
	msg := ""
	switch secs, ok := apiParseUnix(ts); {
	case ts == "" || sig == "":
		msg = "missing X-Timestamp or X-Signature header"
	case !ok:
		msg = "X-Timestamp must be a Unix time in seconds"
	case apiAbs(a.now().Unix()-secs) > int64(apiSignatureWindow/time.Second):
		msg = "X-Timestamp is more than 5 minutes from the server's clock"
	}
	if msg == "" {
		body, ok := apiReadBody(w, r)
		if !ok {
			return false
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		mac := hmac.New(sha256.New, key)
		io.WriteString(mac, r.Method+"\n"+r.URL.EscapedPath()+"\n"+ts+"\n")
		mac.Write(body)
		got, err := hex.DecodeString(sig)
		if err != nil || !hmac.Equal(got, mac.Sum(nil)) {
			msg = "X-Signature does not match the request"
		}
	}
	if msg == "" {
		return true
	}
	a.mu.Lock()
	a.stats.Unauthorized++
	a.mu.Unlock()
	apiWriteError(w, http.StatusUnauthorized, "invalid_signature", msg)
	return false
}

// apiParseUnix parses a Unix time in seconds: 1 to 18 decimal digits.
func apiParseUnix(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func apiAbs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
