package kit_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

func TestObserverTimings(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			fs := kittest.NewFaultServer(t, nil)
			fs.Script(503)
			var mu sync.Mutex
			var ends []kit.CallResult
			var retries []kit.RetryInfo
			o := kit.Observer{
				MeasureTimings: true,
				CallEnd: func(_ context.Context, r kit.CallResult) {
					mu.Lock()
					ends = append(ends, r)
					mu.Unlock()
				},
				Retry: func(_ context.Context, r kit.RetryInfo) {
					mu.Lock()
					retries = append(retries, r)
					mu.Unlock()
				},
			}
			c := tw.client(t, fs.URL(), kit.WithObserver(o), kit.WithRetry(rtFastRetry(2)))
			if _, err := twinCall(t.Context(), tw, ltGetUser, c, struct{ ID int }{1}); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(ends) != 1 || len(retries) != 1 {
				t.Fatalf("%d CallEnd, %d Retry; want 1 and 1", len(ends), len(retries))
			}
			// FaultServer turns keep-alives off: each attempt dials.
			for name, tm := range map[string]kit.Timings{"CallResult": ends[0].Timings, "RetryInfo": retries[0].Timings} {
				if tm.Connect <= 0 || tm.FirstByte <= 0 || tm.Total < tm.FirstByte || tm.Reused {
					t.Errorf("%s.Timings = %+v: want a connection, a first byte, and a total past it", name, tm)
				}
				if tm.DNS != 0 || tm.TLS != 0 {
					t.Errorf("%s.Timings = %+v: no DNS nor TLS to 127.0.0.1 over http", name, tm)
				}
			}
		})
	}
}

func TestObserverWithoutMeasureTimings(t *testing.T) {
	t.Parallel()
	_, c := kittest.NewServer(t, kittest.NewAPI(), kit.WithObserver(kit.Observer{CallEnd: func(_ context.Context, r kit.CallResult) {
		if r.Timings != (kit.Timings{}) {
			t.Errorf("Timings = %+v without MeasureTimings", r.Timings)
		}
	}}))
	if _, err := ltGetUser.Call(t.Context(), c, struct{ ID int }{1}); err != nil {
		t.Fatal(err)
	}
}
