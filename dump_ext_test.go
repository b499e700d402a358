package kit_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// syncBuffer is a bytes.Buffer safe for the writes of concurrent calls.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type dumpLogin struct {
	Username string `json:"username"`
}

func TestDumpRedactsAndShowsBodies(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, kittest.NewAPI())
			var out syncBuffer
			c := tw.client(t, srv.URL, kit.WithAuth(kit.APIKey("X-Custom-Credential", "s3cr3t-key")),
				kit.WithHeader("Cookie", "session=c00kie"), kit.WithDump(&out, 1<<10))
			echo := kit.Post[struct {
				Token string `kit:"token"`
				Body  dumpLogin
			}, map[string]any]("/echo/{token}")
			_, err := twinCall(t.Context(), tw, echo, c, struct {
				Token string `kit:"token"`
				Body  dumpLogin
			}{"p4th-secret", dumpLogin{"ada"}}, kit.WithHeader("X-Trace", "t-1"))
			if err != nil {
				t.Fatal(err)
			}
			got := out.String()
			// Bodies are shown as they are: /echo's response body repeats
			// the request, secrets and all. Everything else is redacted.
			var head strings.Builder
			for line := range strings.Lines(got) {
				if !strings.HasPrefix(line, "< {") {
					head.WriteString(line)
				}
			}
			for _, secret := range []string{"s3cr3t-key", "c00kie", "p4th-secret"} {
				if strings.Contains(head.String(), secret) {
					t.Errorf("the dump shows the secret %q:\n%s", secret, got)
				}
			}
			for _, want := range []string{
				"* attempt 1 of POST " + srv.URL + "/echo/REDACTED",
				"> POST " + srv.URL + "/echo/REDACTED",
				"> X-Custom-Credential: REDACTED",
				"> Cookie: REDACTED",
				"> X-Trace: t-1",
				`> {"username":"ada"}`,
				"< 200 OK",
				"< Content-Type: application/json",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("the dump lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

func TestDumpCutsBodiesAndErrors(t *testing.T) {
	t.Parallel()
	fs := kittest.NewFaultServer(t, nil)
	fs.Script(503)
	var out syncBuffer
	c := newClient(t, fs.URL(), kit.WithRetry(rtFastRetry(2)))
	big := kit.Get[struct{ Bytes int }, string]("/big")
	if _, err := big.Call(t.Context(), c, struct{ Bytes int }{100}, kit.WithDump(&out, 10)); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"* attempt 1 of GET", "< 503 Service Unavailable", "* attempt 2 of GET", "< 200 OK", `< "aaaaaaaaa`, "< (cut at 10 bytes)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the dump lacks %q:\n%s", want, got)
		}
	}
	// No body at 0, and a connection error is dumped as such.
	out2 := &syncBuffer{}
	fs.Script(kittest.FaultRefuse)
	_, err := big.Call(t.Context(), c, struct{ Bytes int }{100}, kit.WithDump(out2, 0), kit.NoRetry())
	if err == nil {
		t.Fatal("no error from a refused connection")
	}
	if got := out2.String(); !strings.Contains(got, "< error: ") || strings.Contains(got, "aaaa") {
		t.Errorf("dump after a refused connection:\n%s", got)
	}
}

func TestDumpLogger(t *testing.T) {
	t.Parallel()
	srv := serve(t, kittest.NewAPI())
	var buf syncBuffer
	l := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := newClient(t, srv.URL, kit.WithAuth(kit.Bearer("tok-123")))
	if _, err := ltGetUser.Call(t.Context(), c, struct{ ID int }{2}, kit.WithDumpLogger(l, 64)); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if strings.Contains(got, "tok-123") {
		t.Errorf("the record shows the token:\n%s", got)
	}
	for _, want := range []string{`"msg":"kit: attempt"`, `"level":"DEBUG"`, `"status":200`, `"attempt":1`, `Authorization: REDACTED`} {
		if !strings.Contains(got, want) {
			t.Errorf("the record lacks %s:\n%s", want, got)
		}
	}
	// A logger above Debug: nothing is built or written.
	var quiet syncBuffer
	ql := slog.New(slog.NewJSONHandler(&quiet, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if _, err := ltGetUser.Call(t.Context(), c, struct{ ID int }{2}, kit.WithDumpLogger(ql, 64)); err != nil {
		t.Fatal(err)
	}
	if quiet.String() != "" {
		t.Errorf("an Info logger got %q", quiet.String())
	}
}

func TestDumpOptionErrors(t *testing.T) {
	t.Parallel()
	for _, o := range []kit.RequestOption{kit.WithDump(nil, 1), kit.WithDumpLogger(nil, 1), kit.WithDump(&bytes.Buffer{}, -1)} {
		if _, err := kit.NewClient("http://127.0.0.1:1", o); err == nil {
			t.Errorf("NewClient(%v) = nil error", o)
		}
	}
}

func TestDumpStreamShowsHeadersOnly(t *testing.T) {
	t.Parallel()
	srv := serve(t, kittest.NewAPI())
	var out syncBuffer
	c := newClient(t, srv.URL, kit.WithDump(&out, 1<<10))
	s, err := ltEvents.Call(context.Background(), c, ltEventsParams{Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	for range s.All() {
	}
	got := out.String()
	if !strings.Contains(got, "< Content-Type: text/event-stream") || !strings.Contains(got, "(streamed body: read by the caller)") || strings.Contains(got, "event 1") {
		t.Errorf("stream dump:\n%s", got)
	}
}

var _ = http.MethodGet
