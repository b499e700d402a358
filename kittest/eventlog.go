package kittest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/kithttp/kit"
)

// EventLog records the events of a kit.Observer as lines of text, so that a
// test can check what a client did (that a call was retried, a token
// renewed, a walk fetched three pages) and test code built on the observer
// API against the same events:
//
//	var log kittest.EventLog
//	_, c := kittest.NewServer(t, nil, kit.WithObserver(log.Observer()))
//	...
//	got := log.Lines()
//
// The lines name the declaration, never the URL:
//
//	call start GET /users/{id}
//	call end GET /users/{id}: 200
//	call end GET /users/{id}: 503 (error)
//	call end GET /users/{id}: 200 (error)
//	call end GET /events: 200 (streamed)
//	retry GET /users/{id}: attempt 1 failed with 503, attempt 2 follows
//	retry GET /users/{id}: attempt 1 failed with a connection error, attempt 2 follows
//	token renewal GET /me (after a 401)
//	token renewal GET /me (failed)
//	cache hit GET /users/{id} (revalidated)
//	walk start GET /users
//	page GET /users: 1, 20 records
//	walk end GET /users: 3 pages (error)
//	stream end GET /events: 10 records
//
// An EventLog's zero value is ready to use and safe for concurrent use
// (events of concurrent calls interleave in the order they happen).
type EventLog struct {
	mu    sync.Mutex
	lines []string
}

// Observer returns an observer that records every event in l; give it to
// kit.WithObserver.
func (l *EventLog) Observer() kit.Observer {
	return kit.Observer{
		CallStart: func(ctx context.Context, c kit.CallInfo) context.Context {
			l.add("call start " + c.Endpoint)
			return nil
		},
		CallEnd: func(ctx context.Context, c kit.CallResult) {
			line := "call end " + c.Endpoint + ": "
			if c.StatusCode != 0 {
				line += fmt.Sprint(c.StatusCode)
			} else {
				line += "no response"
			}
			if c.Err != nil {
				line += " (error)"
			}
			if c.Streamed {
				line += " (streamed)"
			}
			l.add(line)
		},
		Retry: func(ctx context.Context, r kit.RetryInfo) {
			why := "a connection error"
			if he, ok := errors.AsType[*kit.HTTPError](r.Err); ok {
				why = fmt.Sprint(he.StatusCode)
			}
			l.add(fmt.Sprintf("retry %s: attempt %d failed with %s, attempt %d follows", r.Request.Endpoint, r.Attempt, why, r.Attempt+1))
		},
		TokenRenewal: func(ctx context.Context, t kit.TokenRenewalInfo) {
			line := "token renewal " + t.Request.Endpoint
			if t.After401 {
				line += " (after a 401)"
			}
			if t.Err != nil {
				line += " (failed)"
			}
			l.add(line)
		},
		CacheHit: func(ctx context.Context, h kit.CacheHitInfo) {
			line := "cache hit " + h.Request.Endpoint
			if h.Revalidated {
				line += " (revalidated)"
			}
			l.add(line)
		},
		WalkStart: func(ctx context.Context, w kit.WalkInfo) context.Context {
			l.add("walk start " + w.Endpoint)
			return nil
		},
		Page: func(ctx context.Context, p kit.PageInfo) {
			l.add(fmt.Sprintf("page %s: %d, %d records", p.Endpoint, p.Page, p.Records))
		},
		WalkEnd: func(ctx context.Context, w kit.WalkResult) {
			line := fmt.Sprintf("walk end %s: %d pages", w.Endpoint, w.Pages)
			if w.Err != nil {
				line += " (error)"
			}
			l.add(line)
		},
		StreamEnd: func(ctx context.Context, s kit.StreamResult) {
			line := fmt.Sprintf("stream end %s: %d records", s.Request.Endpoint, s.Records)
			if s.Err != nil {
				line += " (error)"
			}
			l.add(line)
		},
	}
}

// Lines returns the events recorded so far, oldest first.
func (l *EventLog) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

// Reset forgets the events recorded so far.
func (l *EventLog) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = nil
}

func (l *EventLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}
