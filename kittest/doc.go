// Package kittest helps test code built on kit: an in-memory REST API with
// users, teams and posts served in every pagination style, and routes in
// the shapes of real APIs (a Stripe-like write that honours Idempotency-Key,
// a Slack-like method that answers its errors at 200) (NewAPI), a loopback
// test server with a client wired to it (NewServer), a server that counts
// the connections it accepts, to check that a client reuses them
// (NewCountingServer), an engine that records requests without touching
// the network (RecordingEngine), a log of a kit.Observer's events as
// text (EventLog), and a webhook sender that signs deliveries with any
// kitwebhook scheme, with a recorder of what a receiver got and answered
// (WebhookSender, WebhookRecorder).
//
//	func TestMyClient(t *testing.T) {
//		api := kittest.NewAPI()
//		_, client := kittest.NewServer(t, api)
//		users := kit.NewResource[User](client, "/users")
//		...
//	}
package kittest
