package kitotel

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkHooks is kitotel's own work for one call (CallStart and CallEnd)
// and one page (plus the Page event), on the SDK with a synchronous span
// processor, without any HTTP: the CPU cost that BenchmarkCall measures
// through a loopback server, where a shared machine's noise hides it.
func BenchmarkHooks(b *testing.B) {
	exp := tracetest.NewNoopExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer tp.Shutdown(context.Background())
	defer mp.Shutdown(context.Background())
	in := newInstrumenter(config{tp: tp, mp: mp, pp: propagation.TraceContext{}})
	u, _ := url.Parse("http://127.0.0.1:8080/users/7")
	newCall := func() kit.CallInfo {
		req := &kit.Request{Method: "GET", URL: u, Header: make(http.Header, 4), Endpoint: "GET /users/{id}"}
		return kit.CallInfo{Request: req, Endpoint: req.Endpoint, Method: "GET", Template: "/users/{id}", Start: time.Now()}
	}
	ctx := context.Background()
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c := newCall()
			cctx := in.callStart(ctx, c)
			in.callEnd(cctx, kit.CallResult{CallInfo: c, StatusCode: 200})
		}
	})
	b.Run("page", func(b *testing.B) {
		w := kit.WalkInfo{Endpoint: "GET /users/{id}", Method: "GET", Template: "/users/{id}", Start: time.Now()}
		wctx := in.walkStart(ctx, w)
		b.ReportAllocs()
		for b.Loop() {
			c := newCall()
			cctx := in.callStart(wctx, c)
			in.callEnd(cctx, kit.CallResult{CallInfo: c, StatusCode: 200})
			in.page(wctx, kit.PageInfo{WalkInfo: w, Page: 1, Records: 10})
		}
	})
}
