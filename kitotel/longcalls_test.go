package kitotel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitotel"
	"github.com/kithttp/kit/kittest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
)

// WithTimings: one "timings" event on the call's span, with the phases.
func TestTimingsEvent(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			opt := kitotel.Instrument(kitotel.WithTracerProvider(r.tp), kitotel.WithMeterProvider(r.mp),
				kitotel.WithPropagators(propagation.TraceContext{}), kitotel.WithTimings())
			var b kit.Binding
			if m.async {
				ac, err := kit.NewAsyncClient(r.faults.URL(), opt)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ac.Close(context.Background()) })
				b = ac
			} else {
				c, err := kit.NewClient(r.faults.URL(), opt)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				b = c
			}
			if _, err := call(t.Context(), m.async, getUser, b, struct{ ID int }{2}); err != nil {
				t.Fatal(err)
			}
			var found bool
			for _, s := range r.spans() {
				for _, e := range s.Events {
					if e.Name != "timings" {
						continue
					}
					found = true
					keys := map[string]bool{}
					for _, kv := range e.Attributes {
						keys[string(kv.Key)] = true
					}
					for _, k := range []string{"kit.timings.connect", "kit.timings.first_byte", "kit.timings.total", "kit.timings.reused"} {
						if !keys[k] {
							t.Errorf("the event lacks %s: %v", k, e.Attributes)
						}
					}
				}
			}
			if !found {
				t.Errorf("no timings event in %v", r.spans())
			}
		})
	}
}

// A poller's polls: a span each (GET {operation}), and a "poll" event
// on the caller's span.
func TestPollSpans(t *testing.T) {
	r := newRig(t)
	b := r.binding(false)
	type start struct {
		Body struct {
			Polls      int `json:"polls"`
			RetryAfter int `json:"retry_after"`
		}
	}
	ctx, parent := r.tp.Tracer("test").Start(context.Background(), "caller")
	var st start
	st.Body.Polls = 2
	resp, err := kit.Post[start, *kit.Response]("/lro/jobs").Call(ctx, b, st)
	if err != nil {
		t.Fatal(err)
	}
	p, err := kit.NewPoller[kittest.LROJob](b, resp, kit.PollOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	parent.End()
	polls, events := 0, 0
	for _, s := range r.spans() {
		if s.Name == "GET {operation}" {
			polls++
		}
		if s.Name == "caller" {
			for _, e := range s.Events {
				if e.Name == "poll" {
					events++
				}
			}
		}
	}
	if polls != 3 || events != 3 {
		t.Errorf("%d poll spans and %d poll events, want 3 and 3", polls, events)
	}
}

// WithFailover: a "failover" event on the call's span, naming the base
// URLs and the error's type.
func TestFailoverEvent(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			r := newRig(t)
			dead := kittest.NewFaultServer(t, nil)
			dead.DieAfter(0)
			opts := []kit.Option{kitotel.Instrument(kitotel.WithTracerProvider(r.tp), kitotel.WithMeterProvider(r.mp)),
				kit.WithFailover(kit.Failover{URLs: []string{r.faults.URL()}})}
			var b kit.Binding
			if m.async {
				ac, err := kit.NewAsyncClient(dead.URL(), opts...)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ac.Close(context.Background()) })
				b = ac
			} else {
				c, err := kit.NewClient(dead.URL(), opts...)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				b = c
			}
			if _, err := call(t.Context(), m.async, getUser, b, struct{ ID int }{2}); err != nil {
				t.Fatal(err)
			}
			var events []string
			for _, s := range r.spans() {
				for _, e := range s.Events {
					if e.Name == "failover" {
						events = append(events, fmt.Sprint(e.Attributes))
					}
				}
			}
			want := fmt.Sprint([]attribute.KeyValue{attribute.String("kit.failover.from", dead.URL()),
				attribute.String("kit.failover.to", r.faults.URL()), attribute.String("error.type", "connection_error")})
			if len(events) != 1 || events[0] != want {
				t.Errorf("failover events %v, want [%s]", events, want)
			}
		})
	}
}
