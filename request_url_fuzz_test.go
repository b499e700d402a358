package kit

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzBuiltURL checks build's shortcuts against what they replace, for
// arbitrary base URLs, expanded paths and query parameters (values that
// come from callers and servers): parseBuilt, which parses only what
// follows the base URL's scheme://host, gives the URL (or the error) that
// url.Parse gives for the whole; writeQuery and encodeQuery write what
// url.Values.Encode writes. Seeds are in testdata/fuzz/FuzzBuiltURL.
func FuzzBuiltURL(f *testing.F) {
	f.Add("http://127.0.0.1:8080/api", "/users/octo", "fields", "all")
	f.Add("http://[fe80::1%25en0]:8080/", "/p%zz", "", "")
	f.Fuzz(func(t *testing.T, base, path, key, value string) {
		c, err := NewClient(base)
		if err != nil {
			return
		}
		defer c.Close()
		st := c.binding()

		var b strings.Builder
		b.WriteString(st.builder.prefix)
		b.WriteString(path)
		r := &routed{}
		r.addQuery(key, value)
		writeQuery(&b, nil, nil, r)
		if want := "?" + (url.Values{key: {value}}).Encode(); !strings.HasSuffix(b.String(), want) {
			t.Fatalf("writeQuery wrote %q, want it to end with %q", b.String(), want)
		}
		full := b.String()

		want, werr := url.Parse(full)
		got, origin, gerr := st.builder.parseBuilt(full, true, new(url.URL))
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("parseBuilt(%q): error %v, url.Parse: %v", full, gerr, werr)
		}
		if werr != nil {
			var ue *url.Error
			if !errors.As(werr, &ue) || ue.Err.Error() != gerr.Error() {
				t.Fatalf("parseBuilt(%q): error %q, url.Parse: %q", full, gerr, werr)
			}
			return
		}
		if !sameURL(got, want) {
			t.Fatalf("parseBuilt(%q) = %#v, url.Parse: %#v", full, got, want)
		}
		if origin != nil && (origin.Scheme != got.Scheme || origin.Host != got.Host) {
			t.Fatalf("parseBuilt(%q): origin %s://%s, URL %s://%s", full, origin.Scheme, origin.Host, got.Scheme, got.Host)
		}

		q := url.Values{key: {value, path}, value: {key}, path: {""}}
		var e strings.Builder
		encodeQuery(&e, q)
		if e.String() != q.Encode() {
			t.Fatalf("encodeQuery(%v) = %q, url.Values.Encode: %q", q, e.String(), q.Encode())
		}
	})
}

// sameURL reports whether a and b have the same fields (their userinfo
// compared by value).
func sameURL(a, b *url.URL) bool {
	ac, bc := *a, *b
	ac.User, bc.User = nil, nil
	return ac == bc && a.User.String() == b.User.String()
}
