package kitotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitotel"
	"github.com/kithttp/kit/kittest"
)

type user struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

type creds struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

var (
	getUser = kit.Get[struct{ ID int }, user]("/users/{id}")
	getMe   = kit.Get[kit.NoParams, user]("/me")
	events  = kit.Get[struct{ Count int }, *kit.Stream[kittest.Event]]("/events")
	login   = kit.Post[struct{ Body creds }, struct {
		AccessToken string `json:"access_token"`
	}]("/login", kit.NoAuth())
)

// rig is a loopback API behind a fault server, a tracer provider with an
// in-memory exporter, a meter provider with a manual reader, and the
// traceparent headers the server received.
type rig struct {
	t        *testing.T
	api      *kittest.API
	faults   *kittest.FaultServer
	exporter *tracetest.InMemoryExporter
	tp       *sdktrace.TracerProvider
	reader   *sdkmetric.ManualReader
	mp       *sdkmetric.MeterProvider

	mu      sync.Mutex
	parents []string // traceparent of each request the API received
}

func newRig(t *testing.T, opts ...kittest.APIOption) *rig {
	t.Helper()
	r := &rig{t: t, api: kittest.NewAPI(opts...), exporter: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.exporter))
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	t.Cleanup(func() {
		r.tp.Shutdown(context.Background())
		r.mp.Shutdown(context.Background())
	})
	r.faults = kittest.NewFaultServer(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.parents = append(r.parents, req.Header.Get("Traceparent"))
		r.mu.Unlock()
		r.api.ServeHTTP(w, req)
	}))
	r.faults.SetRetryAfter("0")
	return r
}

// instrument is kitotel's option on the rig's providers, with W3C trace
// context.
func (r *rig) instrument() kit.Option {
	return kitotel.Instrument(kitotel.WithTracerProvider(r.tp), kitotel.WithMeterProvider(r.mp),
		kitotel.WithPropagators(propagation.TraceContext{}))
}

// binding is a sync or async client of the rig's server with kitotel and
// opts.
func (r *rig) binding(async bool, opts ...kit.Option) kit.Binding {
	r.t.Helper()
	opts = append([]kit.Option{r.instrument()}, opts...)
	if async {
		ac, err := kit.NewAsyncClient(r.faults.URL(), opts...)
		if err != nil {
			r.t.Fatal(err)
		}
		r.t.Cleanup(func() { ac.Close(context.Background()) })
		return ac
	}
	c, err := kit.NewClient(r.faults.URL(), opts...)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

func call[P, R any](ctx context.Context, async bool, ep *kit.Endpoint[P, R], b kit.Binding, p P) (R, error) {
	if async {
		return ep.Go(ctx, b, p).Await(ctx)
	}
	return ep.Call(ctx, b, p)
}

func (r *rig) spans() tracetest.SpanStubs { return r.exporter.GetSpans() }

// metrics collects the rig's metrics by name.
func (r *rig) metrics() map[string]metricdata.Metrics {
	r.t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		r.t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != kitotel.ScopeName {
			r.t.Errorf("scope %q", sm.Scope.Name)
		}
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// counter returns the counter's points as "attrs=value" lines, sorted.
func (r *rig) counter(name string) []string {
	r.t.Helper()
	m, ok := r.metrics()[name]
	if !ok {
		return nil
	}
	sum, ok := m.Data.(metricdata.Sum[int64])
	if !ok || !sum.IsMonotonic {
		r.t.Fatalf("%s is %T, not a monotonic int64 sum", name, m.Data)
	}
	var lines []string
	for _, p := range sum.DataPoints {
		lines = append(lines, attrText(p.Attributes.ToSlice())+"="+strconv.FormatInt(p.Value, 10))
	}
	slices.Sort(lines)
	return lines
}

func attrText(kvs []attribute.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		parts = append(parts, string(kv.Key)+":"+kv.Value.String())
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

func attrs(s tracetest.SpanStub) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value.String()
	}
	return m
}

func eventText(s tracetest.SpanStub) []string {
	var out []string
	for _, e := range s.Events {
		var parts []string
		for _, kv := range e.Attributes {
			if kv.Key == "kit.retry.wait" || kv.Key == "kit.token.duration" {
				continue // timing
			}
			parts = append(parts, string(kv.Key)+":"+kv.Value.String())
		}
		slices.Sort(parts)
		out = append(out, e.Name+" "+strings.Join(parts, " "))
	}
	return out
}

func want[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

var modes = []struct {
	name  string
	async bool
}{{"sync", false}, {"async", true}}

// A call is one client span named by its declaration, with the HTTP
// client conventions, child of the caller's span; its trace context
// reaches the server.
func TestCallSpan(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			b := r.binding(m.async)
			ctx, parent := r.tp.Tracer("test").Start(t.Context(), "caller")
			u, err := call(ctx, m.async, getUser, b, struct{ ID int }{2})
			parent.End()
			if err != nil || u.Name != "Alan Turing" {
				t.Fatalf("%+v, %v", u, err)
			}
			spans := r.spans()
			if len(spans) != 2 {
				t.Fatalf("%d spans, want 2", len(spans))
			}
			s := spans[0]
			want(t, "name", s.Name, "GET /users/{id}")
			want(t, "kind", s.SpanKind, trace.SpanKindClient)
			want(t, "parent", s.Parent.SpanID(), parent.SpanContext().SpanID())
			want(t, "trace", s.SpanContext.TraceID(), parent.SpanContext().TraceID())
			want(t, "status", s.Status.Code, codes.Unset)
			u0, _ := url.Parse(r.faults.URL())
			a := attrs(s)
			for k, v := range map[string]string{
				"http.request.method":       "GET",
				"url.template":              "/users/{id}",
				"url.full":                  r.faults.URL() + "/users/2",
				"server.address":            "127.0.0.1",
				"server.port":               u0.Port(),
				"http.response.status_code": "200",
			} {
				want(t, k, a[k], v)
			}
			for _, k := range []string{"error.type", "http.request.resend_count"} {
				if _, ok := a[k]; ok {
					t.Errorf("%s set on a call that succeeded at once", k)
				}
			}
			want(t, "traceparent", r.parents[0], "00-"+s.SpanContext.TraceID().String()+"-"+s.SpanContext.SpanID().String()+"-01")
			want(t, "scope", s.InstrumentationScope.Name, kitotel.ScopeName)
			want(t, "scope version", s.InstrumentationScope.Version, kit.Version)
		})
	}
}

// A retried call: one span, an event per retry, the resend count, the
// same traceparent on every attempt, and kit.client.retries.
func TestRetries(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			var mu sync.Mutex
			var sent []string // the traceparent of each attempt
			b := r.binding(m.async, kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}),
				kit.WithAttemptInterceptors(func(next kit.Sender) kit.Sender {
					return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
						mu.Lock()
						sent = append(sent, req.Header.Get("Traceparent"))
						mu.Unlock()
						return next(ctx, req)
					}
				}))
			r.faults.Script(503, kittest.FaultRefuse)
			if _, err := call(t.Context(), m.async, getUser, b, struct{ ID int }{1}); err != nil {
				t.Fatal(err)
			}
			spans := r.spans()
			if len(spans) != 1 {
				t.Fatalf("%d spans, want 1", len(spans))
			}
			s := spans[0]
			want(t, "resend count", attrs(s)["http.request.resend_count"], "2")
			want(t, "status", attrs(s)["http.response.status_code"], "200")
			if got := eventText(s); !slices.Equal(got, []string{
				"retry error.type:503 kit.retry.attempt:1",
				"retry error.type:connection_error kit.retry.attempt:2",
			}) {
				t.Errorf("events %q", got)
			}
			tp := "00-" + s.SpanContext.TraceID().String() + "-" + s.SpanContext.SpanID().String() + "-01"
			if !slices.Equal(sent, []string{tp, tp, tp}) {
				t.Errorf("traceparents %q, want %q thrice", sent, tp)
			}
			if got := r.counter("kit.client.retries"); !slices.Equal(got, []string{"http.request.method:GET url.template:/users/{id}=2"}) {
				t.Errorf("kit.client.retries %q", got)
			}
		})
	}
}

// A failed call: error.type is the status, the span's status an error
// without the error's text.
func TestErrorStatus(t *testing.T) {
	r := newRig(t)
	b := r.binding(false)
	if _, err := getUser.Call(t.Context(), b, struct{ ID int }{999}); err == nil {
		t.Fatal("no error for an unknown user")
	}
	s := r.spans()[0]
	want(t, "error.type", attrs(s)["error.type"], "404")
	want(t, "status code", attrs(s)["http.response.status_code"], "404")
	want(t, "status", s.Status, sdktrace.Status{Code: codes.Error, Description: "404"})

	// A connection error: no status, a class of error.
	r.faults.Script(kittest.FaultRefuse)
	if _, err := getUser.Call(t.Context(), b, struct{ ID int }{1}); err == nil {
		t.Fatal("no error for a refused connection")
	}
	s = r.spans()[1]
	want(t, "error.type", attrs(s)["error.type"], "connection_error")
	if _, ok := attrs(s)["http.response.status_code"]; ok {
		t.Error("a status code without a response")
	}

	// A 200 whose body is not JSON: the call fails after its response.
	r.faults.Script(kittest.FaultMalformed)
	if _, err := getUser.Call(t.Context(), b, struct{ ID int }{1}); err == nil {
		t.Fatal("no error for a malformed body")
	}
	s = r.spans()[2]
	want(t, "error.type", attrs(s)["error.type"], "decode_error")
	want(t, "status code", attrs(s)["http.response.status_code"], "200")
	want(t, "status", s.Status.Code, codes.Error)
}

// The first token and the refresh after a 401 are events of the calls'
// spans and count in kit.client.token.renewals.
func TestTokenRenewals(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			lc, err := kit.NewClient(r.faults.URL()) // the login's own client, not traced
			if err != nil {
				t.Fatal(err)
			}
			defer lc.Close()
			auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
				res, err := login.Call(ctx, lc, struct{ Body creds }{creds{"demo", "s3cret"}})
				return kit.Token{Value: res.AccessToken}, err
			})
			b := r.binding(m.async, kit.WithAuth(auth))
			if _, err := call(t.Context(), m.async, getMe, b, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			r.api.ExpireTokens()
			if _, err := call(t.Context(), m.async, getMe, b, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			spans := r.spans()
			if len(spans) != 2 {
				t.Fatalf("%d spans, want 2", len(spans))
			}
			if got := eventText(spans[0]); !slices.Equal(got, []string{"token renewal kit.token.after_401:false"}) {
				t.Errorf("first call's events %q", got)
			}
			if got := eventText(spans[1]); !slices.Equal(got, []string{"token renewal kit.token.after_401:true"}) {
				t.Errorf("second call's events %q", got)
			}
			if got := r.counter("kit.client.token.renewals"); !slices.Equal(got, []string{"kit.token.after_401:false=1", "kit.token.after_401:true=1"}) {
				t.Errorf("kit.client.token.renewals %q", got)
			}
		})
	}
}

// A walk is one span with a child span per page, and counts its pages.
func TestWalk(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t, kittest.WithUsers(5))
			b := r.binding(m.async)
			ctx, parent := r.tp.Tracer("test").Start(t.Context(), "caller")
			var all func(context.Context, ...kit.CallOption) iter.Seq2[user, error]
			if m.async {
				all = kit.NewAsyncResource[user](b, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 2})).All
			} else {
				all = kit.NewResource[user](b, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 2})).All
			}
			n := 0
			for _, err := range all(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			parent.End()
			want(t, "users", n, 5)
			spans := r.spans()
			var walk tracetest.SpanStub
			var pages []tracetest.SpanStub
			for _, s := range spans {
				switch s.Name {
				case "walk GET /users":
					walk = s
				case "GET /users":
					pages = append(pages, s)
				}
			}
			want(t, "walk parent", walk.Parent.SpanID(), parent.SpanContext().SpanID())
			want(t, "walk kind", walk.SpanKind, trace.SpanKindInternal)
			want(t, "kit.walk.pages", attrs(walk)["kit.walk.pages"], "3")
			want(t, "url.template", attrs(walk)["url.template"], "/users")
			if got := eventText(walk); !slices.Equal(got, []string{
				"page kit.page.number:1 kit.page.records:2",
				"page kit.page.number:2 kit.page.records:2",
				"page kit.page.number:3 kit.page.records:1",
			}) {
				t.Errorf("walk events %q", got)
			}
			want(t, "page spans", len(pages), 3)
			for _, p := range pages {
				want(t, "page parent", p.Parent.SpanID(), walk.SpanContext.SpanID())
				want(t, "page kind", p.SpanKind, trace.SpanKindClient)
			}
			if got := r.counter("kit.client.pages"); !slices.Equal(got, []string{"http.request.method:GET url.template:/users=3"}) {
				t.Errorf("kit.client.pages %q", got)
			}
		})
	}
}

// A stream's span ends at Close, or after its last record.
func TestStream(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			b := r.binding(m.async)
			s, err := call(t.Context(), m.async, events, b, struct{ Count int }{3})
			if err != nil {
				t.Fatal(err)
			}
			want(t, "spans before reading", len(r.spans()), 0)
			n := 0
			for _, err := range s.All() {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			want(t, "records", n, 3)
			spans := r.spans()
			if len(spans) != 1 {
				t.Fatalf("%d spans after the last record, want 1", len(spans))
			}
			want(t, "kit.stream.records", attrs(spans[0])["kit.stream.records"], "3")
			want(t, "name", spans[0].Name, "GET /events")

			s, err = call(t.Context(), m.async, events, b, struct{ Count int }{100})
			if err != nil {
				t.Fatal(err)
			}
			for range s.All() {
				break
			}
			want(t, "spans after the range, before Close", len(r.spans()), 2) // a range closes its stream
			s.Close()
			want(t, "spans after Close", len(r.spans()), 2)
			want(t, "kit.stream.records", attrs(r.spans()[1])["kit.stream.records"], "1")
		})
	}
}

// A stream whose context ends: its span says so.
func TestStreamContextEnds(t *testing.T) {
	r := newRig(t)
	b := r.binding(false)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := events.Call(ctx, b, struct{ Count int }{1000})
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for _, err := range s.All() {
		if err != nil {
			last = err
			break
		}
		cancel()
	}
	if last == nil {
		t.Fatal("no error after the context ended")
	}
	spans := r.spans()
	if len(spans) != 1 {
		t.Fatalf("%d spans", len(spans))
	}
	want(t, "error.type", attrs(spans[0])["error.type"], "canceled")
	want(t, "status", spans[0].Status.Code, codes.Error)
}

// No secret of the path, the query, a header or the credentials reaches a
// span name, an attribute, an event or a metric.
func TestNoSecrets(t *testing.T) {
	const secret = "sk_live_TOPSECRET"
	type hookParams struct {
		Token  string
		ID     int
		APIKey string `kit:"api_key,query"`
		Sig    string `kit:"sig,query"`
		Auth   string `kit:"X-Api-Token,header"`
	}
	hook := kit.Get[hookParams, *kit.Response]("/echo/{token}/{id}")
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			var logs bytes.Buffer
			b := r.binding(m.async, kit.WithAuth(kit.Bearer(secret+"-bearer")), kit.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))),
				kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
			r.faults.Script(503)
			if _, err := call(t.Context(), m.async, hook, b, hookParams{secret, 7, secret, secret, secret}); err != nil {
				t.Fatal(err)
			}
			spans := r.spans()
			if len(spans) != 1 {
				t.Fatalf("%d spans", len(spans))
			}
			raw, err := json.Marshal(spans)
			if err != nil {
				t.Fatal(err)
			}
			var rm metricdata.ResourceMetrics
			r.reader.Collect(context.Background(), &rm)
			mraw, _ := json.Marshal(rm)
			for what, text := range map[string]string{"spans": string(raw), "metrics": string(mraw)} {
				if strings.Contains(text, "TOPSECRET") {
					t.Errorf("a secret in the %s: %s", what, text)
				}
			}
			// kit's log records redact the URL as url.full does; the
			// headers and credentials never appear.
			if strings.Contains(logs.String(), "TOPSECRET") || !strings.Contains(logs.String(), "/echo/REDACTED/7?") ||
				!strings.Contains(logs.String(), `"trace_id"`) {
				t.Errorf("logs: %s", logs.String())
			}
			want(t, "name", spans[0].Name, "GET /echo/{token}/{id}")
			want(t, "url.full", attrs(spans[0])["url.full"], r.faults.URL()+"/echo/REDACTED/7?api_key=REDACTED&sig=REDACTED")
		})
	}
}

// A {name...} secret is redacted in every segment it fills, in url.full
// and in the logs.
func TestNoSecretsMultiSegment(t *testing.T) {
	type dlParams struct{ Token string }
	dl := kit.Get[dlParams, *kit.Response]("/echo/{token...}/raw")
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			var logs bytes.Buffer
			b := r.binding(m.async, kit.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
			if _, err := call(t.Context(), m.async, dl, b, dlParams{"SEGONE/SEGTWO/SEGTHREE"}); err != nil {
				t.Fatal(err)
			}
			spans := r.spans()
			if len(spans) != 1 {
				t.Fatalf("%d spans", len(spans))
			}
			raw, err := json.Marshal(spans)
			if err != nil {
				t.Fatal(err)
			}
			for what, text := range map[string]string{"spans": string(raw), "logs": logs.String()} {
				if strings.Contains(text, "SEGONE") || strings.Contains(text, "SEGTWO") || strings.Contains(text, "SEGTHREE") {
					t.Errorf("a secret in the %s: %s", what, text)
				}
			}
			want(t, "url.full", attrs(spans[0])["url.full"], r.faults.URL()+"/echo/REDACTED/raw")
		})
	}
}

// kit's log records carry the trace and span IDs of the call's span.
func TestLogsCarryTraceContext(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			var logs bytes.Buffer
			b := r.binding(m.async, kit.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
			if _, err := call(t.Context(), m.async, getUser, b, struct{ ID int }{1}); err != nil {
				t.Fatal(err)
			}
			var rec map[string]any
			if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
				t.Fatalf("%v: %s", err, logs.String())
			}
			sc := r.spans()[0].SpanContext
			want(t, "trace_id", rec["trace_id"], any(sc.TraceID().String()))
			want(t, "span_id", rec["span_id"], any(sc.SpanID().String()))
		})
	}
}

// http.client.request.duration: a histogram in seconds, one series per
// declaration and outcome.
func TestDurationMetric(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) { testDurationMetric(t, m.async) })
	}
}

func testDurationMetric(t *testing.T, async bool) {
	r := newRig(t)
	b := r.binding(async)
	for _, id := range []int{1, 2, 3, 999} {
		call(t.Context(), async, getUser, b, struct{ ID int }{id})
	}
	m := r.metrics()["http.client.request.duration"]
	want(t, "unit", m.Unit, "s")
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%T", m.Data)
	}
	port := r.faults.URL()[strings.LastIndexByte(r.faults.URL(), ':')+1:]
	var got []string
	for _, p := range h.DataPoints {
		got = append(got, attrText(p.Attributes.ToSlice())+" count="+strconv.FormatUint(p.Count, 10))
		if p.Sum <= 0 {
			t.Errorf("sum %v", p.Sum)
		}
	}
	slices.Sort(got)
	wantSeries := []string{
		"error.type:404 http.request.method:GET http.response.status_code:404 server.address:127.0.0.1 server.port:" + port + " url.template:/users/{id} count=1",
		"http.request.method:GET http.response.status_code:200 server.address:127.0.0.1 server.port:" + port + " url.template:/users/{id} count=3",
	}
	if !slices.Equal(got, wantSeries) {
		t.Errorf("series\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantSeries, "\n"))
	}
}

// With no-op providers nothing is recorded, no trace context is invented
// and nothing fails, sync or async; with the global defaults (nothing set)
// neither.
func TestNoopProviders(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t, kittest.WithUsers(30))
			opt := kitotel.Instrument(
				kitotel.WithTracerProvider(tracenoop.NewTracerProvider()),
				kitotel.WithMeterProvider(metricnoop.NewMeterProvider()),
				kitotel.WithPropagators(propagation.TraceContext{}),
				nil,
			)
			var b kit.Binding
			if m.async {
				ac, err := kit.NewAsyncClient(r.faults.URL(), opt, kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
				if err != nil {
					t.Fatal(err)
				}
				defer ac.Close(context.Background())
				b = ac
			} else {
				c, err := kit.NewClient(r.faults.URL(), opt, kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				b = c
			}
			r.faults.Script(503)
			if _, err := call(t.Context(), m.async, getUser, b, struct{ ID int }{1}); err != nil {
				t.Fatal(err)
			}
			var all func(context.Context, ...kit.CallOption) iter.Seq2[user, error]
			if m.async {
				all = kit.NewAsyncResource[user](b, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 10})).All
			} else {
				all = kit.NewResource[user](b, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 10})).All
			}
			walked := 0
			for _, err := range all(t.Context()) {
				if err != nil {
					t.Fatal(err)
				}
				walked++
			}
			want(t, "users", walked, 30)
			s, err := call(t.Context(), m.async, events, b, struct{ Count int }{2})
			if err != nil {
				t.Fatal(err)
			}
			for _, err := range s.All() {
				if err != nil {
					t.Fatal(err)
				}
			}
			for i, p := range r.parents {
				if p != "" {
					t.Errorf("request %d carried traceparent %q without a recording span", i, p)
				}
			}
			want(t, "requests", len(r.parents), 1+4+1) // a call (its 503 never reached the API), 4 pages, a stream
		})
	}
	_, c := kittest.NewServer(t, nil, kitotel.Instrument())
	if _, err := getUser.Call(t.Context(), c, struct{ ID int }{1}); err != nil {
		t.Fatal(err)
	}
}

// Without WithPropagators, the global propagator injects, read at each
// call.
func TestGlobalPropagator(t *testing.T) {
	r := newRig(t)
	c, err := kit.NewClient(r.faults.URL(), kitotel.Instrument(kitotel.WithTracerProvider(r.tp), kitotel.WithMeterProvider(r.mp)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The global propagator cannot be unset: an empty one injects nothing.
	none := propagation.NewCompositeTextMapPropagator()
	otel.SetTextMapPropagator(none)
	defer otel.SetTextMapPropagator(none)
	if _, err := getUser.Call(t.Context(), c, struct{ ID int }{1}); err != nil {
		t.Fatal(err)
	}
	otel.SetTextMapPropagator(propagation.TraceContext{})
	if _, err := getUser.Call(t.Context(), c, struct{ ID int }{1}); err != nil {
		t.Fatal(err)
	}
	want(t, "first traceparent", r.parents[0], "")
	want(t, "second traceparent", r.parents[1], "00-"+r.spans()[1].SpanContext.TraceID().String()+"-"+r.spans()[1].SpanContext.SpanID().String()+"-01")
}

// Resource operations are calls like any other: one span each, named by
// method and the collection's template.
func TestResourceOperations(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			b := r.binding(m.async)
			ctx := t.Context()
			newUser := user{Name: "Grace Hopper"}
			type full struct {
				user
				Email string `json:"email"`
			}
			if m.async {
				res := kit.NewAsyncResource[full](b, "/users")
				created, err := res.Create(ctx, full{newUser, "grace@example.com"}).Await(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := res.Get(ctx, created.ID).Await(ctx); err != nil {
					t.Fatal(err)
				}
				if _, err := res.Delete(ctx, created.ID).Await(ctx); err != nil {
					t.Fatal(err)
				}
			} else {
				res := kit.NewResource[full](b, "/users")
				created, err := res.Create(ctx, full{newUser, "grace@example.com"})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := res.Get(ctx, created.ID); err != nil {
					t.Fatal(err)
				}
				if _, err := res.Delete(ctx, created.ID); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, s := range r.spans() {
				got = append(got, s.Name+" "+attrs(s)["url.template"]+" "+attrs(s)["http.response.status_code"])
			}
			if !slices.Equal(got, []string{"POST /users /users 201", "GET /users/{id} /users/{id} 200", "DELETE /users/{id} /users/{id} 204"}) {
				t.Errorf("spans %q", got)
			}
		})
	}
}

// A call answered from the client's cache: an event on its span and
// kit.client.cache.hits.
func TestCacheHits(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			b := r.binding(m.async, kit.WithCache(kit.NewMemoryCache(1<<20)))
			for range 2 {
				if _, err := call(t.Context(), m.async, getUser, b, struct{ ID int }{1}); err != nil {
					t.Fatal(err)
				}
			}
			spans := r.spans()
			if len(spans) != 2 {
				t.Fatalf("%d spans", len(spans))
			}
			want(t, "first call's events", len(spans[0].Events), 0)
			if got := eventText(spans[1]); !slices.Equal(got, []string{"cache hit kit.cache.revalidated:true"}) {
				t.Errorf("second call's events %q", got)
			}
			want(t, "status", attrs(spans[1])["http.response.status_code"], "200")
			if got := r.counter("kit.client.cache.hits"); !slices.Equal(got, []string{"http.request.method:GET url.template:/users/{id}=1"}) {
				t.Errorf("kit.client.cache.hits %q", got)
			}
		})
	}
}
