package kit_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// encode compresses b with enc ("gzip", "br", "zstd").
func encode(t testing.TB, enc string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch enc {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "br":
		w = brotli.NewWriter(&buf)
	case "zstd":
		zw, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodedServer answers every request with body, encoded with the
// encoding of the path's last segment ("/x/zstd"), and the status of the
// query's status (200 by default). It records the Accept-Encoding asked.
func encodedServer(t *testing.T, body []byte, asked *atomic.Value) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked != nil {
			asked.Store(r.Header.Get("Accept-Encoding"))
		}
		enc := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		w.Header().Set("Content-Type", "application/json")
		out := body
		if enc != "identity" {
			out = encode(t, enc, body)
			w.Header().Set("Content-Encoding", enc)
		}
		if r.URL.Query().Get("status") == "500" {
			w.WriteHeader(500)
		}
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type zUser struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

var getEncoded = kit.Get[struct{ Enc string }, zUser]("/users/{enc}")

func TestResponseCompressionDecodes(t *testing.T) {
	var asked atomic.Value
	srv := encodedServer(t, []byte(`{"id":7,"name":"Ada"}`), &asked)
	c, err := kit.NewClient(srv.URL, kit.WithResponseCompression())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ac, err := kit.NewAsyncClient(srv.URL, kit.WithResponseCompression())
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(context.Background())
	ctx := context.Background()
	for _, enc := range []string{"zstd", "br", "gzip", "identity"} {
		u, err := getEncoded.Call(ctx, c, struct{ Enc string }{enc})
		if err != nil || u.Name != "Ada" {
			t.Fatalf("%s, sync: %+v, %v", enc, u, err)
		}
		if got := asked.Load(); got != "zstd, br, gzip" {
			t.Fatalf("Accept-Encoding %q", got)
		}
		u, err = getEncoded.Go(ctx, ac, struct{ Enc string }{enc}).Await(ctx)
		if err != nil || u.Name != "Ada" {
			t.Fatalf("%s, async: %+v, %v", enc, u, err)
		}
	}
}

func TestResponseCompressionOffAsksGzipOnly(t *testing.T) {
	var asked atomic.Value
	srv := encodedServer(t, []byte(`{"id":7,"name":"Ada"}`), &asked)
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	u, err := getEncoded.Call(context.Background(), c, struct{ Enc string }{"gzip"})
	if err != nil || u.Name != "Ada" {
		t.Fatalf("gzip through Go's transport: %+v, %v", u, err)
	}
	if got := asked.Load(); got != "gzip" {
		t.Fatalf("without the option Accept-Encoding is %q, want Go's gzip", got)
	}
}

func TestResponseCompressionCallersAcceptEncodingWins(t *testing.T) {
	var asked atomic.Value
	srv := encodedServer(t, []byte(`{"id":7,"name":"Ada"}`), &asked)
	raw := kit.Get[struct{ Enc string }, io.ReadCloser]("/users/{enc}")
	c, err := kit.NewClient(srv.URL, kit.WithResponseCompression())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc, err := raw.Call(context.Background(), c, struct{ Enc string }{"zstd"}, kit.WithHeader("Accept-Encoding", "zstd"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	if asked.Load() != "zstd" {
		t.Fatalf("Accept-Encoding %q", asked.Load())
	}
	if !bytes.Equal(b, encode(t, "zstd", []byte(`{"id":7,"name":"Ada"}`))) {
		t.Fatalf("the body was decoded although the caller asked for its own encoding: %q", b)
	}
}

// A decompression bomb (64 MiB of zeros in 64 KiB of gzip or 106 bytes of
// brotli, 1 GiB in 32 KiB of zstd from kittest's FaultZstdBomb) stops at
// the body size limit, for every encoding, sync and async.
func TestResponseCompressionBombBounded(t *testing.T) {
	bodies := map[string][]byte{}
	for enc, file := range map[string]string{"gzip": "64MiB.gz", "br": "64MiB.br"} {
		b, err := os.ReadFile("testdata/bombs/" + file)
		if err != nil {
			t.Fatal(err)
		}
		bodies[enc] = b
	}
	fs := kittest.NewFaultServer(t, nil)
	fs.SetFallback(kittest.FaultZstdBomb)
	zb, err := http.Get(fs.URL())
	if err != nil {
		t.Fatal(err)
	}
	bodies["zstd"], _ = io.ReadAll(zb.Body)
	zb.Body.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		enc := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		w.Header().Set("Content-Encoding", enc)
		w.Write(bodies[enc])
	}))
	defer srv.Close()
	raw := kit.Get[struct{ Enc string }, []byte]("/bomb/{enc}")
	c, err := kit.NewClient(srv.URL, kit.WithResponseCompression(), kit.WithMaxBodySize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ac, err := kit.NewAsyncClient(srv.URL, kit.WithResponseCompression(), kit.WithMaxBodySize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(context.Background())
	ctx := context.Background()
	for enc, b := range bodies {
		if len(b) > 1<<20 {
			t.Fatalf("%s: the bomb is %d bytes encoded", enc, len(b))
		}
		if _, err := raw.Call(ctx, c, struct{ Enc string }{enc}); !errors.Is(err, kit.ErrBodyTooLarge) {
			t.Errorf("%s, sync: %v, want ErrBodyTooLarge", enc, err)
		}
		if _, err := raw.Go(ctx, ac, struct{ Enc string }{enc}).Await(ctx); !errors.Is(err, kit.ErrBodyTooLarge) {
			t.Errorf("%s, async: %v, want ErrBodyTooLarge", enc, err)
		}
	}
}

func TestResponseCompressionBadBody(t *testing.T) {
	for _, enc := range []string{"zstd", "br", "gzip"} {
		t.Run(enc, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", enc)
				w.Write([]byte("this is not compressed at all, whatever the header says"))
			}))
			defer srv.Close()
			c, err := kit.NewClient(srv.URL, kit.WithResponseCompression())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = getEncoded.Call(context.Background(), c, struct{ Enc string }{enc})
			if !errors.Is(err, kit.ErrBadEncoding) {
				t.Fatalf("%v, want ErrBadEncoding", err)
			}
		})
	}
}

func TestResponseCompressionErrorBodyAndStream(t *testing.T) {
	srv := encodedServer(t, []byte(`{"id":7,"name":"Ada"}`), nil)
	c, err := kit.NewClient(srv.URL, kit.WithResponseCompression())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	failing := kit.Get[struct {
		Enc    string
		Status string `kit:"status,query"`
	}, zUser]("/users/{enc}")
	_, err = failing.Call(ctx, c, struct {
		Enc    string
		Status string `kit:"status,query"`
	}{"br", "500"})
	var he *kit.HTTPError
	if !errors.As(err, &he) || string(he.Body) != `{"id":7,"name":"Ada"}` {
		t.Fatalf("error body not decoded: %v", err)
	}
	stream := kit.Get[struct{ Enc string }, io.ReadCloser]("/users/{enc}")
	for _, enc := range []string{"zstd", "br", "gzip"} {
		rc, err := stream.Call(ctx, c, struct{ Enc string }{enc})
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != `{"id":7,"name":"Ada"}` {
			t.Fatalf("%s stream: %q, %v", enc, b, err)
		}
	}
}

// Every page of a walk is decoded.
func TestResponseCompressionWalk(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page := r.URL.Query().Get("page")
		body := `[]`
		if page == "" || page == "1" {
			body = `[{"id":1,"name":"a"},{"id":2,"name":"b"}]`
		} else if page == "2" {
			body = `[{"id":3,"name":"c"}]`
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "zstd")
		w.Write(encode(t, "zstd", []byte(body)))
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithResponseCompression())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := kit.NewResource[zUser](c, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 2}))
	var names []string
	for u, err := range r.All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, u.Name)
	}
	if strings.Join(names, "") != "abc" {
		t.Fatalf("walked %v", names)
	}
}

// The server decodes what WithRequestCompression sent; a small body goes
// as it is, and a retried call compresses the body again for each attempt.
func TestRequestCompression(t *testing.T) {
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		switch ce := r.Header.Get("Content-Encoding"); ce {
		case "gzip":
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			body = zr
		case "zstd":
			zr, err := zstd.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			defer zr.Close()
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		if r.URL.Query().Get("fail") != "" && attempts.Add(1) == 1 {
			w.WriteHeader(503)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"encoding":%q,"length":%d,"chunked":%v}`, r.Header.Get("Content-Encoding"), len(b), r.ContentLength < 0)
	}))
	defer srv.Close()
	type payload struct {
		Data string `json:"data"`
	}
	type upload struct{ Body payload }
	type got struct {
		Encoding string `json:"encoding"`
		Length   int    `json:"length"`
		Chunked  bool   `json:"chunked"`
	}
	put := kit.Put[upload, got]("/upload")
	big := upload{payload{Data: strings.Repeat("kit ", 4096)}}
	want := len(fmt.Sprintf(`{"data":%q}`, big.Body.Data))
	for _, enc := range []string{"gzip", "zstd"} {
		c, err := kit.NewClient(srv.URL, kit.WithRequestCompression(enc))
		if err != nil {
			t.Fatal(err)
		}
		ac, err := kit.NewAsyncClient(srv.URL, kit.WithRequestCompression(enc))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		g, err := put.Call(ctx, c, big)
		if err != nil || g.Encoding != enc || g.Length != want || !g.Chunked {
			t.Fatalf("%s: %+v, %v", enc, g, err)
		}
		g, err = put.Go(ctx, ac, big).Await(ctx)
		if err != nil || g.Encoding != enc || g.Length != want {
			t.Fatalf("%s, async: %+v, %v", enc, g, err)
		}
		g, err = put.Call(ctx, c, upload{payload{Data: "small"}})
		if err != nil || g.Encoding != "" {
			t.Fatalf("%s: a small body was compressed: %+v, %v", enc, g, err)
		}
		c.Close()
		ac.Close(context.Background())
	}
	// A call's option wins over the client's none; the retry sends the
	// body compressed again.
	c, err := kit.NewClient(srv.URL, kit.WithRetry(kit.RetryPolicy{MaxAttempts: 2, BaseDelay: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	retried := kit.Put[upload, got]("/upload?fail=1")
	g, err := retried.Call(context.Background(), c, big, kit.WithRequestCompression("zstd"))
	if err != nil || g.Encoding != "zstd" || g.Length != want || attempts.Load() != 2 {
		t.Fatalf("retried: %+v, %v, %d attempts", g, err, attempts.Load())
	}
}

func TestRequestCompressionBadEncoding(t *testing.T) {
	if _, err := kit.NewClient("http://127.0.0.1", kit.WithRequestCompression("br")); err == nil {
		t.Fatal("WithRequestCompression(br) accepted")
	}
	if s := fmt.Sprint(kit.WithRequestCompression("gzip")); s != `kit.WithRequestCompression("gzip")` {
		t.Fatalf("String: %s", s)
	}
}

// kittest's FaultZstdBomb, through a client that decodes zstd, stops at the
// limit; the bomb itself is 8192 RLE blocks of 128 KiB (1 GiB), of which
// the first 16 MiB are decoded here.
func TestResponseCompressionFaultZstdBomb(t *testing.T) {
	fs := kittest.NewFaultServer(t, nil)
	fs.SetFallback(kittest.FaultZstdBomb)
	c, err := kit.NewClient(fs.URL(), kit.WithResponseCompression(), kit.WithMaxBodySize(4<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := getEncoded.Call(context.Background(), c, struct{ Enc string }{"x"}); !errors.Is(err, kit.ErrBodyTooLarge) {
		t.Fatalf("%v, want ErrBodyTooLarge", err)
	}
	resp, err := http.Get(fs.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || len(raw) != 6+4*8192 {
		t.Fatalf("the bomb is %d bytes (%v), want 6+4*8192", len(raw), err)
	}
	zr, err := zstd.NewReader(bytes.NewReader(raw), zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	n, err := io.CopyN(io.Discard, zr, 16<<20)
	if err != nil || n != 16<<20 {
		t.Fatalf("the bomb decodes %d bytes, %v", n, err)
	}
}
