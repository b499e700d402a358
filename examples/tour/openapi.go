package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/kithttp/kit"
	users "github.com/kithttp/kit/examples/openapi"
)

// openapiTour calls a client that kitgen openapi generated from an OpenAPI
// document (examples/openapi/spec.yaml): walks detected from the document
// or named by its x-kit-pagination, a discriminated union, a typed event
// stream, and the document's error model.
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
	joined, deactivated, unknown := 0, 0, 0
	for a, err := range c.ListActivity(ctx, nil) {
		if err != nil {
			return err
		}
		switch a.Value.(type) {
		case users.Joined:
			joined++
		case users.Deactivated:
			deactivated++
		case nil:
			unknown++ // a.Raw holds its JSON
		}
	}
	t.say("c.ListActivity(ctx, nil): a oneOf with a discriminator, a sealed interface: %d joined, %d deactivated, %d of a kind the document does not name (kept as JSON); walked by the cursor its x-kit-pagination names", joined, deactivated, unknown)
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
