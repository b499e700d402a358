package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/kithttp/kit"
)

// Observers: what interceptors cannot see (a call by its declaration, each
// retry and why, a token renewal, a walk and its pages), counted here with
// a map and a mutex; kitotel feeds the same events to OpenTelemetry.

var failing = kit.Get[struct {
	Code       int
	RetryAfter int `kit:"retry_after"`
}, *kit.Response]("/status/{code}")

// tourMetrics counts events by series name: one series per declaration,
// however many ids the calls carry.
type tourMetrics struct {
	mu     sync.Mutex
	counts map[string]int
}

func (m *tourMetrics) add(series string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts[series]++
}

func observerTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Observers: metrics by declaration, retries, token renewals and pages, without a metrics library")
	m := &tourMetrics{counts: map[string]int{}}
	obs := kit.Observer{
		CallEnd: func(ctx context.Context, r kit.CallResult) {
			m.add(fmt.Sprintf("calls{%s, %d}", r.Endpoint, r.StatusCode))
		},
		Retry: func(ctx context.Context, r kit.RetryInfo) {
			why := "a connection error"
			if he, ok := errors.AsType[*kit.HTTPError](r.Err); ok {
				why = fmt.Sprint(he.StatusCode)
			}
			t.say("observer: %s attempt %d failed with %s; attempt %d in %v", r.Request.Endpoint, r.Attempt, why, r.Attempt+1, r.Wait)
			m.add(fmt.Sprintf("retries{%s}", r.Request.Endpoint))
		},
		TokenRenewal: func(ctx context.Context, r kit.TokenRenewalInfo) {
			t.say("observer: %s renewed the token (after a 401: %v)", r.Request.Endpoint, r.After401)
			m.add("token renewals")
		},
		WalkEnd: func(ctx context.Context, w kit.WalkResult) {
			t.say("observer: walk of %s over, %d pages", w.Endpoint, w.Pages)
		},
		Page: func(ctx context.Context, p kit.PageInfo) {
			m.add(fmt.Sprintf("pages{%s}", p.Endpoint))
		},
	}
	var c *kit.Client
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		r, err := login.Call(ctx, c, struct{ Credentials credentials }{credentials{"demo", "s3cret"}})
		return kit.Token{Value: r.AccessToken}, err
	})
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithObserver(obs), kit.WithAuth(auth),
		kit.WithRetry(kit.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}))
	if err != nil {
		return err
	}
	defer c.Close()

	for _, id := range []int{1, 2, 3} {
		if _, err := getUser.Call(ctx, c, struct{ ID int }{id}); err != nil {
			return err
		}
	}
	if _, err := me.Call(ctx, c, kit.NoParams{}); err != nil {
		return err
	}
	if _, err := failing.Call(ctx, c, struct {
		Code       int
		RetryAfter int `kit:"retry_after"`
	}{503, 0}); err == nil {
		return errors.New("GET /status/503 succeeded")
	}
	users := kit.NewResource[User](c, "/users", kit.PagedBy(kit.PageNumber{PageSize: 20}))
	for _, err := range users.All(ctx) {
		if err != nil {
			return err
		}
	}

	series := make([]string, 0, len(m.counts))
	for s := range m.counts {
		series = append(series, s)
	}
	slices.Sort(series)
	for _, s := range series {
		t.say("%-36s %d", s, m.counts[s])
	}
	t.say("kitotel.Instrument() turns these events into OpenTelemetry spans and metrics (examples/otel)")
	return nil
}
