package kitwebhook_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit/internal/leakcheck"
	"github.com/kithttp/kit/kitwebhook"
)

type userCreated struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Data struct {
		Name string `json:"name"`
	} `json:"data"`
}

type invoicePaid struct {
	Type string `json:"type"`
	Data struct {
		Amount int `json:"amount"`
	} `json:"data"`
}

// receiver is a loopback server around a Handler, and a sender for it.
type receiver struct {
	t      *testing.T
	scheme kitwebhook.Scheme
	srv    *httptest.Server
	h      *kitwebhook.Handler
}

func newReceiver(t *testing.T, opts ...kitwebhook.Option) *receiver {
	t.Helper()
	s, err := kitwebhook.StandardWebhooks(secretA)
	if err != nil {
		t.Fatal(err)
	}
	h, err := kitwebhook.NewHandler(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /hooks", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &receiver{t: t, scheme: s, srv: srv, h: h}
}

// send signs body with id now and posts it; tamper may change the request.
func (r *receiver) send(id string, body []byte, tamper func(*http.Request)) (int, string) {
	r.t.Helper()
	req, err := http.NewRequest(http.MethodPost, r.srv.URL+"/hooks", bytes.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.scheme.Sign(req.Header, body, kitwebhook.Meta{ID: id, Time: time.Now()}); err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if tamper != nil {
		tamper(req)
	}
	resp, err := r.srv.Client().Do(req)
	if err != nil {
		r.t.Fatal(err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(text))
}

func TestHandlerRoutesByEventType(t *testing.T) {
	leakcheck.Check(t)
	r := newReceiver(t)
	var mu sync.Mutex
	var got []string
	kitwebhook.Handle(r.h, "user.created", func(ctx context.Context, d *kitwebhook.Delivery[userCreated]) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprintf("%s %s %s", d.ID, d.Event, d.Payload.Data.Name))
		return nil
	})
	kitwebhook.Handle(r.h, "invoice.paid", func(ctx context.Context, d *kitwebhook.Delivery[invoicePaid]) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprintf("%s %s %d", d.ID, d.Event, d.Payload.Data.Amount))
		return nil
	})
	if code, _ := r.send("msg_1", testBody, nil); code != http.StatusNoContent {
		t.Fatalf("user.created: %d", code)
	}
	if code, _ := r.send("msg_2", []byte(`{"type":"invoice.paid","data":{"amount":4200}}`), nil); code != http.StatusNoContent {
		t.Fatalf("invoice.paid: %d", code)
	}
	if code, text := r.send("msg_3", []byte(`{"type":"team.deleted"}`), nil); code != http.StatusOK || !strings.Contains(text, "acknowledged") {
		t.Fatalf("an event without a function: %d %q", code, text)
	}
	want := []string{"msg_1 user.created Ada", "msg_2 invoice.paid 4200"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestHandlerAnswers(t *testing.T) {
	leakcheck.Check(t)
	r := newReceiver(t, kitwebhook.WithMaxBodySize(1<<10), kitwebhook.WithTimeout(200*time.Millisecond))
	kitwebhook.Handle(r.h, "", func(ctx context.Context, d *kitwebhook.Delivery[map[string]any]) error {
		switch d.Payload["type"] {
		case "fail":
			return errors.New("database down")
		case "panic":
			panic("boom")
		case "slow":
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	cases := []struct {
		name   string
		body   string
		tamper func(*http.Request)
		code   int
	}{
		{"ok", `{"type":"x"}`, nil, 204},
		{"handler error", `{"type":"fail"}`, nil, 500},
		{"handler panic", `{"type":"panic"}`, nil, 500},
		{"handler out of time", `{"type":"slow"}`, nil, 503},
		{"not JSON", `{"type":`, nil, 400},
		{"not the type", `["a"]`, nil, 400},
		{"bad signature", `{"type":"x"}`, func(r *http.Request) { r.Header.Set("Webhook-Signature", "v1,"+strings.Repeat("A", 43)+"=") }, 401},
		{"no signature", `{"type":"x"}`, func(r *http.Request) { r.Header.Del("Webhook-Signature") }, 401},
		{"old", `{"type":"x"}`, func(r *http.Request) { r.Header.Set("Webhook-Timestamp", "1000000000") }, 401},
		{"malformed timestamp", `{"type":"x"}`, func(r *http.Request) { r.Header.Set("Webhook-Timestamp", "soon") }, 400},
		{"repeated signature", `{"type":"x"}`, func(r *http.Request) { r.Header.Add("Webhook-Signature", r.Header.Get("Webhook-Signature")) }, 400},
		{"too large", `{"type":"x","pad":"` + strings.Repeat("x", 2<<10) + `"}`, nil, 413},
		{"PUT", `{"type":"x"}`, func(r *http.Request) { r.Method = http.MethodPut }, 405},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, text := r.send(fmt.Sprintf("msg_%d", i), []byte(c.body), c.tamper)
			if code != c.code {
				t.Fatalf("status %d (%q), want %d", code, text, c.code)
			}
			checkNoSecret(t, errors.New(text), nil)
		})
	}
}

// TestHandlerTooLargeIsNotRead: a 100 MiB body is refused after reading
// about the limit, not all of it.
func TestHandlerTooLargeIsNotRead(t *testing.T) {
	leakcheck.Check(t)
	r := newReceiver(t)
	kitwebhook.Handle(r.h, "", func(context.Context, *kitwebhook.Delivery[map[string]any]) error { return nil })
	var read atomic.Int64
	body := &countingReader{n: 100 << 20, read: &read}
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/hooks", body)
	req.ContentLength = -1 // chunked: the server cannot refuse it by its length
	r.scheme.Sign(req.Header, nil, kitwebhook.Meta{ID: "big", Time: time.Now()})
	resp, err := r.srv.Client().Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	// The client may see its write fail once the server answered and
	// closed; either way the server stopped reading early.
	if n := read.Load(); n > 64<<20 {
		t.Fatalf("the client wrote %d bytes before the server refused", n)
	}
}

type countingReader struct {
	n    int64
	read *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > c.n {
		p = p[:c.n]
	}
	for i := range p {
		p[i] = 'x'
	}
	c.n -= int64(len(p))
	c.read.Add(int64(len(p)))
	return len(p), nil
}

// TestHandlerDeduplicates: a delivery sent twice, and sent by many
// goroutines at once, is handled once; a failed one is handled again when
// the sender retries.
func TestHandlerDeduplicates(t *testing.T) {
	leakcheck.Check(t)
	r := newReceiver(t)
	var calls atomic.Int32
	var fail atomic.Bool
	kitwebhook.Handle(r.h, "", func(ctx context.Context, d *kitwebhook.Delivery[map[string]any]) error {
		calls.Add(1)
		if fail.Load() {
			return errors.New("try later")
		}
		return nil
	})
	if code, _ := r.send("msg_dup", testBody, nil); code != 204 {
		t.Fatalf("first: %d", code)
	}
	if code, text := r.send("msg_dup", testBody, nil); code != 200 || !strings.Contains(text, "duplicate") {
		t.Fatalf("replay: %d %q", code, text)
	}
	var wg sync.WaitGroup
	codes := make(chan int, 20)
	for range 20 {
		wg.Go(func() {
			code, _ := r.send("msg_storm", testBody, nil)
			codes <- code
		})
	}
	wg.Wait()
	close(codes)
	handled := 0
	for c := range codes {
		if c == 204 {
			handled++
		}
	}
	if handled != 1 || calls.Load() != 2 {
		t.Fatalf("20 concurrent copies: %d handled, %d calls", handled, calls.Load())
	}
	fail.Store(true)
	if code, _ := r.send("msg_retry", testBody, nil); code != 500 {
		t.Fatalf("failing: %d", code)
	}
	fail.Store(false)
	if code, _ := r.send("msg_retry", testBody, nil); code != 204 {
		t.Fatalf("the sender's retry after a failure: %d", code)
	}
}

// TestHandlerReorderedDeliveries: deliveries arriving out of order are
// each handled once, whatever the order.
func TestHandlerReorderedDeliveries(t *testing.T) {
	r := newReceiver(t)
	seen := map[string]int{}
	var mu sync.Mutex
	kitwebhook.Handle(r.h, "", func(ctx context.Context, d *kitwebhook.Delivery[map[string]any]) error {
		mu.Lock()
		seen[d.ID]++
		mu.Unlock()
		return nil
	})
	for _, id := range []string{"m3", "m1", "m2", "m1", "m3", "m2"} {
		r.send(id, testBody, nil)
	}
	if len(seen) != 3 || seen["m1"] != 1 || seen["m2"] != 1 || seen["m3"] != 1 {
		t.Fatalf("handled %v", seen)
	}
}

func TestHandlerObserver(t *testing.T) {
	var mu sync.Mutex
	var results []kitwebhook.DeliveryResult
	type key struct{}
	r := newReceiver(t, kitwebhook.WithObserver(kitwebhook.Observer{
		DeliveryStart: func(ctx context.Context, d kitwebhook.DeliveryInfo) context.Context {
			return context.WithValue(ctx, key{}, d.Scheme)
		},
		DeliveryEnd: func(ctx context.Context, res kitwebhook.DeliveryResult) {
			if ctx.Value(key{}) != "Standard Webhooks" {
				t.Errorf("DeliveryEnd without DeliveryStart's context")
			}
			mu.Lock()
			results = append(results, res)
			mu.Unlock()
		},
	}))
	var fnCtx atomic.Bool
	kitwebhook.Handle(r.h, "user.created", func(ctx context.Context, d *kitwebhook.Delivery[userCreated]) error {
		fnCtx.Store(ctx.Value(key{}) != nil)
		return nil
	})
	r.send("o1", testBody, nil)
	r.send("o1", testBody, nil)
	r.send("o2", testBody, func(r *http.Request) { r.Header.Set("Webhook-Signature", "v1,AAAA") })
	r.send("o3", []byte(`{"type":"other"}`), nil)
	want := []string{"o1 user.created 204 handled", "o1 user.created 200 duplicate", "  401 rejected", "o3 other 200 ignored"}
	var got []string
	for _, res := range results {
		got = append(got, fmt.Sprintf("%s %s %d %s", res.ID, res.Event, res.Status, res.Outcome))
		if (res.Outcome == kitwebhook.Rejected) != (res.Err != nil) {
			t.Errorf("%s: Err %v", res.Outcome, res.Err)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if !fnCtx.Load() {
		t.Error("the function did not get DeliveryStart's context")
	}
}

func TestHandlerIDFromBody(t *testing.T) {
	s, _ := kitwebhook.Stripe(rawA)
	h, err := kitwebhook.NewHandler(s, kitwebhook.WithIDKey("id"))
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	kitwebhook.Handle(h, "user.created", func(ctx context.Context, d *kitwebhook.Delivery[userCreated]) error {
		if d.ID != "evt_1" {
			t.Errorf("ID %q", d.ID)
		}
		calls.Add(1)
		return nil
	})
	for range 2 {
		req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(testBody))
		s.Sign(req.Header, testBody, kitwebhook.Meta{Time: time.Now()})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d calls for one event id sent twice", calls.Load())
	}
}

func TestUnwrap(t *testing.T) {
	s, _ := kitwebhook.GitHub(rawA)
	body := []byte(`{"action":"opened","number":7}`)
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	s.Sign(req.Header, body, kitwebhook.Meta{ID: "d-1"})
	req.Header.Set("X-GitHub-Event", "pull_request")
	type pr struct {
		Action string
		Number int
	}
	d, err := kitwebhook.Unwrap[pr](req, s, kitwebhook.WithEventHeader("X-GitHub-Event"))
	if err != nil {
		t.Fatal(err)
	}
	if d.ID != "d-1" || d.Event != "pull_request" || d.Payload.Number != 7 || d.Payload.Action != "opened" {
		t.Fatalf("%+v", d)
	}
	req = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"action":"closed","number":7}`))
	s.Sign(req.Header, body, kitwebhook.Meta{ID: "d-1"})
	if _, err := kitwebhook.Unwrap[pr](req, s); !errors.Is(err, kitwebhook.ErrSignature) {
		t.Fatalf("a tampered body: %v", err)
	}
}

func TestOptionsRefuseBadValues(t *testing.T) {
	s, _ := kitwebhook.GitHub(rawA)
	for _, o := range []kitwebhook.Option{
		kitwebhook.WithMaxBodySize(0), kitwebhook.WithTimeout(-1), kitwebhook.WithIDKey(""),
		kitwebhook.WithEventKey("a..b"), kitwebhook.WithEventHeader(""), kitwebhook.WithNow(nil),
	} {
		if _, err := kitwebhook.NewHandler(s, o); err == nil {
			t.Errorf("no error")
		}
	}
	if _, err := kitwebhook.NewHandler(s, kitwebhook.WithIDKey("data"), kitwebhook.WithEventKey("data.type")); err == nil {
		t.Error("overlapping keys: no error")
	}
	if _, err := kitwebhook.NewHandler(nil); err == nil {
		t.Error("nil scheme: no error")
	}
}
