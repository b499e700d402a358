package kitotel

import (
	"context"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitwebhook"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Webhooks returns the option that traces and measures a webhook receiver:
// give it to kitwebhook.NewHandler. Each delivery gets a server span,
// "webhook <scheme> <event>" (the event type when the delivery carried
// one), child of the trace context the sender put in the request's headers
// when there is one (the propagator, as for Instrument), with the
// attributes http.request.method, http.response.status_code,
// kit.webhook.scheme, kit.webhook.event, kit.webhook.id and
// kit.webhook.outcome; a delivery answered 5xx sets the span's status to
// Error. The histogram kit.webhook.duration (seconds) and the counter
// kit.webhook.deliveries count them by scheme, event and outcome.
func Webhooks(opts ...Option) kitwebhook.Option {
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
	w := &webhookObserver{
		tracer: cfg.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(kit.Version)),
		pp:     cfg.pp,
	}
	m := cfg.mp.Meter(ScopeName, metric.WithInstrumentationVersion(kit.Version))
	w.duration = float64Histogram(m, "kit.webhook.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a webhook delivery's arrival to its answer, by scheme, event and outcome."),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	w.deliveries = int64Counter(m, "kit.webhook.deliveries", metric.WithUnit("{delivery}"),
		metric.WithDescription("Webhook deliveries received, by scheme, event and outcome."))
	return kitwebhook.WithObserver(kitwebhook.Observer{DeliveryStart: w.start, DeliveryEnd: w.end})
}

const (
	keyWebhookScheme  = attribute.Key("kit.webhook.scheme")
	keyWebhookEvent   = attribute.Key("kit.webhook.event")
	keyWebhookID      = attribute.Key("kit.webhook.id")
	keyWebhookOutcome = attribute.Key("kit.webhook.outcome")
)

type webhookObserver struct {
	tracer     trace.Tracer
	pp         propagation.TextMapPropagator
	duration   metric.Float64Histogram
	deliveries metric.Int64Counter
}

func (w *webhookObserver) propagator() propagation.TextMapPropagator {
	if w.pp != nil {
		return w.pp
	}
	return otel.GetTextMapPropagator()
}

func (w *webhookObserver) start(ctx context.Context, d kitwebhook.DeliveryInfo) context.Context {
	ctx = w.propagator().Extract(ctx, propagation.HeaderCarrier(d.Request.Header))
	ctx, _ = w.tracer.Start(ctx, "webhook "+d.Scheme,
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(d.Start),
		trace.WithAttributes(keyMethod.String(normalMethod(d.Request.Method)), keyWebhookScheme.String(d.Scheme)))
	return ctx
}

func (w *webhookObserver) end(ctx context.Context, r kitwebhook.DeliveryResult) {
	attrs := attribute.NewSet(keyWebhookScheme.String(r.Scheme), keyWebhookEvent.String(r.Event), keyWebhookOutcome.String(string(r.Outcome)))
	w.duration.Record(ctx, r.Duration.Seconds(), metric.WithAttributeSet(attrs))
	w.deliveries.Add(ctx, 1, metric.WithAttributeSet(attrs))
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if r.Event != "" {
		span.SetName("webhook " + r.Scheme + " " + r.Event)
	}
	span.SetAttributes(keyStatus.Int(r.Status), keyWebhookEvent.String(r.Event), keyWebhookID.String(r.ID), keyWebhookOutcome.String(string(r.Outcome)))
	if r.Status >= 500 {
		span.SetStatus(codes.Error, string(r.Outcome))
		if r.Err != nil {
			span.SetAttributes(keyErrorType.String(errorType(r.Err, r.Status)))
		}
	}
	span.End()
}
