package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// resilienceTour shows the circuit breaker, hedging and compression
// against the demo API.
func resilienceTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Resilience: a circuit breaker, hedged requests, compressed bodies")

	// The breaker: kittest.InjectStatuses makes the first three attempts
	// 503s (as a failing server would); the circuit opens after three.
	var changes []string
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc),
		kit.WithAttemptInterceptors(kittest.InjectStatuses(503, 503, 503)),
		kit.WithCircuitBreaker(kit.CircuitBreaker{ConsecutiveFailures: 3, CoolDown: time.Minute}),
		kit.WithObserver(kit.Observer{Circuit: func(_ context.Context, ci kit.CircuitInfo) {
			changes = append(changes, fmt.Sprintf("%v -> %v", ci.From, ci.To))
		}}))
	if err != nil {
		return err
	}
	defer c.Close()
	for range 3 {
		if _, err := getUser.Call(ctx, c, struct{ ID int }{1}); err == nil {
			return errors.New("an injected 503 succeeded")
		}
	}
	_, err = getUser.Call(ctx, c, struct{ ID int }{1})
	var open *kit.CircuitOpenError
	if !errors.As(err, &open) {
		return fmt.Errorf("the 4th call: %v, want a *kit.CircuitOpenError", err)
	}
	t.say("three 503s opened the circuit (%v); the 4th call failed at once, nothing sent: %v", changes, err)

	// Hedging: the demo API behind a handler whose first answer never
	// comes; the hedge sent after 20 ms answers.
	var n atomic.Int32
	api := kittest.NewAPI()
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			<-r.Context().Done()
			return
		}
		api.ServeHTTP(w, r)
	}))
	defer slow.Close()
	var hedges atomic.Int32
	h, err := kit.NewClient(slow.URL, kit.WithHedging(20*time.Millisecond, 2),
		kit.WithObserver(kit.Observer{Hedge: func(context.Context, kit.HedgeInfo) { hedges.Add(1) }}))
	if err != nil {
		return err
	}
	defer h.Close()
	u, err := getUser.Call(ctx, h, struct{ ID int }{1})
	if err != nil {
		return err
	}
	t.say("a GET whose first attempt stalled: %s, from a hedge (%d sent); the stalled attempt was cancelled", u.Name, hedges.Load())

	// Compression: the demo API's answers encoded with zstd.
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		return err
	}
	defer enc.Close()
	zsrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, r)
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Encoding", "zstd")
		w.Header().Del("Content-Length")
		w.WriteHeader(rec.Code)
		w.Write(enc.EncodeAll(rec.Body.Bytes(), nil))
	}))
	defer zsrv.Close()
	z, err := kit.NewClient(zsrv.URL, kit.WithResponseCompression())
	if err != nil {
		return err
	}
	defer z.Close()
	if u, err = getUser.Call(ctx, z, struct{ ID int }{2}); err != nil {
		return err
	}
	t.say("WithResponseCompression asked for zstd, br or gzip; a zstd answer decoded: %s", u.Name)
	return nil
}
