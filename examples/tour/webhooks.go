package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/kithttp/kit/kittest"
	"github.com/kithttp/kit/kitwebhook"
)

// Webhooks: the other half of an integration. A receiver verifies each
// delivery, drops duplicates, routes by event type into Go types; kittest's
// sender plays the API.

type userCreatedEvent struct {
	Type string `json:"type"`
	Data struct {
		Name string `json:"name"`
	} `json:"data"`
}

type invoicePaidEvent struct {
	Type string `json:"type"`
	Data struct {
		Amount int `json:"amount"`
	} `json:"data"`
}

func webhooksTour(ctx context.Context, t *tour) error {
	t.section("Webhooks: verified, deduplicated, typed (kitwebhook)")
	scheme, err := kitwebhook.StandardWebhooks("whsec_dG91ci1zZWNyZXQtZm9yLWtpdHdlYmhvb2s=")
	if err != nil {
		return err
	}
	var outcomes []string
	h, err := kitwebhook.NewHandler(scheme, kitwebhook.WithObserver(kitwebhook.Observer{
		DeliveryEnd: func(_ context.Context, r kitwebhook.DeliveryResult) {
			outcomes = append(outcomes, string(r.Outcome))
		},
	}))
	if err != nil {
		return err
	}
	kitwebhook.Handle(h, "user.created", func(_ context.Context, d *kitwebhook.Delivery[userCreatedEvent]) error {
		t.say("  handler: %s %s, welcome %s", d.ID, d.Event, d.Payload.Data.Name)
		return nil
	})
	kitwebhook.Handle(h, "invoice.paid", func(_ context.Context, d *kitwebhook.Delivery[invoicePaidEvent]) error {
		t.say("  handler: %s %s, %d cents", d.ID, d.Event, d.Payload.Data.Amount)
		return nil
	})
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	sender := &kittest.WebhookSender{URL: srv.URL + "/webhooks", Scheme: scheme, Client: srv.Client()}

	show := func(what string) func(kittest.WebhookReply, error) error {
		return func(reply kittest.WebhookReply, err error) error {
			if err != nil {
				return err
			}
			text := reply.Body
			if text == "" {
				text = http.StatusText(reply.Status)
			}
			t.say("%-44s → %d %s", what, reply.Status, text)
			return nil
		}
	}
	var ev userCreatedEvent
	ev.Type, ev.Data.Name = "user.created", "Ada"
	if err := show("a signed user.created (Standard Webhooks v1)")(sender.Send(ctx, "msg_1", ev)); err != nil {
		return err
	}
	var inv invoicePaidEvent
	inv.Type, inv.Data.Amount = "invoice.paid", 4200
	if err := show("a signed invoice.paid, its own Go type")(sender.Send(ctx, "msg_2", inv)); err != nil {
		return err
	}
	if err := show("msg_2 again (the sender retried)")(sender.Resend(ctx)); err != nil {
		return err
	}
	if err := show("an event type nothing handles")(sender.SendBody(ctx, "msg_3", []byte(`{"type":"team.deleted"}`))); err != nil {
		return err
	}
	stale := &kittest.WebhookSender{URL: sender.URL, Scheme: scheme, Client: srv.Client(),
		Now: func() time.Time { return time.Now().Add(-time.Hour) }}
	if err := show("signed an hour ago (a replay)")(stale.Send(ctx, "msg_4", ev)); err != nil {
		return err
	}
	forger, err := kitwebhook.StandardWebhooks("whsec_Z3Vlc3NlZC1ieS1hbi1hdHRhY2tlcg==")
	if err != nil {
		return err
	}
	forged := &kittest.WebhookSender{URL: sender.URL, Scheme: forger, Client: srv.Client()}
	if err := show("signed with a guessed secret")(forged.Send(ctx, "msg_5", ev)); err != nil {
		return err
	}
	t.say("outcomes seen by the observer: %v", outcomes)
	gh, err := kitwebhook.GitHub("It's a Secret to Everybody")
	if err != nil {
		return err
	}
	hdr := http.Header{}
	gh.Sign(hdr, []byte("Hello, World!"), kitwebhook.Meta{})
	t.say("GitHub's documented example signs %q as %s", "Hello, World!", hdr.Get("X-Hub-Signature-256"))
	if _, err := kitwebhook.Stripe(""); err != nil {
		t.say("an unset secret is caught at start-up: %v", err)
	}
	return nil
}
