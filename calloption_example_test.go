package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// The examples of real-API conventions run against kittest's Stripe-like
// /payments and Slack-like /conversations.info.

// NewPayment is the form body of a Stripe-like payment.
type NewPayment struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Source   string `json:"source,omitempty"`
}

// PaymentParams is a payment and kittest's scripts of failures.
type PaymentParams struct {
	LockTimeouts int `kit:"lock_timeouts,omitempty"` // kittest: answer 409 lock_timeout first
	LoseResponse int `kit:"lose_response,omitempty"` // kittest: cut the connection after paying
	Payment      NewPayment
}

var createPayment = kit.Post[PaymentParams, kit.Result[kittest.Payment]]("/payments", kit.FormBody())

type echoed struct {
	Headers map[string][]string `json:"headers"`
}

var echo = kit.Get[kit.NoParams, echoed]("/echo", kit.WithHeader("X-Tenant", "endpoint"))

// Call options are the trailing arguments of any call: here a header that
// replaces the endpoint's for this one call, and a timeout. They apply to
// every attempt, every page and every reconnection of what the call sends.
func ExampleCallOption() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithHeader("X-Tenant", "client"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	ctx := context.Background()

	e, err := echo.Call(ctx, c, kit.NoParams{})
	fmt.Println(e.Headers["x-tenant"], err)
	e, err = echo.Call(ctx, c, kit.NoParams{}, kit.WithHeader("X-Tenant", "acme"), kit.WithTimeout(5*time.Second))
	fmt.Println(e.Headers["x-tenant"], err)

	type User struct {
		Name string `json:"name"`
	}
	users := kit.NewResource[User](c, "/users")
	u, err := users.Get(ctx, 1, kit.WithHeader("X-Request-Source", "example"))
	fmt.Println(u.Name, err)
	// Output:
	// [endpoint] <nil>
	// [acme] <nil>
	// Ada Lovelace <nil>
}

// WithIdempotencyHeader makes writes safe to retry: every write carries a
// random key in the header it names ("" means Idempotency-Key). Here the
// server makes the payment and the connection drops before its answer
// arrives: the retry carries the same key, so the server answers with the
// first response instead of paying twice.
func ExampleWithIdempotencyHeader() {
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	c, err := kit.NewClient(srv.URL,
		kit.WithIdempotencyHeader(""), // a random key per write, in Idempotency-Key
		kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	r, err := createPayment.Call(context.Background(), c, PaymentParams{
		LoseResponse: 1,
		Payment:      NewPayment{Amount: 2000, Currency: "eur"},
	})
	fmt.Println(r.Value.ID, r.Value.Amount, r.Value.Currency, err)
	fmt.Println("replayed:", r.Header.Get("Idempotent-Replayed"))
	fmt.Println("payments made:", api.Stats().Payments)
	// Output:
	// pay_000001 2000 eur <nil>
	// replayed: true
	// payments made: 1
}

// RetryIf decides from the response: Stripe says in a header whether a
// failure is worth another attempt. A 409 lock_timeout says yes (409 is not
// among the default Statuses); a declined card says no.
func ExampleRetryPolicy_retryIf() {
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	stripeRetry := kit.RetryPolicy{BaseDelay: time.Millisecond, RetryIf: func(err error) bool {
		var he *kit.HTTPError
		if errors.As(err, &he) && he.Header.Get("Stripe-Should-Retry") != "" {
			return he.Header.Get("Stripe-Should-Retry") == "true"
		}
		return kit.Retryable(err)
	}}
	c, err := kit.NewClient(srv.URL, kit.WithIdempotencyHeader(""), kit.WithRetry(stripeRetry))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	ctx := context.Background()

	r, err := createPayment.Call(ctx, c, PaymentParams{LockTimeouts: 2, Payment: NewPayment{Amount: 500, Currency: "usd"}})
	fmt.Println(r.Value.Status, err, "after", api.Stats().Requests, "requests")

	_, err = createPayment.Call(ctx, c, PaymentParams{Payment: NewPayment{Amount: 500, Currency: "usd", Source: "tok_chargeDeclined"}})
	fmt.Println(kit.Retryable(err), "after", api.Stats().Requests, "requests")
	// Output:
	// succeeded <nil> after 3 requests
	// false after 4 requests
}

// A Slack-like method answers every error at HTTP 200, as
// {"ok":false,"error":"channel_not_found"}, and wraps its result, as
// {"ok":true,"channel":{…}}. WithResultAt unwraps the result, and
// WithBodyCheck turns ok:false into an *HTTPError that wraps the check's
// error.
func ExampleWithBodyCheck() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	type info struct {
		Body struct {
			Channel string `json:"channel"`
		}
	}
	channelInfo := kit.Post[info, kittest.SlackChannel]("/conversations.info",
		kit.WithResultAt("channel"),
		kit.WithBodyCheck((*kittest.SlackStatus).Check))

	var p info
	p.Body.Channel = "C2"
	ch, err := channelInfo.Call(context.Background(), c, p)
	fmt.Println(ch.ID, ch.Name, err)

	p.Body.Channel = "C42"
	_, err = channelInfo.Call(context.Background(), c, p)
	var se *kittest.SlackError
	var he *kit.HTTPError
	fmt.Println(errors.As(err, &se), se.Code, errors.As(err, &he), he.StatusCode)
	// Output:
	// C2 payments <nil>
	// true channel_not_found true 200
}

// WithErrorModelAt decodes an error model from a key of the body, and fills
// its fields tagged kit:",status" and kit:"Request-Id,header" from the
// response: kittest.StripeError has both.
func ExampleWithErrorModelAt() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithErrorModelAt[kittest.StripeError]("error"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	r, err := createPayment.Call(context.Background(), c, PaymentParams{
		Payment: NewPayment{Amount: 500, Currency: "usd", Source: "tok_chargeDeclined"},
	})
	var se *kittest.StripeError
	if errors.As(err, &se) {
		fmt.Println(se.Type, se.Code, se.Status, se.RequestID, se.ShouldRetry)
	}
	fmt.Println(r.StatusCode, r.Header.Get("Request-Id")) // a Result returned with an error keeps them
	// Output:
	// card_error card_declined 402 req_000001 false
	// 402 req_000001
}
