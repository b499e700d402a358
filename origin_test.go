package kit

import (
	"net/url"
	"strconv"
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
	if got := st.redact(u); got != "https://h/p?other=1&zorp=REDACTED" {
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
