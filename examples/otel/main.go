// Command otel traces a small run of a kit client with kitotel and prints
// the spans as text: a call retried after a 503, a call whose token is
// renewed after a 401, and a walk of three pages, under one parent span.
//
//	cd examples/otel && go run .
//
// Spans go to the OpenTelemetry SDK's in-memory exporter here; a program
// sends them to a collector with an OTLP exporter instead.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitotel"
	"github.com/kithttp/kit/kittest"
)

// User is what the demo API's user endpoints return.
type User struct {
	ID   int    `json:"id"`
	Name string `json:"name" validate:"required"`
}

type credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

type tokenResponse struct {
	AccessToken string `json:"access_token" validate:"required"`
	ExpiresIn   int    `json:"expires_in"`
}

// Endpoints, declared once.
var (
	getUser = kit.Get[struct{ ID int }, User]("/users/{id}")
	getMe   = kit.Get[kit.NoParams, User]("/me")
	login   = kit.Post[struct{ Body credentials }, tokenResponse]("/login", kit.NoAuth())
)

func main() {
	log.SetFlags(0)
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer) error {
	exporter := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	defer tp.Shutdown(context.Background())

	// The demo API, whose first GET /users/1 fails with a 503.
	api := kittest.NewAPI(kittest.WithUsers(5))
	var failed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/users/1" && failed.CompareAndSwap(false, true) {
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		api.ServeHTTP(w, r)
	}))
	defer srv.Close()

	var c *kit.Client // the token's fetch function logs in through this very client
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		r, err := login.Call(ctx, c, struct{ Body credentials }{credentials{"demo", "s3cret"}})
		if err != nil {
			return kit.Token{}, err
		}
		return kit.Token{Value: r.AccessToken, Expiry: time.Now().Add(time.Duration(r.ExpiresIn) * time.Second)}, nil
	})
	c, err := kit.NewClient(srv.URL,
		kit.WithAuth(auth),
		kit.WithRetry(kit.RetryPolicy{BaseDelay: 10 * time.Millisecond}),
		kitotel.Instrument(kitotel.WithTracerProvider(tp), kitotel.WithPropagators(propagation.TraceContext{})),
	)
	if err != nil {
		return err
	}
	defer c.Close()

	// Everything below is one trace: the caller's span is the parent.
	ctx, root := tp.Tracer("examples/otel").Start(ctx, "demo run")
	if _, err := getMe.Call(ctx, c, kit.NoParams{}); err != nil { // the first token
		return err
	}
	if _, err := getUser.Call(ctx, c, struct{ ID int }{1}); err != nil { // a 503, then a retry
		return err
	}
	api.ExpireTokens()
	if _, err := getMe.Call(ctx, c, kit.NoParams{}); err != nil { // a 401, a refresh, a resend
		return err
	}
	users := kit.NewResource[User](c, "/users", kit.PagedBy(kit.PageNumber{PageSize: 2}))
	for _, err := range users.All(ctx) { // three pages
		if err != nil {
			return err
		}
	}
	root.End()

	render(out, exporter.GetSpans())
	return nil
}

// render prints spans as a tree: each span with its status and a few
// attributes, then its events and children in the order they happened.
func render(out io.Writer, spans tracetest.SpanStubs) {
	children := map[trace.SpanID][]tracetest.SpanStub{}
	var roots []tracetest.SpanStub
	known := map[trace.SpanID]bool{}
	for _, s := range spans {
		known[s.SpanContext.SpanID()] = true
	}
	for _, s := range spans {
		if p := s.Parent.SpanID(); s.Parent.IsValid() && known[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var walk func(s tracetest.SpanStub, indent string)
	walk = func(s tracetest.SpanStub, indent string) {
		fmt.Fprintf(out, "%s%s%s\n", indent, s.Name, spanSummary(s))
		type item struct {
			at   time.Time
			text string
			span *tracetest.SpanStub
		}
		var items []item
		for _, e := range s.Events {
			items = append(items, item{at: e.Time, text: "event " + e.Name + attrSummary(e.Attributes)})
		}
		for _, c := range children[s.SpanContext.SpanID()] {
			items = append(items, item{at: c.StartTime, span: &c})
		}
		slices.SortStableFunc(items, func(a, b item) int { return a.at.Compare(b.at) })
		for _, it := range items {
			if it.span != nil {
				walk(*it.span, indent+"  ")
			} else {
				fmt.Fprintf(out, "%s  %s\n", indent, it.text)
			}
		}
	}
	for _, r := range roots {
		walk(r, "")
	}
}

// shown are the attributes the tree prints, and how it names them.
var shown = []struct{ key, label string }{
	{"http.response.status_code", ""},
	{"error.type", "error.type="},
	{"http.request.resend_count", "resend_count="},
	{"kit.walk.pages", "pages="},
	{"kit.retry.attempt", "attempt="},
	{"kit.token.after_401", "after_401="},
	{"kit.page.number", "page="},
	{"kit.page.records", "records="},
}

func spanSummary(s tracetest.SpanStub) string {
	return attrSummary(s.Attributes)
}

func attrSummary(kvs []attribute.KeyValue) string {
	var b strings.Builder
	for _, sh := range shown {
		for _, kv := range kvs {
			if string(kv.Key) == sh.key {
				b.WriteString("  " + sh.label + kv.Value.String())
			}
		}
	}
	return b.String()
}
