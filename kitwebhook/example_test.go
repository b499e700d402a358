package kitwebhook_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/kithttp/kit/kittest"
	"github.com/kithttp/kit/kitwebhook"
)

// A receiver of Stripe-style webhooks: verified, deduplicated by the
// event's id, routed by its type and decoded. kittest's sender plays
// Stripe.
func Example() {
	type Invoice struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			Amount int `json:"amount"`
		} `json:"data"`
	}
	scheme, err := kitwebhook.Stripe("whsec_example")
	if err != nil {
		log.Fatal(err)
	}
	h, err := kitwebhook.NewHandler(scheme, kitwebhook.WithIDKey("id"))
	if err != nil {
		log.Fatal(err)
	}
	kitwebhook.Handle(h, "invoice.paid", func(ctx context.Context, d *kitwebhook.Delivery[Invoice]) error {
		fmt.Printf("%s: invoice %s paid, %d cents\n", d.Event, d.ID, d.Payload.Data.Amount)
		return nil
	})
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/stripe", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := context.Background()
	stripe := &kittest.WebhookSender{URL: srv.URL + "/webhooks/stripe", Scheme: scheme}
	inv := Invoice{ID: "evt_1", Type: "invoice.paid"}
	inv.Data.Amount = 4200
	reply, _ := stripe.Send(ctx, "", inv)
	fmt.Println("first delivery:", reply.Status)
	reply, _ = stripe.Resend(ctx)
	fmt.Println("the same again:", reply.Status, reply.Body)

	forger, _ := kitwebhook.Stripe("whsec_guessed")
	reply, _ = (&kittest.WebhookSender{URL: stripe.URL, Scheme: forger}).Send(ctx, "", inv)
	fmt.Println("forged:", reply.Status, reply.Body)
	// Output:
	// invoice.paid: invoice evt_1 paid, 4200 cents
	// first delivery: 204
	// the same again: 200 duplicate delivery; acknowledged
	// forged: 401 kitwebhook: Stripe: Stripe-Signature: no signature matches (checked 1)
}

// Verifying one request in a handler of your own, with Unwrap.
func ExampleUnwrap() {
	scheme, err := kitwebhook.GitHub("It's a Secret to Everybody")
	if err != nil {
		log.Fatal(err)
	}
	type Push struct {
		Ref string `json:"ref"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := kitwebhook.Unwrap[Push](r, scheme, kitwebhook.WithEventHeader("X-GitHub-Event"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		fmt.Printf("%s %s to %s\n", d.ID, d.Event, d.Payload.Ref)
	}))
	defer srv.Close()
	github := &kittest.WebhookSender{URL: srv.URL, Scheme: scheme, Header: http.Header{"X-GitHub-Event": {"push"}}}
	github.Send(context.Background(), "72d3162e", Push{Ref: "refs/heads/main"})
	// Output:
	// 72d3162e push to refs/heads/main
}
