package kit

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
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

func TestReadResponseHEADHasNoBody(t *testing.T) {
	t.Parallel()
	st, err := newClientState("test", "http://example.com", []Option{WithMaxBodySize(10)})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodHead, "http://example.com/file", nil)
	resp, err := st.readResponse(req, &http.Response{
		StatusCode:    http.StatusOK,
		Header:        http.Header{"Content-Length": {"1000"}},
		ContentLength: 1000,
		Body:          http.NoBody,
	}, 0)
	if err != nil || resp.StatusCode != http.StatusOK || len(resp.Bytes()) != 0 {
		t.Errorf("HEAD with Content-Length 1000 over a limit of 10: %v, %v; want the response", resp, err)
	}
}

func TestNewHTTPRequestHeaders(t *testing.T) {
	t.Parallel()
	st, err := newClientState("test", "http://example.com/api", []Option{WithHeader("X-Client", "c"), WithHeader("Accept-Language", "en")})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		or   outRequest
		want http.Header
	}{
		{"no body", outRequest{method: "GET", url: "http://example.com/api/x"}, http.Header{
			"Accept": {"application/json"}, "X-Client": {"c"}, "Accept-Language": {"en"}, "User-Agent": {userAgent},
		}},
		{"body", outRequest{method: "POST", url: "http://example.com/api/x", body: []byte(`{}`), hasBody: true}, http.Header{
			"Accept": {"application/json"}, "Content-Type": {"application/json"}, "X-Client": {"c"}, "Accept-Language": {"en"}, "User-Agent": {userAgent},
		}},
		{"empty body is a body", outRequest{method: "PUT", url: "http://example.com/api/x", body: nil, hasBody: true}, http.Header{
			"Accept": {"application/json"}, "Content-Type": {"application/json"}, "X-Client": {"c"}, "Accept-Language": {"en"}, "User-Agent": {userAgent},
		}},
		{"header params", outRequest{method: "GET", url: "http://example.com/api/x", header: http.Header{"X-Client": {"p"}, "User-Agent": {"mine"}}}, http.Header{
			"Accept": {"application/json"}, "X-Client": {"p"}, "Accept-Language": {"en"}, "User-Agent": {"mine"},
		}},
	}
	for _, tt := range tests {
		req, err := st.newHTTPRequest(t.Context(), &tt.or)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := req.Header; !headersEqual(got, tt.want) {
			t.Errorf("%s: headers %v, want %v", tt.name, got, tt.want)
		}
		if req.Method != tt.or.method || req.URL.String() != tt.or.url {
			t.Errorf("%s: %s %s, want %s %s", tt.name, req.Method, req.URL, tt.or.method, tt.or.url)
		}
	}
	// The client's headers are copied, never shared with a request.
	req, _ := st.newHTTPRequest(t.Context(), &outRequest{method: "GET", url: "http://example.com/api/x"})
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

func TestRedactURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"https://h/p", "https://h/p"},
		{"https://h/p?q=1", "https://h/p?q=1"},
		{"https://h/p?access_token=abc", "https://h/p?access_token=REDACTED"},
		{"https://h/p?api_key=abc&q=1", "https://h/p?api_key=REDACTED&q=1"},
		{"https://h/p?Client_Secret=a&x=1", "https://h/p?Client_Secret=REDACTED&x=1"},
		{"https://u:pw@h/p", "https://REDACTED@h/p"},
		{"https://h/p?x=%zz&token=abc", "https://h/p?REDACTED"},
		{"https://h/a%2Fb?token=t", "https://h/a%2Fb?token=REDACTED"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := redactURL(u); got != tt.want {
			t.Errorf("redactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := redactURL(nil); got != "" {
		t.Errorf("redactURL(nil) = %q", got)
	}
}
