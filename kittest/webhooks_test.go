package kittest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kithttp/kit/kittest"
	"github.com/kithttp/kit/kitwebhook"
)

func TestWebhookSenderAndRecorder(t *testing.T) {
	scheme, err := kitwebhook.StandardWebhooks("whsec_c2VjcmV0LWZvci1raXR0ZXN0LXdlYmhvb2tz")
	if err != nil {
		t.Fatal(err)
	}
	h, err := kitwebhook.NewHandler(scheme)
	if err != nil {
		t.Fatal(err)
	}
	type event struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	var names []string
	kitwebhook.Handle(h, "user.created", func(_ context.Context, d *kitwebhook.Delivery[event]) error {
		names = append(names, d.Payload.Name)
		return nil
	})
	rec := &kittest.WebhookRecorder{Next: h}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	sender := &kittest.WebhookSender{URL: srv.URL, Scheme: scheme, Client: srv.Client()}
	ctx := context.Background()

	reply, err := sender.Send(ctx, "msg_1", event{Type: "user.created", Name: "Ada"})
	if err != nil || reply.Status != http.StatusNoContent {
		t.Fatalf("Send: %+v %v", reply, err)
	}
	reply, err = sender.Resend(ctx)
	if err != nil || reply.Status != http.StatusOK || reply.Body != "duplicate delivery; acknowledged" {
		t.Fatalf("Resend: %+v %v", reply, err)
	}
	sender.Now = func() time.Time { return time.Now().Add(-time.Hour) }
	reply, err = sender.Send(ctx, "msg_2", event{Type: "user.created", Name: "Old"})
	if err != nil || reply.Status != http.StatusUnauthorized {
		t.Fatalf("an old delivery: %+v %v", reply, err)
	}
	got := rec.Deliveries()
	if len(got) != 3 || got[0].Status != 204 || got[1].Status != 200 || got[2].Status != 401 ||
		got[0].Header.Get("Webhook-Id") != "msg_1" || string(got[1].Body) != string(got[0].Body) {
		t.Fatalf("recorded %+v", got)
	}
	if len(names) != 1 || names[0] != "Ada" {
		t.Fatalf("handled %q", names)
	}
	if _, err := (&kittest.WebhookSender{URL: srv.URL}).SendBody(ctx, "x", nil); err == nil {
		t.Fatal("a sender without a scheme: no error")
	}
}
