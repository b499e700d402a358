package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/kithttp/kit"
	users "github.com/kithttp/kit/examples/openapi"
)

// openapiTour calls a client that kitgen openapi generated from an OpenAPI
// document (examples/openapi/spec.yaml): walks detected from the document,
// a typed event stream, and the document's error model.
func openapiTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Generated from an OpenAPI document: kitgen openapi")
	c, err := users.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer c.Close()
	u, err := c.GetUser(ctx, 2)
	if err != nil {
		return err
	}
	t.say("c.GetUser(ctx, 2), from operationId getUser: %s", u.Name)
	n := 0
	for _, err := range c.ScanUsers(ctx, nil) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("c.ScanUsers(ctx, nil): %d users, a cursor walk kitgen openapi detected from the document", n)
	s, err := c.Chat(ctx, users.ChatRequest{Message: "hi"})
	if err != nil {
		return err
	}
	words := 0
	for _, err := range s.All() {
		if err != nil {
			return err
		}
		words++
	}
	s.Close()
	t.say("c.Chat: a *kit.Stream[ChatChunk] from a text/event-stream response, %d chunks", words)
	_, err = c.GetUser(ctx, 424242)
	var apiErr *users.Error
	t.say("an unknown user: errors.As finds the document's error model: %v", errors.As(err, &apiErr))
	return nil
}
