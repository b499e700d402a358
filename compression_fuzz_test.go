package kit

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"
)

// FuzzDecodeResponse feeds a server's body, under each Content-Encoding kit
// decodes, through decodeResponse and the body reader's limit: it never
// panics, never hands over more than the limit, and fails only with
// ErrBodyTooLarge or an error matching ErrBadEncoding.
func FuzzDecodeResponse(f *testing.F) {
	f.Add("gzip", []byte("\x1f\x8b\b\x00\x00\x00\x00\x00\x00\xff\xaaV\xcaLQ\xb22\xaf\x05\x04\x00\x00\xff\xff"))
	f.Add("zstd", []byte("(\xb5/\xfd\x008\x02\x00\x10\x00"))
	f.Add("br", []byte("\x0b\x02\x80{\"id\":1}\x03"))
	f.Add("zstd", []byte("(\xb5/\xfd\x00\xf8\x02\x00\x10\x00\x02\x00\x10\x00\x03\x00\x10\x00"))
	f.Add("identity", []byte("{}"))
	f.Fuzz(func(t *testing.T, enc string, body []byte) {
		hresp := &http.Response{Header: http.Header{"Content-Encoding": {enc}}, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body))}
		if err := decodeResponse(hresp); err != nil {
			if !errors.Is(err, ErrBadEncoding) {
				t.Fatalf("decodeResponse: %v, not ErrBadEncoding", err)
			}
			return
		}
		defer hresp.Body.Close()
		const limit = 1 << 16
		got, err := readLimited(hresp.Body, limit, hresp.ContentLength, false)
		switch {
		case err == nil:
			if len(got) > limit {
				t.Fatalf("%d bytes past the limit of %d", len(got), limit)
			}
		case errors.Is(err, ErrBodyTooLarge), errors.Is(err, ErrBadEncoding):
		default:
			t.Fatalf("reading: %v", err)
		}
	})
}
