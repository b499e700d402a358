// Package kitwebhook receives an API's webhooks: it verifies each delivery's
// signature, drops deliveries it has already taken, decodes the payload into
// your type and calls your function, answering the sender as it expects.
//
// Pick the sender's scheme, register a function per event type, mount the
// handler:
//
//	scheme, err := kitwebhook.Stripe(os.Getenv("STRIPE_WEBHOOK_SECRET"))
//	...
//	h, err := kitwebhook.NewHandler(scheme, kitwebhook.WithIDKey("id"))
//	...
//	kitwebhook.Handle(h, "invoice.paid", func(ctx context.Context, d *kitwebhook.Delivery[Invoice]) error {
//		return markPaid(ctx, d.Payload.Data.Object.ID)
//	})
//	mux.Handle("POST /webhooks/stripe", h)
//
// The schemes are [StandardWebhooks] (v1 HMAC-SHA256 and v1a ed25519),
// [GitHub], [Stripe], [Slack], and [HMAC] for a sender's own. Every one
// compares signatures in constant time, accepts several active secrets
// (rotation), and refuses a signed timestamp further than the tolerance from
// now (WithTolerance, five minutes by default). The body is read once, up to
// a limit (WithMaxBodySize), before anything else; errors say which check
// failed and never carry a secret or the expected signature.
//
// Replay protection: a [Handler] remembers the ids of the deliveries it took
// (a [SeenStore]; in memory by default, kitredis.NewSeenStore for a fleet), so
// a delivery sent twice is handled once. [Unwrap] verifies and decodes one
// request for receivers that route themselves.
//
// kittest.WebhookSender signs and sends deliveries with any scheme, so a
// receiver is tested without the real API. A Handler is observable
// ([Observer]; kitotel.Webhooks makes a server span per delivery).
package kitwebhook
