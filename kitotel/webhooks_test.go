package kitotel_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kithttp/kit/kitotel"
	"github.com/kithttp/kit/kittest"
	"github.com/kithttp/kit/kitwebhook"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

func TestWebhookSpans(t *testing.T) {
	r := &rig{t: t, exporter: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	r.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(r.exporter))
	r.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.reader))
	scheme, err := kitwebhook.GitHub("kitotel-webhook-secret")
	if err != nil {
		t.Fatal(err)
	}
	h, err := kitwebhook.NewHandler(scheme, kitwebhook.WithEventHeader("X-GitHub-Event"),
		kitotel.Webhooks(kitotel.WithTracerProvider(r.tp), kitotel.WithMeterProvider(r.mp), kitotel.WithPropagators(propagation.TraceContext{})))
	if err != nil {
		t.Fatal(err)
	}
	kitwebhook.Handle(h, "push", func(ctx context.Context, d *kitwebhook.Delivery[map[string]any]) error {
		if !trace.SpanFromContext(ctx).SpanContext().IsValid() {
			t.Error("the function's context has no span")
		}
		if d.ID == "d-2" {
			return errors.New("disk full")
		}
		return nil
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	parent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	sender := &kittest.WebhookSender{URL: srv.URL, Scheme: scheme, Header: http.Header{"X-Github-Event": {"push"}, "Traceparent": {parent}}}
	ctx := context.Background()
	sender.Send(ctx, "d-1", map[string]string{"ref": "main"})
	sender.Send(ctx, "d-2", map[string]string{"ref": "main"})
	spans := r.spans()
	if len(spans) != 2 {
		t.Fatalf("%d spans", len(spans))
	}
	for i, s := range spans {
		want(t, "name", s.Name, "webhook GitHub push")
		want(t, "kind", s.SpanKind, trace.SpanKindServer)
		want(t, "trace id", s.SpanContext.TraceID().String(), "0af7651916cd43dd8448eb211c80319c")
		a := attrs(s)
		want(t, "status attr", a["http.response.status_code"], []string{"204", "500"}[i])
		want(t, "outcome", a["kit.webhook.outcome"], []string{"handled", "failed"}[i])
		want(t, "id", a["kit.webhook.id"], []string{"d-1", "d-2"}[i])
	}
	want(t, "error status", spans[1].Status.Code.String(), "Error")
	got := r.counter("kit.webhook.deliveries")
	wantLines := []string{
		"kit.webhook.event:push kit.webhook.outcome:failed kit.webhook.scheme:GitHub=1",
		"kit.webhook.event:push kit.webhook.outcome:handled kit.webhook.scheme:GitHub=1",
	}
	if len(got) != 2 || got[0] != wantLines[0] || got[1] != wantLines[1] {
		t.Fatalf("counter %q", got)
	}
}
