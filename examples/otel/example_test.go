package otel_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// User is what GET /users/{id} returns.
type User struct {
	ID   int    `json:"id"`
	Name string `json:"name" validate:"required"`
}

var getUser = kit.Get[struct{ ID int }, User]("/users/{id}")

// kit's engine is a plain *http.Client, so OpenTelemetry's otelhttp
// transport traces every request kit sends: wrap the transport and pass the
// client with kit.WithHTTPClient.
func ExampleWithHTTPClient_otelhttp() {
	// Spans go to an in-memory exporter here; use an OTLP exporter (and
	// usually the global TracerProvider) in a program.
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	defer tp.Shutdown(context.Background())

	hc := &http.Client{
		Transport: otelhttp.NewTransport(http.DefaultTransport, otelhttp.WithTracerProvider(tp)),
	}

	srv := httptest.NewServer(kittest.NewAPI()) // on 127.0.0.1
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithHTTPClient(hc))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	ctx := context.Background()
	for _, id := range []int{1, 2} {
		u, err := getUser.Call(ctx, c, struct{ ID int }{id})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("user %d: %s\n", u.ID, u.Name)
	}

	for _, s := range exporter.GetSpans() {
		attrs := map[string]string{}
		for _, kv := range s.Attributes {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		u, _ := url.Parse(attrs["url.full"])
		fmt.Printf("span %q (%s): %s %s on %s -> %s\n", s.Name, s.SpanKind,
			attrs["http.request.method"], u.Path, attrs["server.address"], attrs["http.response.status_code"])
	}
	// Output:
	// user 1: Ada Lovelace
	// user 2: Alan Turing
	// span "HTTP GET" (client): GET /users/1 on 127.0.0.1 -> 200
	// span "HTTP GET" (client): GET /users/2 on 127.0.0.1 -> 200
}
