package kitwebhook

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/kithttp/kit/internal/jsonpath"
)

// DefaultMaxBodySize is the largest body a receiver reads unless
// WithMaxBodySize says otherwise: 5 MiB. The body is read before it is
// verified, so the limit is what an unauthenticated sender can make a
// receiver hold.
const DefaultMaxBodySize = 5 << 20

// Option configures a [Handler] or [Unwrap].
type Option interface{ apply(*config) error }

type config struct {
	tolerance  time.Duration
	maxBody    int64
	store      SeenStore
	seenTTL    time.Duration
	idKey      jsonpath.Path
	eventKey   jsonpath.Path
	eventHdr   string
	timeout    time.Duration
	observers  []Observer
	now        func() time.Time
	storeGiven bool
}

func newConfig(opts []Option) (config, error) {
	c := config{
		tolerance: DefaultTolerance,
		maxBody:   DefaultMaxBodySize,
		seenTTL:   DefaultSeenTTL,
		eventKey:  jsonpath.Path{"type"},
		now:       time.Now,
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(&c); err != nil {
			return c, err
		}
	}
	if c.idKey != nil && c.eventKey != nil && !slices.Equal(c.idKey, c.eventKey) &&
		(prefixOf(c.idKey, c.eventKey) || prefixOf(c.eventKey, c.idKey)) {
		return c, fmt.Errorf("kitwebhook: the id key %q and the event key %q overlap", c.idKey, c.eventKey)
	}
	return c, nil
}

func prefixOf(p, q jsonpath.Path) bool {
	return len(p) <= len(q) && slices.Equal(p, q[:len(p)])
}

type optionFunc func(*config) error

func (f optionFunc) apply(c *config) error { return f(c) }

// WithTolerance sets how far a signed timestamp may be from the time of
// receipt, in the past or the future (DefaultTolerance when not given). A
// non-positive d turns the check off: only for replaying stored deliveries,
// never for a receiver on the network.
func WithTolerance(d time.Duration) Option {
	return optionFunc(func(c *config) error { c.tolerance = d; return nil })
}

// WithMaxBodySize sets the largest body read (DefaultMaxBodySize when not
// given); a larger one is refused with 413 and ErrTooLarge, unread past the
// limit. n must be positive.
func WithMaxBodySize(n int64) Option {
	return optionFunc(func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("kitwebhook: WithMaxBodySize(%d): want a positive size", n)
		}
		c.maxBody = n
		return nil
	})
}

// WithSeenStore sets where a Handler remembers the ids of the deliveries
// it took, and for how long (DefaultSeenTTL when ttl <= 0). By default a
// Handler has its own NewMemorySeenStore; share a kitredis.NewSeenStore
// across a fleet. A nil store turns replay protection off. Deliveries
// without an id (see WithIDKey) are not deduplicated.
func WithSeenStore(s SeenStore, ttl time.Duration) Option {
	return optionFunc(func(c *config) error {
		c.store, c.storeGiven = s, true
		if ttl > 0 {
			c.seenTTL = ttl
		}
		return nil
	})
}

// WithIDKey names the body's member (a dotted path, such as "id" or
// "event.id") that holds the delivery's id when the scheme's headers carry
// none (Stripe: "id"; Slack: "event_id").
func WithIDKey(path string) Option {
	return optionFunc(func(c *config) error {
		p, err := jsonpath.Parse(path)
		if err != nil || len(p) == 0 {
			return fmt.Errorf("kitwebhook: WithIDKey(%q): not a dotted path", path)
		}
		c.idKey = p
		return nil
	})
}

// WithEventKey names the body's member (a dotted path) whose string value
// is the delivery's event type, which chooses the function [Handle]
// registered for it: "type" when not given (Standard Webhooks, Stripe).
func WithEventKey(path string) Option {
	return optionFunc(func(c *config) error {
		p, err := jsonpath.Parse(path)
		if err != nil || len(p) == 0 {
			return fmt.Errorf("kitwebhook: WithEventKey(%q): not a dotted path", path)
		}
		c.eventKey, c.eventHdr = p, ""
		return nil
	})
}

// WithEventHeader takes the event type from a header instead of the body,
// such as GitHub's "X-GitHub-Event".
func WithEventHeader(name string) Option {
	return optionFunc(func(c *config) error {
		if name == "" {
			return fmt.Errorf("kitwebhook: WithEventHeader: empty header name")
		}
		c.eventHdr, c.eventKey = http.CanonicalHeaderKey(name), nil
		return nil
	})
}

// WithTimeout bounds the time a registered function may take: its context
// ends after d, and when it returns the context's error the delivery is
// answered 503 so that the sender retries. No bound when not given (the
// request's context still ends when the sender hangs up).
func WithTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("kitwebhook: WithTimeout(%v): want a positive duration", d)
		}
		c.timeout = d
		return nil
	})
}

// WithObserver installs o's hooks. It may be given several times; every
// observer sees every delivery, in the order given.
func WithObserver(o Observer) Option {
	return optionFunc(func(c *config) error { c.observers = append(c.observers, o); return nil })
}

// WithNow sets the clock the timestamp check reads (time.Now when not
// given): for tests that replay recorded deliveries.
func WithNow(now func() time.Time) Option {
	return optionFunc(func(c *config) error {
		if now == nil {
			return fmt.Errorf("kitwebhook: WithNow: nil clock")
		}
		c.now = now
		return nil
	})
}
