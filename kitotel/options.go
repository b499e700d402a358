package kitotel

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures Instrument. A nil Option is skipped.
type Option interface {
	apply(*config)
}

// WithTracerProvider sets where spans go. Default (or nil): the global
// TracerProvider (otel.GetTracerProvider), looked up when Instrument is
// called; the global provider forwards to one set later with
// otel.SetTracerProvider.
func WithTracerProvider(tp trace.TracerProvider) Option { return tracerOption{tp} }

// WithMeterProvider sets where metrics go. Default (or nil): the global
// MeterProvider (otel.GetMeterProvider), which forwards to one set later.
func WithMeterProvider(mp metric.MeterProvider) Option { return meterOption{mp} }

// WithPropagators sets how trace context is written into each request's
// headers. Default (or nil): the global propagator
// (otel.GetTextMapPropagator), read at each call, so that one set later
// with otel.SetTextMapPropagator is used; it injects nothing until one is
// set (propagation.TraceContext{} writes W3C traceparent and tracestate).
func WithPropagators(p propagation.TextMapPropagator) Option { return propagatorOption{p} }

// WithTimings measures each call's phases (kit.Observer's
// MeasureTimings) and adds them to the call's span as one event, "timings",
// with the attributes kit.timings.dns, .connect, .tls, .first_byte, .body
// and .total (seconds, of the call's last attempt) and
// kit.timings.reused. It costs a few allocations per attempt. Default:
// off.
func WithTimings() Option { return timingsOption{} }

// Private implementation past this point.

type config struct {
	tp      trace.TracerProvider
	mp      metric.MeterProvider
	pp      propagation.TextMapPropagator // nil: the global one, at each call
	timings bool                          // WithTimings
}

type timingsOption struct{}

func (timingsOption) apply(c *config) { c.timings = true }

type tracerOption struct{ tp trace.TracerProvider }

func (o tracerOption) apply(c *config) { c.tp = o.tp }

type meterOption struct{ mp metric.MeterProvider }

func (o meterOption) apply(c *config) { c.mp = o.mp }

type propagatorOption struct{ p propagation.TextMapPropagator }

func (o propagatorOption) apply(c *config) { c.pp = o.p }
