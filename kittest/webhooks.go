package kittest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/kithttp/kit/kitwebhook"
)

// WebhookSender signs deliveries with a kitwebhook.Scheme and posts them to
// a receiver, as an API's webhook sender does: tests of a receiver need
// neither the real API nor its secrets. It is safe for concurrent use.
//
//	sender := &kittest.WebhookSender{URL: srv.URL + "/webhooks", Scheme: scheme}
//	reply, err := sender.Send(ctx, "msg_1", Event{Type: "user.created"})
type WebhookSender struct {
	// URL is the receiver's.
	URL string
	// Scheme signs each delivery (with its first secret).
	Scheme kitwebhook.Scheme
	// Client sends the deliveries; nil means http.DefaultClient.
	Client *http.Client
	// Header holds headers sent with every delivery besides the
	// scheme's, such as GitHub's X-GitHub-Event.
	Header http.Header
	// Now is the signing time; nil means time.Now. Set it to send a
	// delivery stamped in the past or the future.
	Now func() time.Time

	mu   sync.Mutex
	last *sentWebhook
}

type sentWebhook struct {
	header http.Header
	body   []byte
}

// WebhookReply is a receiver's answer to a delivery.
type WebhookReply struct {
	Status int
	Header http.Header
	Body   string
}

// Send encodes payload as JSON and sends it as delivery id.
func (s *WebhookSender) Send(ctx context.Context, id string, payload any) (WebhookReply, error) {
	body, err := json.Marshal(payload)
	if err != nil {
		return WebhookReply{}, fmt.Errorf("kittest: WebhookSender.Send: encoding the payload: %w", err)
	}
	return s.SendBody(ctx, id, body)
}

// SendBody signs body as it is and sends it as delivery id.
func (s *WebhookSender) SendBody(ctx context.Context, id string, body []byte) (WebhookReply, error) {
	if s.Scheme == nil {
		return WebhookReply{}, errors.New("kittest: WebhookSender: nil Scheme")
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	h := http.Header{"Content-Type": {"application/json"}, "User-Agent": {"kittest-webhook-sender"}}
	for k, vs := range s.Header {
		h[k] = append([]string(nil), vs...)
	}
	if err := s.Scheme.Sign(h, body, kitwebhook.Meta{ID: id, Time: now()}); err != nil {
		return WebhookReply{}, fmt.Errorf("kittest: WebhookSender: signing: %w", err)
	}
	s.mu.Lock()
	s.last = &sentWebhook{header: h.Clone(), body: bytes.Clone(body)}
	s.mu.Unlock()
	return s.post(ctx, h, body)
}

// Resend sends the last delivery again, byte for byte: a sender's retry,
// or an attacker's replay.
func (s *WebhookSender) Resend(ctx context.Context) (WebhookReply, error) {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last == nil {
		return WebhookReply{}, errors.New("kittest: WebhookSender.Resend: nothing sent yet")
	}
	return s.post(ctx, last.header.Clone(), last.body)
}

func (s *WebhookSender) post(ctx context.Context, h http.Header, body []byte) (WebhookReply, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return WebhookReply{}, fmt.Errorf("kittest: WebhookSender: %w", err)
	}
	req.Header = h
	c := s.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return WebhookReply{}, fmt.Errorf("kittest: WebhookSender: %w", err)
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return WebhookReply{}, fmt.Errorf("kittest: WebhookSender: reading the reply: %w", err)
	}
	return WebhookReply{Status: resp.StatusCode, Header: resp.Header, Body: string(bytes.TrimSpace(text))}, nil
}

// WebhookRecorder is an http.Handler that records every request it
// receives and the status it answered, passing each to Next (answering 204
// when Next is nil). Put it in front of a kitwebhook.Handler to see what a
// sender sent and what the receiver said, or use it alone as a receiver
// that accepts everything. It is safe for concurrent use.
type WebhookRecorder struct {
	Next http.Handler

	mu   sync.Mutex
	seen []RecordedWebhook
}

// RecordedWebhook is one request a WebhookRecorder received.
type RecordedWebhook struct {
	Header http.Header
	Body   []byte
	Status int
}

// ServeHTTP records r and its answer.
func (rec *WebhookRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "kittest: WebhookRecorder: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	status := http.StatusOK
	sw := &statusWriter{ResponseWriter: w, before: func(code int) { status = code }}
	if rec.Next != nil {
		rec.Next.ServeHTTP(sw, r)
	} else {
		sw.WriteHeader(http.StatusNoContent)
	}
	rec.mu.Lock()
	rec.seen = append(rec.seen, RecordedWebhook{Header: r.Header.Clone(), Body: body, Status: status})
	rec.mu.Unlock()
}

// Deliveries returns what was received so far, in order.
func (rec *WebhookRecorder) Deliveries() []RecordedWebhook {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]RecordedWebhook(nil), rec.seen...)
}
