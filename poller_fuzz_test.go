package kit

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// FuzzPollHeaders feeds the poller's reading of a first response (the
// operation URL from Operation-Location, Azure-AsyncOperation, Location
// or a body field) and of Retry-After: it never panics, an operation URL
// is always an absolute http(s) URL, and a wait is never negative nor
// over MaxWait.
func FuzzPollHeaders(f *testing.F) {
	f.Add("jobs/1", "", "", "", []byte(`{}`), "5")
	f.Add("", "https://other.example/ops/9?sig=x", "", "", []byte(nil), "Wed, 21 Oct 2015 07:28:00 GMT")
	f.Add("", "", "", "operation.href", []byte(`{"operation":{"href":"/ops/3"}}`), "99999999999999999999")
	f.Add("javascript:alert(1)", "", "", "", []byte(nil), "-1")
	f.Add("", "", "//evil.example/x", "", []byte(nil), " 3 ")
	f.Add("%zz", "", "", "a..b", []byte(`{"a":`), "")
	base, _ := url.Parse("https://api.example.com/v1/jobs")
	p := &Poller[struct{}]{opts: PollOptions{MaxWait: time.Minute}}
	f.Fuzz(func(t *testing.T, loc, opLoc, azure, urlAt string, body []byte, retry string) {
		h := http.Header{}
		for k, v := range map[string]string{"Location": loc, "Operation-Location": opLoc, "Azure-AsyncOperation": azure, "Retry-After": retry} {
			if v != "" {
				h.Set(k, v)
			}
		}
		if urlAt != "" {
			if _, err := newPoller[struct{}](&Client{}, PollOptions{URLAt: urlAt}); err != nil {
				urlAt = ""
			}
		}
		u, err := operationURL(base, h, body, urlAt)
		if err == nil {
			pu, perr := url.Parse(u)
			if perr != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
				t.Fatalf("operation URL %q is not an absolute http(s) URL", u)
			}
		} else if strings.Contains(err.Error(), "sig=x") {
			t.Fatalf("error %q shows a secret", err)
		}
		if w := p.pollWait(h); w < 0 || w > time.Minute {
			t.Fatalf("wait %v for Retry-After %q", w, retry)
		}
	})
}
