package kitotel

import (
	"context"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kithttp/kit"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of kitotel's tracer and meter.
const ScopeName = "github.com/kithttp/kit/kitotel"

// Instrument returns the one option that traces and measures a kit client:
// give it to kit.NewClient or kit.NewAsyncClient. Everything after is
// automatic, for endpoint calls, resource operations, walks and streams
// (see the package documentation for the spans, metrics and log fields).
// It installs a kit.Observer (kit.WithObserver), so it composes with other
// observers and with interceptors.
//
// Instruments that the MeterProvider fails to create are reported to
// otel.Handle and replaced by no-op ones; Instrument never fails.
func Instrument(opts ...Option) kit.Option {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	if cfg.tp == nil {
		cfg.tp = otel.GetTracerProvider()
	}
	if cfg.mp == nil {
		cfg.mp = otel.GetMeterProvider()
	}
	return kit.WithObserver(newInstrumenter(cfg).observer())
}

// Attribute keys of the OpenTelemetry HTTP client conventions, and kit's
// own.
const (
	keyMethod         = attribute.Key("http.request.method")
	keyMethodOriginal = attribute.Key("http.request.method_original")
	keyTemplate       = attribute.Key("url.template")
	keyURL            = attribute.Key("url.full")
	keyServerAddress  = attribute.Key("server.address")
	keyServerPort     = attribute.Key("server.port")
	keyStatus         = attribute.Key("http.response.status_code")
	keyErrorType      = attribute.Key("error.type")
	keyResendCount    = attribute.Key("http.request.resend_count")

	keyRetryAttempt  = attribute.Key("kit.retry.attempt")
	keyRetryWait     = attribute.Key("kit.retry.wait")
	keyTokenAfter401 = attribute.Key("kit.token.after_401")
	keyCacheRevalid  = attribute.Key("kit.cache.revalidated")
	keyPageNumber    = attribute.Key("kit.page.number")
	keyFailoverFrom  = attribute.Key("kit.failover.from")
	keyFailoverTo    = attribute.Key("kit.failover.to")

	keyPollNumber       = attribute.Key("kit.poll.number")
	keyPollDone         = attribute.Key("kit.poll.done")
	keyPollWait         = attribute.Key("kit.poll.wait")
	keyTimingsDNS       = attribute.Key("kit.timings.dns")
	keyTimingsConnect   = attribute.Key("kit.timings.connect")
	keyTimingsTLS       = attribute.Key("kit.timings.tls")
	keyTimingsFirstByte = attribute.Key("kit.timings.first_byte")
	keyTimingsBody      = attribute.Key("kit.timings.body")
	keyTimingsTotal     = attribute.Key("kit.timings.total")
	keyTimingsReused    = attribute.Key("kit.timings.reused")
	keyPageRecords      = attribute.Key("kit.page.records")
	keyWalkPages        = attribute.Key("kit.walk.pages")
	keyStreamRecords    = attribute.Key("kit.stream.records")
	logKeyTraceID       = "trace_id"
	logKeySpanID        = "span_id"
	maxCachedSeries     = 4096
	unknownServerPort   = 0
)

// durationBuckets are the boundaries of http.client.request.duration that
// the HTTP semantic conventions recommend, in seconds.
var durationBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10}

// Private implementation past this point.

// instrumenter holds one Instrument's tracer, instruments and caches.
type instrumenter struct {
	timings  bool // WithTimings
	tracer   trace.Tracer
	pp       propagation.TextMapPropagator // nil: the global one
	duration metric.Float64Histogram
	retries  metric.Int64Counter
	pages    metric.Int64Counter
	hits     metric.Int64Counter
	renewals metric.Int64Counter

	mu    sync.RWMutex
	decls map[string]*decl // by Request.Endpoint

	seriesMu sync.RWMutex
	series   map[seriesKey][]metric.RecordOption // attributes of the duration histogram
}

// decl is what kitotel computes once per declaration.
type decl struct {
	method   string // normalized: a known method or "_OTHER"
	template string
	callOpts []trace.SpanStartOption
	walkName string
	walkOpts []trace.SpanStartOption
	addOpts  []metric.AddOption // method and template, for the counters
	attrs    []attribute.KeyValue
}

// seriesKey is one series of the duration histogram.
type seriesKey struct {
	d       *decl
	host    string
	port    int
	status  int
	errType string
}

func newInstrumenter(cfg config) *instrumenter {
	in := &instrumenter{
		tracer:  cfg.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(kit.Version)),
		pp:      cfg.pp,
		timings: cfg.timings,
		decls:   make(map[string]*decl),
		series:  make(map[seriesKey][]metric.RecordOption),
	}
	m := cfg.mp.Meter(ScopeName, metric.WithInstrumentationVersion(kit.Version))
	in.duration = float64Histogram(m, "http.client.request.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Duration of HTTP client requests, by declaration (url.template): a call's attempts, waits and token renewals included; a streamed call's until its body is closed."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	in.retries = int64Counter(m, "kit.client.retries", metric.WithUnit("{retry}"),
		metric.WithDescription("Attempts that failed and were retried."))
	in.pages = int64Counter(m, "kit.client.pages", metric.WithUnit("{page}"),
		metric.WithDescription("Pages fetched by page walks."))
	in.hits = int64Counter(m, "kit.client.cache.hits", metric.WithUnit("{hit}"),
		metric.WithDescription("Calls answered from the client's cache."))
	in.renewals = int64Counter(m, "kit.client.token.renewals", metric.WithUnit("{renewal}"),
		metric.WithDescription("Renewals of the client's credentials, the refresh after a 401 included."))
	return in
}

// observer returns the kit.Observer that does the work.
func (in *instrumenter) observer() kit.Observer {
	return kit.Observer{
		CallStart:    in.callStart,
		CallEnd:      in.callEnd,
		Retry:        in.retry,
		TokenRenewal: in.tokenRenewal,
		CacheHit:     in.cacheHit,
		WalkStart:    in.walkStart,
		Page:         in.page,
		WalkEnd:      in.walkEnd,
		StreamEnd:    in.streamEnd,
		Poll:         in.poll,
		Failover:     failover,
		LogAttrs:     logAttrs,

		MeasureTimings: in.timings,
	}
}

// failover adds an event for a move to the next base URL
// (kit.WithFailover) to the call's span: the base URLs left and tried
// next, and the error.type of the failure.
func failover(ctx context.Context, f kit.FailoverInfo) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("failover", trace.WithAttributes(keyFailoverFrom.String(f.From), keyFailoverTo.String(f.To),
			keyErrorType.String(errorType(f.Err, 0))))
	}
}

// poll adds an event for a poll of a long-running operation to the span
// of the context that waits for it (the caller's).
func (in *instrumenter) poll(ctx context.Context, p kit.PollInfo) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("poll", trace.WithAttributes(keyPollNumber.Int(p.Poll), keyPollDone.Bool(p.Done),
			keyPollWait.Float64(p.Wait.Seconds())))
	}
}

// addTimings adds the phases of a call's last attempt to its span.
func addTimings(span trace.Span, t kit.Timings) {
	span.AddEvent("timings", trace.WithAttributes(
		keyTimingsDNS.Float64(t.DNS.Seconds()), keyTimingsConnect.Float64(t.Connect.Seconds()),
		keyTimingsTLS.Float64(t.TLS.Seconds()), keyTimingsFirstByte.Float64(t.FirstByte.Seconds()),
		keyTimingsBody.Float64(t.Body.Seconds()), keyTimingsTotal.Float64(t.Total.Seconds()),
		keyTimingsReused.Bool(t.Reused)))
}

func (in *instrumenter) callStart(ctx context.Context, c kit.CallInfo) context.Context {
	d := in.decl(c.Endpoint, c.Method, c.Template)
	ctx, span := in.tracer.Start(ctx, spanName(c.Endpoint, d), d.callOpts...)
	if span.IsRecording() {
		host, port := server(c.Request.URL)
		span.SetAttributes(keyURL.String(c.URL()), keyServerAddress.String(host))
		if port != unknownServerPort {
			span.SetAttributes(keyServerPort.Int(port))
		}
	}
	in.propagator().Inject(ctx, propagation.HeaderCarrier(c.Request.Header))
	return ctx
}

func (in *instrumenter) callEnd(ctx context.Context, r kit.CallResult) {
	d := in.decl(r.Endpoint, r.Method, r.Template)
	et := errorType(r.Err, 0) // the status of an *HTTPError; a decoding error at a 2xx is its own class
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		if r.StatusCode != 0 {
			span.SetAttributes(keyStatus.Int(r.StatusCode))
		}
		if in.timings && r.Timings.Total > 0 {
			addTimings(span, r.Timings)
		}
		if et != "" {
			// The error's text is left out: it holds the URL, whose
			// path may hold a secret.
			span.SetAttributes(keyErrorType.String(et))
			span.SetStatus(codes.Error, et)
		}
		span.End()
	}
	if in.duration.Enabled(ctx) {
		host, port := server(r.Request.URL)
		opts := in.seriesOpts(seriesKey{d: d, host: host, port: port, status: r.StatusCode, errType: et})
		in.duration.Record(ctx, time.Since(r.Start).Seconds(), opts...)
	}
}

func (in *instrumenter) retry(ctx context.Context, r kit.RetryInfo) {
	if in.retries.Enabled(ctx) {
		in.retries.Add(ctx, 1, in.declOf(r.Request).addOpts...)
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(keyResendCount.Int(r.Attempt))
		span.AddEvent("retry", trace.WithAttributes(
			keyRetryAttempt.Int(r.Attempt),
			keyErrorType.String(errorType(r.Err, 0)),
			keyRetryWait.Float64(r.Wait.Seconds()),
		))
	}
}

func (in *instrumenter) tokenRenewal(ctx context.Context, t kit.TokenRenewalInfo) {
	if in.renewals.Enabled(ctx) {
		in.renewals.Add(ctx, 1, renewalOpts[t.After401]...)
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		attrs := []attribute.KeyValue{keyTokenAfter401.Bool(t.After401), attribute.Float64("kit.token.duration", t.Duration.Seconds())}
		if t.Err != nil {
			attrs = append(attrs, keyErrorType.String(errorType(t.Err, 0)))
		}
		span.AddEvent("token renewal", trace.WithAttributes(attrs...))
	}
}

// renewalOpts are the attributes of kit.client.token.renewals.
var renewalOpts = map[bool][]metric.AddOption{
	false: {metric.WithAttributeSet(attribute.NewSet(keyTokenAfter401.Bool(false)))},
	true:  {metric.WithAttributeSet(attribute.NewSet(keyTokenAfter401.Bool(true)))},
}

func (in *instrumenter) cacheHit(ctx context.Context, h kit.CacheHitInfo) {
	if in.hits.Enabled(ctx) {
		in.hits.Add(ctx, 1, in.declOf(h.Request).addOpts...)
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("cache hit", trace.WithAttributes(keyCacheRevalid.Bool(h.Revalidated)))
	}
}

func (in *instrumenter) walkStart(ctx context.Context, w kit.WalkInfo) context.Context {
	d := in.decl(w.Endpoint, w.Method, w.Template)
	ctx, _ = in.tracer.Start(ctx, d.walkName, d.walkOpts...)
	return ctx
}

func (in *instrumenter) page(ctx context.Context, p kit.PageInfo) {
	if in.pages.Enabled(ctx) {
		in.pages.Add(ctx, 1, in.decl(p.Endpoint, p.Method, p.Template).addOpts...)
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent("page", trace.WithAttributes(keyPageNumber.Int(p.Page), keyPageRecords.Int(p.Records)))
	}
}

func (in *instrumenter) walkEnd(ctx context.Context, w kit.WalkResult) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(keyWalkPages.Int(w.Pages))
	if w.Err != nil {
		et := errorType(w.Err, 0)
		span.SetAttributes(keyErrorType.String(et))
		span.SetStatus(codes.Error, et)
	}
	span.End()
}

func (in *instrumenter) streamEnd(ctx context.Context, s kit.StreamResult) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(keyStreamRecords.Int(s.Records))
	if s.Err != nil {
		et := errorType(s.Err, 0)
		span.SetAttributes(keyErrorType.String(et))
		span.SetStatus(codes.Error, et)
	}
}

// logAttrs adds the active span's trace and span IDs to kit's log records.
func logAttrs(ctx context.Context, attrs []slog.Attr) []slog.Attr {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return attrs
	}
	return append(attrs, slog.String(logKeyTraceID, sc.TraceID().String()), slog.String(logKeySpanID, sc.SpanID().String()))
}

func (in *instrumenter) propagator() propagation.TextMapPropagator {
	if in.pp != nil {
		return in.pp
	}
	return otel.GetTextMapPropagator()
}

// declOf is decl for a request.
func (in *instrumenter) declOf(r *kit.Request) *decl {
	method, template, ok := strings.Cut(r.Endpoint, " ")
	if !ok {
		method, template = r.Method, r.Endpoint
	}
	return in.decl(r.Endpoint, method, template)
}

// decl returns what kitotel keeps for the declaration endpoint, made on
// first use.
func (in *instrumenter) decl(endpoint, method, template string) *decl {
	in.mu.RLock()
	d := in.decls[endpoint]
	in.mu.RUnlock()
	if d != nil {
		return d
	}
	d = &decl{template: template}
	methodAttrs := []attribute.KeyValue{keyMethod.String(normalMethod(method))}
	if m := normalMethod(method); m != method {
		methodAttrs = append(methodAttrs, keyMethodOriginal.String(method))
	}
	d.method = methodAttrs[0].Value.AsString()
	d.attrs = append(methodAttrs, keyTemplate.String(template))
	d.callOpts = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(d.attrs...)}
	d.walkName = "walk " + endpoint
	d.walkOpts = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(d.attrs...)}
	set := attribute.NewSet(keyMethod.String(d.method), keyTemplate.String(template))
	d.addOpts = []metric.AddOption{metric.WithAttributeSet(set)}
	in.mu.Lock()
	defer in.mu.Unlock()
	if prev := in.decls[endpoint]; prev != nil {
		return prev
	}
	if len(in.decls) < maxCachedSeries {
		in.decls[endpoint] = d
	}
	return d
}

// seriesOpts returns the attributes of a duration measurement.
func (in *instrumenter) seriesOpts(k seriesKey) []metric.RecordOption {
	in.seriesMu.RLock()
	opts, ok := in.series[k]
	in.seriesMu.RUnlock()
	if ok {
		return opts
	}
	attrs := append([]attribute.KeyValue{}, k.d.attrs...)
	attrs = append(attrs, keyServerAddress.String(k.host))
	if k.port != unknownServerPort {
		attrs = append(attrs, keyServerPort.Int(k.port))
	}
	if k.status != 0 {
		attrs = append(attrs, keyStatus.Int(k.status))
	}
	if k.errType != "" {
		attrs = append(attrs, keyErrorType.String(k.errType))
	}
	opts = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attrs...))}
	in.seriesMu.Lock()
	if len(in.series) < maxCachedSeries {
		in.series[k] = opts
	}
	in.seriesMu.Unlock()
	return opts
}

// spanName is the name of a call's span: its declaration.
func spanName(endpoint string, d *decl) string {
	if endpoint == "" {
		return d.method
	}
	return endpoint
}

// server returns the host and port a request goes to; the port is the
// scheme's default when the URL has none.
func server(u *url.URL) (string, int) {
	if u == nil {
		return "", unknownServerPort
	}
	host := u.Hostname()
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err == nil {
			return host, n
		}
		return host, unknownServerPort
	}
	switch u.Scheme {
	case "http":
		return host, 80
	case "https":
		return host, 443
	}
	return host, unknownServerPort
}

// normalMethod is the method as the HTTP conventions record it: a known
// method, or "_OTHER".
func normalMethod(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT", "QUERY":
		return m
	}
	return "_OTHER"
}
