package kit

import (
	"errors"
	"io"
	"math"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/kithttp/kit/internal/pathtmpl"
)

func TestReadLimited(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		r        io.Reader
		limit    int64
		size     int64
		truncate bool
		want     string
		tooLarge bool
	}{
		{"known size", strings.NewReader("hello"), 10, 5, false, "hello", false},
		{"unknown size", strings.NewReader("hello"), 10, -1, false, "hello", false},
		{"exactly the limit", strings.NewReader("hello"), 5, 5, false, "hello", false},
		{"exactly the limit, unknown size", strings.NewReader("hello"), 5, -1, false, "hello", false},
		{"one over", strings.NewReader("hello!"), 5, -1, false, "", true},
		{"size lies low", strings.NewReader("hello world"), 100, 3, false, "hello world", false},
		{"size lies low, over", strings.NewReader("hello world"), 5, 3, false, "", true},
		{"size zero but a body", strings.NewReader("surprise"), 100, 0, false, "surprise", false},
		{"size zero, empty", strings.NewReader(""), 100, 0, false, "", false},
		{"NoBody", http.NoBody, 100, 0, false, "", false},
		{"one byte at a time", iotest.OneByteReader(strings.NewReader("slowly")), 10, -1, false, "slowly", false},
		{"big, unknown size", strings.NewReader(strings.Repeat("x", 10000)), 20000, -1, false, strings.Repeat("x", 10000), false},
		{"truncate", strings.NewReader("hello world"), 5, -1, true, "hello", false},
		{"truncate, size known", strings.NewReader("hello world"), 5, 11, true, "hello", false},
		{"truncate, fits", strings.NewReader("hi"), 5, 2, true, "hi", false},
	}
	for _, tt := range tests {
		got, err := readLimited(tt.r, tt.limit, tt.size, tt.truncate)
		if tt.tooLarge {
			if !errors.Is(err, ErrBodyTooLarge) {
				t.Errorf("%s: %q, %v; want ErrBodyTooLarge", tt.name, got, err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	errRead := errors.New("connection reset")
	if _, err := readLimited(iotest.ErrReader(errRead), 10, -1, false); !errors.Is(err, errRead) {
		t.Errorf("read error: %v, want it returned", err)
	}
}

// newTestState returns the state of a Client for base, for internal tests.
func newTestState(base string, opts ...Option) (*clientState, error) {
	return newClientState("test", base, opts, func(c *clientConfig) any { return c.httpClient })
}

// newTestAuthLayer returns the auth layer of a Client for base with auth
// a, for internal tests.
func newTestAuthLayer(base string, a Auth) (*authLayer, error) {
	st, err := newTestState(base, WithAuth(a))
	if err != nil {
		return nil, err
	}
	return newAuthLayer(a, st.home, &st.secrets, nil), nil
}

func TestReceiveHEADHasNoBody(t *testing.T) {
	t.Parallel()
	st, err := newTestState("http://example.com", WithMaxBodySize(10))
	if err != nil {
		t.Fatal(err)
	}
	hreq, _ := http.NewRequest(http.MethodHead, "http://example.com/file", nil)
	resp, err := st.receive(t.Context(), &Request{Method: http.MethodHead, URL: hreq.URL, policy: defaultPolicy}, hreq, &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Length": {"1000"}},
		ContentLength: 1000,
		Body:          http.NoBody,
	}, nil)
	if err != nil || resp.StatusCode != http.StatusOK || len(resp.Bytes()) != 0 {
		t.Errorf("HEAD with Content-Length 1000 over a limit of 10: %v, %v; want the response", resp, err)
	}
}

// TestReadLimitedFollowsBytesNotAnnouncement checks that the buffer grows
// with what arrives: a server that announces a large body and sends a few
// bytes does not make kit allocate what it announced.
func TestReadLimitedFollowsBytesNotAnnouncement(t *testing.T) {
	t.Parallel()
	body, err := readLimited(strings.NewReader("tiny body"), 1<<40, 30<<20, false)
	if err != nil || string(body) != "tiny body" {
		t.Fatalf("%q, %v", body, err)
	}
	if c := cap(body); c > initialBodyBuffer+1 {
		t.Errorf("buffer of %d bytes for a 9-byte body announced as 30 MiB", c)
	}
	for _, limit := range []int64{math.MaxInt64, math.MaxInt64 - 1} {
		if got, err := readLimited(strings.NewReader("x"), limit, -1, false); err != nil || string(got) != "x" {
			t.Errorf("limit %d: %q, %v", limit, got, err)
		}
		if got, err := readLimited(strings.NewReader("x"), limit, math.MaxInt64, true); err != nil || string(got) != "x" {
			t.Errorf("limit %d, size MaxInt64: %q, %v", limit, got, err)
		}
	}
}

func TestBuildHeaders(t *testing.T) {
	t.Parallel()
	st, err := newTestState("http://example.com/api", WithHeader("X-Client", "c"), WithHeader("Accept-Language", "en"))
	if err != nil {
		t.Fatal(err)
	}
	type body struct{ A int }
	d := &endpointDecl{method: "POST", name: "POST /x", tmpl: &pathtmpl.Template{Raw: "/x", Parts: []pathtmpl.Part{{Literal: "/x"}}}}
	tests := []struct {
		name string
		r    routed
		want http.Header
	}{
		{"no body", routed{}, http.Header{
			"Accept": {"application/json"}, "X-Client": {"c"}, "Accept-Language": {"en"}, "User-Agent": {userAgent},
		}},
		{"body", routed{body: reflect.ValueOf(body{1})}, http.Header{
			"Accept": {"application/json"}, "Content-Type": {"application/json"}, "X-Client": {"c"}, "Accept-Language": {"en"}, "User-Agent": {userAgent},
		}},
		{"header params", routed{header: http.Header{"X-Client": {"p"}, "User-Agent": {"mine"}}}, http.Header{
			"Accept": {"application/json"}, "X-Client": {"p"}, "Accept-Language": {"en"}, "User-Agent": {"mine"},
		}},
	}
	for _, tt := range tests {
		req, err := st.builder.build(d, &tt.r, "")
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := req.Header; !headersEqual(got, tt.want) {
			t.Errorf("%s: headers %v, want %v", tt.name, got, tt.want)
		}
		if req.Method != "POST" || req.URL.String() != "http://example.com/api/x" {
			t.Errorf("%s: %s %s", tt.name, req.Method, req.URL)
		}
		if tt.r.body.IsValid() {
			rc, err := req.GetBody()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			if string(b) != `{"A":1}` || req.ContentLength != int64(len(b)) {
				t.Errorf("%s: body %q, ContentLength %d", tt.name, b, req.ContentLength)
			}
		}
	}
	// The client's headers are copied, never shared with a request.
	req, _ := st.builder.build(d, &routed{}, "")
	req.Header["X-Client"][0] = "changed"
	req.Header.Add("X-Client", "more")
	if got := st.header["X-Client"]; len(got) != 1 || got[0] != "c" {
		t.Errorf("client header became %q after a request's header was changed", got)
	}
}

func headersEqual(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb := b[k]
		if strings.Join(va, "\x00") != strings.Join(vb, "\x00") {
			return false
		}
	}
	return true
}
