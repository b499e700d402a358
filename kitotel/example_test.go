package kitotel_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"

	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitotel"
	"github.com/kithttp/kit/kittest"
)

// One option traces and measures a client. Spans are named by the
// declaration, not the URL, so two users' calls share a name and a series.
func ExampleInstrument() {
	// An in-memory exporter and a manual reader here; an OTLP exporter
	// (and usually the global providers) in a program.
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	defer tp.Shutdown(context.Background())
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	srv := httptest.NewServer(kittest.NewAPI()) // on 127.0.0.1
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kitotel.Instrument(
		kitotel.WithTracerProvider(tp),
		kitotel.WithMeterProvider(mp),
		kitotel.WithPropagators(propagation.TraceContext{}),
	))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	ctx := context.Background()
	for _, id := range []int{1, 2, 404} {
		u, err := getUser.Call(ctx, c, struct{ ID int }{id})
		if he, ok := errors.AsType[*kit.HTTPError](err); ok {
			fmt.Println("user", id, "->", he.StatusCode)
			continue
		}
		fmt.Println("user", id, "->", u.Name)
	}

	for _, s := range exporter.GetSpans() {
		a := attrs(s)
		line := fmt.Sprintf("span %q (%s): %s %s -> %s", s.Name, s.SpanKind,
			a["http.request.method"], a["url.template"], a["http.response.status_code"])
		if et, ok := a["error.type"]; ok {
			line += ", error.type " + et
		}
		fmt.Println(line)
	}
	var rm metricdata.ResourceMetrics
	reader.Collect(ctx, &rm)
	for _, m := range rm.ScopeMetrics[0].Metrics {
		for _, p := range m.Data.(metricdata.Histogram[float64]).DataPoints {
			status, _ := p.Attributes.Value("http.response.status_code")
			tmpl, _ := p.Attributes.Value("url.template")
			fmt.Printf("%s{url.template=%s, status=%d}: %d calls\n", m.Name, tmpl.AsString(), status.AsInt64(), p.Count)
		}
	}
	// Unordered output:
	// user 1 -> Ada Lovelace
	// user 2 -> Alan Turing
	// user 404 -> 404
	// span "GET /users/{id}" (client): GET /users/{id} -> 200
	// span "GET /users/{id}" (client): GET /users/{id} -> 200
	// span "GET /users/{id}" (client): GET /users/{id} -> 404, error.type 404
	// http.client.request.duration{url.template=/users/{id}, status=200}: 2 calls
	// http.client.request.duration{url.template=/users/{id}, status=404}: 1 calls
}
