package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/kithttp/kit"
)

// rtLogBuffer is a goroutine-safe buffer for a slog JSON handler.
type rtLogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *rtLogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *rtLogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *rtLogBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		recs = append(recs, m)
	}
	return recs
}

func rtLogger() (*slog.Logger, *rtLogBuffer) {
	b := &rtLogBuffer{}
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

type rtKeyed struct {
	APIKey string `kit:"api_key"`
	Page   int    `kit:"page"`
}

var rtGetKeyed = kit.Get[rtKeyed, rtItem]("/item")

func TestLoggerOneRecordPerAttempt(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 503, 429)
	log, buf := rtLogger()
	c := newClient(t, s.URL, kit.WithAuth(kit.Bearer("tok-SECRET")), kit.WithLogger(log), kit.WithRetry(rtFastRetry(4)))
	if _, err := rtGetKeyed.Call(t.Context(), c, rtKeyed{APIKey: "key-SECRET", Page: 2}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "tok-SECRET") || strings.Contains(out, "key-SECRET") || strings.Contains(out, "Authorization") {
		t.Errorf("log leaks a credential:\n%s", out)
	}
	recs := buf.records(t)
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3:\n%s", len(recs), out)
	}
	wantStatus := []float64{503, 429, 200}
	wantLevel := []string{"WARN", "WARN", "INFO"}
	for i, r := range recs {
		if r["msg"] != "kit request" || r["method"] != "GET" || r["level"] != wantLevel[i] ||
			r["status"] != wantStatus[i] || r["attempt"] != float64(i+1) {
			t.Errorf("record %d = %v", i, r)
		}
		if _, ok := r["duration"].(float64); !ok {
			t.Errorf("record %d has no duration: %v", i, r)
		}
		u, _ := r["url"].(string)
		if !strings.HasPrefix(u, s.URL+"/item?") || !strings.Contains(u, "api_key=REDACTED") || !strings.Contains(u, "page=2") {
			t.Errorf("record %d url = %q", i, u)
		}
		if _, ok := r["error"]; ok {
			t.Errorf("record %d has an error for a status: %v", i, r)
		}
	}
}

func TestLoggerConnectionError(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	log, buf := rtLogger()
	c := newClient(t, "http://"+addr, kit.WithAuth(kit.Bearer("tok-SECRET")), kit.WithLogger(log), kit.WithRetry(rtFastRetry(2)))
	if _, err := rtGet.Call(t.Context(), c, kit.NoParams{}); err == nil {
		t.Fatal("want an error")
	}
	recs := buf.records(t)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2:\n%s", len(recs), buf.String())
	}
	for i, r := range recs {
		e, _ := r["error"].(string)
		if r["level"] != "WARN" || !strings.Contains(e, "refused") || r["attempt"] != float64(i+1) {
			t.Errorf("record %d = %v", i, r)
		}
		if _, ok := r["status"]; ok {
			t.Errorf("record %d has a status without a response: %v", i, r)
		}
	}
	if strings.Contains(buf.String(), "tok-SECRET") {
		t.Errorf("log leaks the token:\n%s", buf.String())
	}
}

func TestLoggerResourcesAndRefresh(t *testing.T) {
	t.Parallel()
	s := newRTServer(t, 401, 404)
	log, buf := rtLogger()
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) { return kit.Token{Value: "tok-SECRET"}, nil })
	c := newClient(t, s.URL, kit.WithAuth(auth), kit.WithLogger(log))
	res := kit.NewResource[rtItem](c, "/items")
	_, err := res.Get(t.Context(), 1)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Fatalf("err = %v, want the 404", err)
	}
	recs := buf.records(t)
	if len(recs) != 2 || recs[0]["status"] != float64(401) || recs[1]["status"] != float64(404) ||
		recs[0]["attempt"] != float64(1) || recs[1]["attempt"] != float64(1) {
		t.Errorf("records = %v, want the 401 and the resent request's 404, both attempt 1", recs)
	}
	if strings.Contains(buf.String(), "tok-SECRET") {
		t.Errorf("log leaks the token:\n%s", buf.String())
	}
}

func TestLoggerNilAndLevels(t *testing.T) {
	t.Parallel()
	s := newRTServer(t)
	c := newClient(t, s.URL, kit.WithLogger(nil))
	if _, err := rtGet.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	// A logger at Warn drops the Info record of a success.
	buf := &rtLogBuffer{}
	log := slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c2 := newClient(t, s.URL, kit.WithLogger(log))
	if _, err := rtGet.Call(t.Context(), c2, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "" {
		t.Errorf("Warn logger got %q", buf.String())
	}
}
