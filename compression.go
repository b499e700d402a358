package kit

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// WithResponseCompression makes the client ask for compressed responses and
// decode them: every request carries "Accept-Encoding: zstd, br, gzip", and
// a response body the server encoded with zstd (RFC 8878), brotli (RFC
// 7932) or gzip reaches the caller, every layer and the error model
// decoded, with its Content-Encoding and Content-Length removed. It is an
// [Option] (it builds the client).
//
// Without it, Go's transport asks for gzip by itself and decodes it; zstd
// and brotli are never asked for. A request whose Accept-Encoding the
// caller set (WithHeader, a header parameter) is left alone: its body comes
// back as the server sent it, as net/http does.
//
// Decoding never gets past the body size limits: a body is read decoded,
// within [WithMaxBodySize] (an error matching [ErrBodyTooLarge] past it),
// an error body within [MaxErrorBodySize], a [Stream]'s records within the
// limit each, so a small body that decodes to gigabytes (a decompression
// bomb) costs at most the limit. A zstd frame whose window is over 8 MiB
// (RFC 9659's limit for HTTP) is refused. A body that does not decode
// fails the call with an error matching [ErrBadEncoding].
//
// Cost: one header value per request; a zstd decoder is pooled, a gzip or
// brotli one made per compressed response.
func WithResponseCompression() Option { return responseCompressionOption{} }

// WithRequestCompression compresses request bodies with encoding, "gzip" or
// "zstd", for large uploads to servers that accept a Content-Encoding on
// requests: a body of at least [MinCompressSize] bytes (or of unknown
// length) is sent compressed, as it is read, with a Content-Encoding
// header and no Content-Length (chunked). Smaller bodies go as they are.
// Each attempt compresses its own reader of the body, so a retried or
// hedged call still sends it once per attempt. Attempt interceptors (which
// sign bodies) see the compressed body.
//
// It is a [RequestOption]: the client's, a declaration's or one call's,
// the nearest winning. Another encoding makes NewClient, the declaration
// or the call fail. Default: bodies are sent as they are.
func WithRequestCompression(encoding string) RequestOption {
	return requestOption[requestCompressionOption]{requestCompressionOption{encoding}}
}

// MinCompressSize is the smallest request body that [WithRequestCompression]
// compresses: smaller ones gain less than the encoding's overhead.
const MinCompressSize = 1024

// ErrBadEncoding matches the error of a response body that does not decode
// under its Content-Encoding (see [WithResponseCompression]).
var ErrBadEncoding = errors.New("the response body does not decode under its Content-Encoding")

// Private implementation past this point.

// acceptEncoding is the Accept-Encoding kit sends when it decodes.
const acceptEncoding = "zstd, br, gzip"

// zstdMaxWindow is the largest zstd window kit decodes: RFC 9659 bounds
// the window of the zstd content coding at 8 MiB.
const zstdMaxWindow = 8 << 20

type responseCompressionOption struct{}

func (responseCompressionOption) applyClient(c *clientConfig) error {
	c.decode = decodeResponse // reached only from here: a program without the option links no decoder
	return nil
}

func (responseCompressionOption) String() string { return "kit.WithResponseCompression()" }

// requestCompressionOption is WithRequestCompression's setting.
type requestCompressionOption struct{ encoding string }

func (o requestCompressionOption) applyRequest(c *requestConfig, _ level) error {
	switch o.encoding {
	case "gzip":
		c.compress = compressor{"gzip", newGzipReader}
	case "zstd":
		c.compress = compressor{"zstd", newZstdReader}
	default:
		return fmt.Errorf("WithRequestCompression(%q): the encoding is not gzip or zstd", o.encoding)
	}
	return nil
}

// compressor is a request body encoding: its name and the function that
// compresses a body with it as it is read. The function is set only by
// WithRequestCompression, so a program without the option links no encoder.
type compressor struct {
	enc  string
	wrap func(io.ReadCloser) (io.ReadCloser, error)
}

func (o requestCompressionOption) String() string {
	return fmt.Sprintf("kit.WithRequestCompression(%q)", o.encoding)
}

// setAcceptEncoding adds kit's Accept-Encoding to a client's headers h
// when it decodes responses (decode), unless the caller set one for the
// client.
func setAcceptEncoding(h http.Header, decode bool) {
	if decode && len(h["Accept-Encoding"]) == 0 {
		h["Accept-Encoding"] = []string{acceptEncoding}
	}
}

// decodes reports whether kit decodes the response to hreq: the client
// decodes (decode), and hreq asked with kit's own Accept-Encoding.
func decodes(decode func(*http.Response) error, hreq *http.Request) bool {
	if decode == nil {
		return false
	}
	vs := hreq.Header["Accept-Encoding"]
	return len(vs) == 1 && vs[0] == acceptEncoding
}

// decodeResponse replaces hresp's body with its decoded reader when its
// Content-Encoding is one kit asked for. An unknown encoding (or a list of
// several) is left as it came.
func decodeResponse(hresp *http.Response) error {
	ce := hresp.Header["Content-Encoding"]
	if len(ce) != 1 {
		return nil
	}
	d := &decodedBody{body: hresp.Body, tap: &errTap{r: hresp.Body}}
	switch strings.ToLower(strings.TrimSpace(ce[0])) {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(d.tap)
		if err != nil {
			hresp.Body.Close()
			if d.tap.err != nil {
				return d.tap.err
			}
			return fmt.Errorf("%w: gzip: %w", ErrBadEncoding, err)
		}
		d.dec, d.enc = zr, "gzip"
	case "br":
		d.dec, d.enc = brotli.NewReader(d.tap), "br"
	case "zstd":
		zd, err := getZstd(d.tap)
		if err != nil {
			hresp.Body.Close()
			return fmt.Errorf("%w: zstd: %w", ErrBadEncoding, err)
		}
		d.dec, d.enc, d.release = zd, "zstd", func() { putZstd(zd) }
	default:
		return nil
	}
	hresp.Body = d
	hresp.Header.Del("Content-Encoding")
	hresp.Header.Del("Content-Length")
	hresp.ContentLength = -1
	hresp.Uncompressed = true
	return nil
}

// decodedBody reads a body through its decoder. Close closes the body and
// gives the decoder back.
type decodedBody struct {
	dec     io.Reader
	body    io.ReadCloser
	tap     *errTap // what the decoder reads: the body, its errors kept
	enc     string
	release func()

	mu     sync.Mutex  // held by Read, and by Close to give the decoder back
	closed atomic.Bool // Close has begun
}

// Read reads decoded bytes. An error of the body itself (a dropped
// connection, the context's end) is passed on as it is; any other is the
// decoder's, and matches ErrBadEncoding.
func (d *decodedBody) Read(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dec == nil {
		return 0, http.ErrBodyReadAfterClose
	}
	n, err := d.dec.Read(p)
	if err != nil && err != io.EOF {
		if d.tap.err != nil {
			return n, d.tap.err
		}
		err = fmt.Errorf("%w: %s: %w", ErrBadEncoding, d.enc, err)
	}
	return n, err
}

// errTap reads r, keeping its first error other than io.EOF.
type errTap struct {
	r   io.Reader
	err error
}

func (t *errTap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF && t.err == nil {
		t.err = err
	}
	return n, err
}

// Close closes the body first, which ends a Read under way on another
// goroutine (a stream closed as its context ends), then gives the decoder
// back once no Read uses it.
func (d *decodedBody) Close() error {
	if d.closed.Swap(true) {
		return nil
	}
	err := d.body.Close()
	d.mu.Lock()
	d.dec = nil
	if d.release != nil {
		d.release()
	}
	d.mu.Unlock()
	return err
}

// zstdPool holds decoders for reuse: making one allocates its tables.
var zstdPool sync.Pool

func getZstd(r io.Reader) (*zstd.Decoder, error) {
	if d, ok := zstdPool.Get().(*zstd.Decoder); ok {
		if err := d.Reset(r); err != nil {
			zstdPool.Put(d)
			return nil, err
		}
		return d, nil
	}
	// Concurrency 1 decodes on the reader's goroutine: no goroutine of the
	// decoder's outlives the body.
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderMaxMemory(zstdMaxWindow*4))
}

func putZstd(d *zstd.Decoder) {
	if d.Reset(nil) == nil {
		zstdPool.Put(d)
	}
}

// compressLayer compresses the request body of a request whose policy
// (else the client) asks for it: the attempt gets a copy whose GetBody
// compresses a fresh reader of the body as it is read.
type compressLayer struct {
	enc compressor // the client's WithRequestCompression; zero: none
}

func (l *compressLayer) wrap(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		enc := req.policy.compress
		if enc.enc == "" {
			enc = l.enc
		}
		if enc.enc == "" || req.GetBody == nil || req.ContentLength >= 0 && req.ContentLength < MinCompressSize ||
			len(req.Header["Content-Encoding"]) > 0 {
			return next(ctx, req)
		}
		c := *req
		c.own = nil // the auth layer copies c's header before changing it
		c.Header = req.Header.Clone()
		c.Header["Content-Encoding"] = []string{enc.enc}
		c.Header.Del("Content-Length")
		c.ContentLength = -1
		open := req.GetBody
		c.GetBody = func() (io.ReadCloser, error) {
			src, err := open()
			if err != nil {
				return nil, err
			}
			return enc.wrap(src)
		}
		return next(ctx, &c)
	}
}

// compressReader compresses src as it is read, on the reader's goroutine:
// each Read reads a chunk of src into the encoder until it has output.
type compressReader struct {
	src  io.ReadCloser
	enc  io.WriteCloser
	out  bytes.Buffer
	buf  []byte
	done bool
	err  error
}

// newGzipReader returns a reader of src compressed with gzip.
func newGzipReader(src io.ReadCloser) (io.ReadCloser, error) {
	r := &compressReader{src: src, buf: make([]byte, 32<<10)}
	r.enc = gzip.NewWriter(&r.out)
	return r, nil
}

// newZstdReader returns a reader of src compressed with zstd.
func newZstdReader(src io.ReadCloser) (io.ReadCloser, error) {
	r := &compressReader{src: src, buf: make([]byte, 32<<10)}
	w, err := zstd.NewWriter(&r.out, zstd.WithEncoderConcurrency(1))
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("starting the zstd encoder: %w", err)
	}
	r.enc = w
	return r, nil
}

func (r *compressReader) Read(p []byte) (int, error) {
	for r.out.Len() == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if r.done {
			return 0, io.EOF
		}
		n, err := r.src.Read(r.buf)
		if n > 0 {
			if _, werr := r.enc.Write(r.buf[:n]); werr != nil {
				r.err = fmt.Errorf("compressing the request body: %w", werr)
			}
		}
		switch {
		case err == io.EOF:
			if cerr := r.enc.Close(); cerr != nil && r.err == nil {
				r.err = fmt.Errorf("compressing the request body: %w", cerr)
			}
			r.done = true
		case err != nil:
			r.err = err
		}
	}
	return r.out.Read(p)
}

func (r *compressReader) Close() error {
	if !r.done {
		r.done = true
		_ = r.enc.Close() // frees a zstd encoder's state
	}
	return r.src.Close()
}
