package main

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// Streams of typed records: a chat reply as server-sent events, printed as
// each token arrives; an event stream that drops and resumes; NDJSON; and
// a JSON array far larger than the body limit, one element at a time.

type chatRequest struct {
	Message string `json:"message" validate:"required"`
}

// chatChunk is one token of a streamed reply.
type chatChunk struct {
	Index int    `json:"index"`
	Text  string `json:"text" validate:"required"`
}

type eventQuery struct {
	Count     int
	DropEvery int `kit:"drop_every"`
}

var (
	chat        = kit.Post[struct{ Body chatRequest }, *kit.Stream[chatChunk]]("/chat?delay_ms=15")
	tickEvents  = kit.Get[eventQuery, *kit.Stream[kittest.Event]]("/events")
	usersNDJSON = kit.Get[struct{ TeamID int }, *kit.Stream[User]]("/users.ndjson")
	allRecords  = kit.Get[struct{ Count int }, *kit.Stream[kittest.Record]]("/records")
)

func streamTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Streams: server-sent events, NDJSON and huge arrays as iter.Seq2[T, error]")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc),
		kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}), // lets event streams resume
		kit.WithMaxBodySize(1<<20))                                  // 1 MiB a record; streams have no limit
	if err != nil {
		return err
	}
	defer c.Close()

	start := time.Now()
	s, err := chat.Call(ctx, c, struct{ Body chatRequest }{chatRequest{"What is kit?"}})
	if err != nil {
		return err
	}
	t.say("POST /chat answered %s; the tokens, printed as they arrive:", s.Response().Header.Get("Content-Type"))
	var reply strings.Builder
	for chunk, err := range s.All() { // typed, validated, one event at a time
		if err != nil {
			return err
		}
		reply.WriteString(chunk.Text)
		t.say("  +%-6s token %2d %q", time.Since(start).Round(time.Millisecond), chunk.Index, chunk.Text)
	}
	t.say("the reply: %s", reply.String())

	s2, err := tickEvents.Call(ctx, c, eventQuery{Count: 10, DropEvery: 4})
	if err != nil {
		return err
	}
	var seqs []string
	for e, err := range s2.Events() {
		if err != nil {
			return err
		}
		seqs = append(seqs, e.ID)
	}
	t.say("an event stream cut every 4 events, mid-event: events %s, each once, in order; the last connection resumed with Last-Event-ID %s",
		strings.Join(seqs, " "), s2.Response().Request.Header.Get("Last-Event-ID"))

	s3, err := usersNDJSON.Call(ctx, c, struct{ TeamID int }{4})
	if err != nil {
		return err
	}
	n := 0
	var first User
	for u, err := range s3.All() {
		if err != nil {
			return err
		}
		if n == 0 {
			first = u
		}
		n++
	}
	t.say("NDJSON: %d users of team 4, the first %s", n, first.Name)

	t.quiet = true
	begin := time.Now()
	s4, err := allRecords.Call(ctx, c, struct{ Count int }{100_000})
	if err != nil {
		return err
	}
	n = 0
	var last kittest.Record
	for r, err := range s4.All() {
		if err != nil {
			return err
		}
		n++
		last = r
	}
	t.quiet = false
	t.say("a JSON array of %d records (about 19 MB) decoded one element at a time in %s; the last: %s", n, time.Since(begin).Round(time.Millisecond), last.Email)
	return nil
}
