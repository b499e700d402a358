package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// Real APIs, as they are: the option rule (one request option at client,
// declaration and call, the nearest winning), a Stripe-like write made
// safe to retry by an idempotency key, retry decisions that read the
// server's hints, errors at a key with their Request-Id, and a Slack-like
// method that answers its errors at 200.

// newPayment is a Stripe-like payment, sent form-encoded.
type newPayment struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Source   string `json:"source,omitempty"`
}

type paymentParams struct {
	LockTimeouts int `kit:"lock_timeouts,omitempty"` // kittest's script: a 409 lock_timeout first
	LoseResponse int `kit:"lose_response,omitempty"` // kittest's script: pay, then cut the connection
	Payment      newPayment
}

type channelParams struct {
	Body struct {
		Channel string `json:"channel"`
	}
}

// Two declarations of /echo: one says nothing of X-Tour-Level, the other
// gives it at the declaration level.
var (
	echoPlain    = kit.Get[kit.NoParams, echoed]("/echo")
	echoDeclared = kit.Get[kit.NoParams, echoed]("/echo", kit.WithHeader("X-Tour-Level", "declaration"))
)

var (
	createPayment = kit.Post[paymentParams, kit.Result[kittest.Payment]]("/payments", kit.FormBody())
	channelInfo   = kit.Post[channelParams, kittest.SlackChannel]("/conversations.info",
		kit.WithResultAt("channel"),                     // {"ok":true,"channel":{…}}
		kit.WithBodyCheck((*kittest.SlackStatus).Check)) // {"ok":false,"error":…} at 200 is an error
)

// stripeShouldRetry is the RetryIf of a Stripe client: the server's
// Stripe-Should-Retry header decides when it is there.
func stripeShouldRetry(err error) bool {
	var he *kit.HTTPError
	if errors.As(err, &he) {
		switch he.Header.Get("Stripe-Should-Retry") {
		case "true":
			return true
		case "false":
			return false
		}
	}
	return kit.Retryable(err)
}

func conventionsTour(ctx context.Context, t *tour, api *kittest.API, baseURL string, hc *http.Client) error {
	t.section("Real APIs: the option rule, safe retries, envelopes")

	// The option rule: a request option (here WithHeader; WithTimeout,
	// WithRetry, WithErrorModel, ... alike) works on the client, on a
	// declaration and on a call, and the nearest wins. Options that build
	// the client (WithHTTPClient, WithAuth, WithLimits, ...) are the
	// client's only.
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc),
		kit.WithHeader("X-Tour-Level", "client"), kit.WithTimeout(10*time.Second))
	if err != nil {
		return err
	}
	defer c.Close()
	level := func(e echoed, err error) (string, error) { return strings.Join(e.Headers["x-tour-level"], ","), err }
	fromClient, err := level(echoPlain.Call(ctx, c, kit.NoParams{}))
	if err != nil {
		return err
	}
	fromDecl, err := level(echoDeclared.Call(ctx, c, kit.NoParams{}))
	if err != nil {
		return err
	}
	fromCall, err := level(echoDeclared.Call(ctx, c, kit.NoParams{}, kit.WithHeader("X-Tour-Level", "call")))
	if err != nil {
		return err
	}
	t.say("the option rule, one WithHeader at three levels, the nearest wins: the server saw %q (client only), "+
		"%q (declaration over client), %q (call over both)", fromClient, fromDecl, fromCall)
	u, err := getUser.Call(ctx, c, struct{ ID int }{1}, kit.WithHeader("X-Request-Id", "tour-42"), kit.WithTimeout(2*time.Second))
	if err != nil {
		return err
	}
	t.say("one call with its own header and timeout (2s here, over the client's 10s): %s", u.Name)

	// A Stripe-like client: every write gets an idempotency key, the
	// server's hints decide retries, errors are decoded from "error".
	var mu sync.Mutex
	var keys []string
	seeKey := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			mu.Lock()
			keys = append(keys, req.Header.Get("Idempotency-Key"))
			mu.Unlock()
			return next(ctx, req)
		}
	}
	stripe, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc),
		kit.WithIdempotencyHeader(""),
		kit.WithRetry(kit.RetryPolicy{BaseDelay: 5 * time.Millisecond, RetryIf: stripeShouldRetry}),
		kit.WithErrorModelAt[kittest.StripeError]("error"),
		kit.WithAttemptInterceptors(seeKey))
	if err != nil {
		return err
	}
	defer stripe.Close()
	r, err := createPayment.Call(ctx, stripe, paymentParams{
		LockTimeouts: 1, // the first attempt: 409 lock_timeout, Stripe-Should-Retry: true
		LoseResponse: 1, // the second: paid, but the answer is lost
		Payment:      newPayment{Amount: 2000, Currency: "eur"},
	})
	if err != nil {
		return err
	}
	mu.Lock()
	one := len(keys) > 0
	for _, k := range keys {
		one = one && k == keys[0]
	}
	key := keys[0]
	mu.Unlock()
	// (net/http itself may resend the request whose answer was lost: it
	// does so for a request with an Idempotency-Key on a reused connection.)
	st := api.Stats()
	t.say("a payment retried safely: %d requests with one key %s… reached the server; %s of %d %s, Idempotent-Replayed: %s; payments made: %d",
		st.ByPath["POST /payments"], key[:8], r.Value.ID, r.Value.Amount, strings.ToUpper(r.Value.Currency), r.Header.Get("Idempotent-Replayed"), st.Payments)
	if !one {
		return fmt.Errorf("the attempts of one call carried different keys: %v", keys)
	}

	_, err = createPayment.Call(ctx, stripe, paymentParams{Payment: newPayment{Amount: 500, Currency: "usd", Source: "tok_chargeDeclined"}})
	var se *kittest.StripeError
	if !errors.As(err, &se) {
		return fmt.Errorf("a declined card: %v", err)
	}
	t.say("a declined card, not retried (Stripe-Should-Retry: %s): %s %s, status %d, Request-Id %s", se.ShouldRetry, se.Type, se.Code, se.Status, se.RequestID)

	// A Slack-like method: the result in an envelope, errors at 200.
	var p channelParams
	p.Body.Channel = "C2"
	ch, err := channelInfo.Call(ctx, c, p)
	if err != nil {
		return err
	}
	t.say("Slack-like conversations.info C2, unwrapped from \"channel\": #%s, %d members", ch.Name, ch.NumMembers)
	p.Body.Channel = "C404"
	_, err = channelInfo.Call(ctx, c, p)
	var slackErr *kittest.SlackError
	var he *kit.HTTPError
	if !errors.As(err, &slackErr) || !errors.As(err, &he) {
		return fmt.Errorf("ok:false: %v", err)
	}
	t.say("an ok:false answer at HTTP %d is an error: *kittest.SlackError %s", he.StatusCode, slackErr.Code)
	return nil
}
