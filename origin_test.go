package kit

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestRemoveParams(t *testing.T) {
	pairs := [][2]string{{"k", "secret"}, {"sig", "x"}}
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"a=1", "a=1"},
		{"a=1&k=secret", "a=1"},
		{"k=other&k=secret", "k=other"},
		{"k=secret&sig=x&sig=y", "sig=y"},
		{"%zz", "%zz"},
		{"%zz&k=secret", ""},
	} {
		got, _ := removeParams(tc.in, pairs)
		if got != tc.want {
			t.Errorf("removeParams(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAPIKeyQueryParamIsRedacted(t *testing.T) {
	st, err := newTestState("https://h", WithAuth(APIKeyQuery("Zorp", "v")))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse("https://h/p?zorp=v&other=1")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.redactorOf(nil).url(u); got != "https://h/p?other=1&zorp=REDACTED" {
		t.Errorf("redact = %s", got)
	}
	if got := redactURL(u); got != "https://h/p?zorp=v&other=1" {
		t.Errorf("another client's name is redacted by every client: %s", got)
	}
}

func TestSecretsPastTheBoundRedactEverything(t *testing.T) {
	var s secrets
	for i := range maxSecretNames + 1 {
		s.add("n" + strconv.Itoa(i))
	}
	u, _ := url.Parse("https://h/p?anything=v")
	if got := s.redact(u); got != "https://h/p?anything=REDACTED" {
		t.Errorf("past the bound: %s", got)
	}
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

// oldSameOrigin is how sameOrigin compared before origins were worked out
// once: lower-cased host and port joined in one string.
func oldSameOrigin(a, b *url.URL) bool {
	canon := func(u *url.URL) string {
		host, port := u.Hostname(), u.Port()
		if port == "" {
			switch u.Scheme {
			case "http":
				port = "80"
			case "https":
				port = "443"
			}
		}
		return strings.ToLower(host) + ":" + port
	}
	return a.Scheme == b.Scheme && canon(a) == canon(b)
}

func TestOriginMatches(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://api.example.com/v1", "https://api.example.com/other?q=1", true},
		{"https://API.Example.COM/v1", "https://api.example.com:443/", true},
		{"http://h", "http://h:80", true},
		{"http://h", "https://h", false},
		{"http://h:8080", "http://h:8081", false},
		{"http://h", "http://h.evil", false},
		{"http://h.evil", "http://h", false},
		{"http://[::1]:80/", "http://[::1]/", true},
		{"http://[::1]:8080/", "http://[::2]:8080/", false},
		{"http://ÄPI.example/", "http://äpi.example/", true},
		{"http://ſ.example/", "http://s.example/", false}, // folds to s, does not lower to it
		{"http://K.example/", "http://k.example/", true},  // Kelvin sign lowers to k
		{"ftp://h", "ftp://h", true},
		{"ftp://h", "ftp://h:21", false},
	} {
		a, err := url.Parse(tc.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := url.Parse(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameOrigin(a, b); got != tc.same {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if old := oldSameOrigin(a, b); old != tc.same {
			t.Errorf("the reference disagrees on %s, %s: %v", tc.a, tc.b, old)
		}
	}
}

// The origin check compares in place: no allocation for an ASCII host.
func TestOriginMatchesAllocatesNothing(t *testing.T) {
	st, err := newTestState("https://API.example.com/v1")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://api.EXAMPLE.com:443/v1/users/1?x=1")
	if n := testing.AllocsPerRun(100, func() {
		if !st.sameOrigin(u) {
			t.Fatal("not the same origin")
		}
	}); n != 0 {
		t.Errorf("%v allocations per check", n)
	}
}

// FuzzSameOrigin checks sameOrigin against the string comparison it
// replaced: it may be stricter, never looser.
func FuzzSameOrigin(f *testing.F) {
	for _, s := range [][2]string{
		{"https://api.example.com/v1", "https://API.example.com:443/x"},
		{"http://h:80", "http://h"},
		{"http://[::1]:80/", "http://[::1]/"},
		{"http://ÄPI.example/", "http://äpi.example/"},
		{"http://a:1", "http://a:1:"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, ra, rb string) {
		a, err := url.Parse(ra)
		if err != nil {
			return
		}
		b, err := url.Parse(rb)
		if err != nil {
			return
		}
		if sameOrigin(a, b) && !oldSameOrigin(a, b) {
			t.Errorf("sameOrigin(%q, %q) is true; the string comparison says false", ra, rb)
		}
		if sameOrigin(a, b) != sameOrigin(b, a) {
			t.Errorf("sameOrigin(%q, %q) is not symmetric", ra, rb)
		}
	})
}
