package kit_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// curlOf records the curl command of each attempt that an attempt
// interceptor sees (credentials on), with o.
func curlOf(t *testing.T, o kit.CurlOptions) (kit.Interceptor, func() []string) {
	var mu sync.Mutex
	var got []string
	ic := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			s, err := kit.Curl(req, o)
			if err != nil {
				t.Errorf("Curl: %v", err)
			}
			mu.Lock()
			got = append(got, s)
			mu.Unlock()
			return next(ctx, req)
		}
	}
	return ic, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

func TestCurlRedacts(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, kittest.NewAPI())
			ic, got := curlOf(t, kit.CurlOptions{})
			c := tw.client(t, srv.URL, kit.WithAuth(kit.APIKeyQuery("sig_v", "q-s3cret")),
				kit.WithHeader("Authorization", "Bearer b-s3cret"), kit.WithAttemptInterceptors(ic))
			echo := kit.Post[struct {
				Token string            `kit:"token"`
				Page  int               `kit:"page"`
				Body  map[string]string `kit:",body"`
			}, map[string]any]("/echo/{token}")
			if _, err := twinCall(t.Context(), tw, echo, c, struct {
				Token string            `kit:"token"`
				Page  int               `kit:"page"`
				Body  map[string]string `kit:",body"`
			}{"p-s3cret", 2, map[string]string{"q": "it's"}}); err != nil {
				t.Fatal(err)
			}
			cmds := got()
			if len(cmds) != 1 {
				t.Fatalf("got %d commands", len(cmds))
			}
			cmd := cmds[0]
			if strings.Contains(cmd, "s3cret") {
				t.Errorf("the command shows a secret: %s", cmd)
			}
			for _, want := range []string{
				"curl -X POST '" + srv.URL + "/echo/REDACTED?",
				"page=2",
				"sig_v=REDACTED",
				"-H 'Authorization: REDACTED'",
				"-H 'Content-Type: application/json'",
				`--data-binary '{"q":"it'\''s"}'`,
			} {
				if !strings.Contains(cmd, want) {
					t.Errorf("the command lacks %q: %s", want, cmd)
				}
			}
		})
	}
}

func TestCurlShowSecrets(t *testing.T) {
	t.Parallel()
	srv := serve(t, kittest.NewAPI())
	ic, got := curlOf(t, kit.CurlOptions{ShowSecrets: true})
	c := newClient(t, srv.URL, kit.WithAuth(kit.Bearer("b-s3cret")), kit.WithAttemptInterceptors(ic))
	if _, err := ltGetUser.Call(t.Context(), c, struct{ ID int }{1}); err != nil {
		t.Fatal(err)
	}
	cmd := got()[0]
	if !strings.Contains(cmd, "-H 'Authorization: Bearer b-s3cret'") || !strings.HasPrefix(cmd, "curl "+srv.URL+"/users/1 ") {
		t.Errorf("command: %s", cmd)
	}
}

func TestCurlBodies(t *testing.T) {
	t.Parallel()
	req := curlRequest("POST", "https://api.example.com/login", "user=ada&password=hunter2")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	cmd, err := kit.Curl(req, kit.CurlOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "curl -X POST https://api.example.com/login -H 'Content-Type: application/x-www-form-urlencoded' --data-binary 'user=ada&password=REDACTED'"; cmd != want {
		t.Errorf("got  %s\nwant %s", cmd, want)
	}
	bin := curlRequest("PUT", "https://h/f", "\x00\x01")
	if cmd, _ := kit.Curl(bin, kit.CurlOptions{}); !strings.HasSuffix(cmd, "# the body is left out: binary") {
		t.Errorf("binary body: %s", cmd)
	}
	big := curlRequest("PUT", "https://h/f", strings.Repeat("a", 11))
	if cmd, _ := kit.Curl(big, kit.CurlOptions{MaxBody: 10}); !strings.HasSuffix(cmd, "# the body is left out: over the limit") {
		t.Errorf("big body: %s", cmd)
	}
	if _, err := kit.Curl(nil, kit.CurlOptions{}); err == nil {
		t.Error("Curl(nil) = nil error")
	}
}

// curlRequest is a Request as an interceptor may make one.
func curlRequest(method, rawURL, body string) *kit.Request {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	return &kit.Request{Method: method, URL: u, Header: http.Header{}, ContentLength: int64(len(body)),
		GetBody: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }}
}
