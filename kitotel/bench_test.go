package kitotel_test

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitotel"
	"github.com/kithttp/kit/kittest"
)

// The benchmarks compare a client without kitotel, with kitotel on no-op
// providers, and with kitotel on the SDK (a batching-free span processor
// feeding an exporter that counts spans, a manual metric reader, W3C trace
// context), against the same loopback server in the same run:
//
//	go test -run '^$' -bench . -benchmem -count 6 .

// countingExporter records how many spans it was given, and drops them.
type countingExporter struct{ n atomic.Int64 }

func (e *countingExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.n.Add(int64(len(spans)))
	return nil
}

func (e *countingExporter) Shutdown(context.Context) error { return nil }

// benchSetups are the three clients, made on base.
var benchSetups = []struct {
	name string
	opt  func(tb testing.TB) kit.Option
}{
	{"plain", func(testing.TB) kit.Option { return nil }},
	{"noop", func(testing.TB) kit.Option {
		return kitotel.Instrument(
			kitotel.WithTracerProvider(tracenoop.NewTracerProvider()),
			kitotel.WithMeterProvider(metricnoop.NewMeterProvider()),
			kitotel.WithPropagators(propagation.TraceContext{}))
	}},
	{"sdk", func(tb testing.TB) kit.Option {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(&countingExporter{}))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		tb.Cleanup(func() {
			tp.Shutdown(context.Background())
			mp.Shutdown(context.Background())
		})
		return kitotel.Instrument(kitotel.WithTracerProvider(tp), kitotel.WithMeterProvider(mp),
			kitotel.WithPropagators(propagation.TraceContext{}))
	}},
}

func userServer(tb testing.TB) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":7,"name":"Grace Hopper"}`))
	}))
	tb.Cleanup(srv.Close)
	return srv
}

// BenchmarkCall is one GET /users/{id} per op.
func BenchmarkCall(b *testing.B) {
	srv := userServer(b)
	for _, s := range benchSetups {
		b.Run(s.name, func(b *testing.B) {
			c, err := kit.NewClient(srv.URL, s.opt(b))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := getUser.Call(ctx, c, struct{ ID int }{7}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkWalk is a walk of 10 pages of 10 users per op: divide by 10 for
// the cost per page.
func BenchmarkWalk(b *testing.B) {
	srv := httptest.NewServer(kittest.NewAPI(kittest.WithUsers(100)))
	b.Cleanup(srv.Close)
	for _, s := range benchSetups {
		b.Run(s.name, func(b *testing.B) {
			c, err := kit.NewClient(srv.URL, s.opt(b))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			users := kit.NewResource[user](c, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 10}))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				for _, err := range users.All(ctx) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != 100 {
					b.Fatalf("%d users", n)
				}
			}
		})
	}
}

// With no-op providers, a call through kitotel allocates at most 2 more
// times than without it (an allocation count, not a timing).
func TestNoopAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("counts allocations over 200 calls")
	}
	srv := userServer(t)
	allocs := map[string]float64{}
	for _, s := range benchSetups[:2] {
		c, err := kit.NewClient(srv.URL, s.opt(t))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		getUser.Call(ctx, c, struct{ ID int }{7}) // a connection, and the caches, made
		// The fewest of three counts: net/http's connection goroutines
		// allocate now and then on a loaded machine, which only adds.
		allocs[s.name] = math.Inf(1)
		for range 3 {
			allocs[s.name] = min(allocs[s.name], testing.AllocsPerRun(200, func() {
				if _, err := getUser.Call(ctx, c, struct{ ID int }{7}); err != nil {
					t.Fatal(err)
				}
			}))
		}
	}
	if extra := allocs["noop"] - allocs["plain"]; extra > 2 {
		t.Errorf("kitotel with no-op providers: %v allocations per call, %v without: %v more, want at most 2", allocs["noop"], allocs["plain"], extra)
	}
}
