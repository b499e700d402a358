package kit_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// A chat completion API streams its answer as server-sent events, one
// token at a time, and ends with data: [DONE]. R = *kit.Stream[T] decodes
// each event's data into T as it arrives.
func ExampleStream_All() {
	srv, c := demoAPI()
	defer srv.Close()

	type ChatRequest struct {
		Message string `json:"message" validate:"required"`
	}
	type Chunk struct {
		Index int    `json:"index"`
		Text  string `json:"text"`
	}
	chat := kit.Post[struct{ Body ChatRequest }, *kit.Stream[Chunk]]("/chat")

	s, err := chat.Call(context.Background(), c, struct{ Body ChatRequest }{ChatRequest{"Hello, kit"}})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for chunk, err := range s.All() {
		if err != nil {
			log.Fatal(err) // one error ends the loop
		}
		fmt.Print(chunk.Text) // printed as each token arrives
	}
	fmt.Println()
	// Output:
	// You said: Hello, kit. Here is my answer, streamed one token at a time.
}

// Events gives each record with its server-sent event's id, type and
// retry.
func ExampleStream_Events() {
	srv, c := demoAPI()
	defer srv.Close()

	events := kit.Get[struct{ Count int }, *kit.Stream[kittest.Event]]("/events")
	s, err := events.Call(context.Background(), c, struct{ Count int }{3})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for e, err := range s.Events() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("id=%s type=%s seq=%d text=%q\n", e.ID, e.Type, e.Data.Seq, e.Data.Text)
	}
	// Output:
	// id=1 type=tick seq=1 text="event 1"
	// id=2 type=tick seq=2 text="event 2"
	// id=3 type=tick seq=3 text="event 3"
}

// When the connection of an event stream drops, a client with a retry
// policy reconnects with Last-Event-ID and the loop goes on: here the
// server cuts every connection after two events, in the middle of the
// third, and each event still comes once, in order.
func ExampleStream_resume() {
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
	if err != nil {
		log.Fatal(err)
	}

	events := kit.Get[struct {
		Count     int
		DropEvery int `kit:"drop_every"`
	}, *kit.Stream[kittest.Event]]("/events")
	s, err := events.Call(context.Background(), c, struct {
		Count     int
		DropEvery int `kit:"drop_every"`
	}{Count: 7, DropEvery: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	var seqs []string
	for e, err := range s.All() {
		if err != nil {
			log.Fatal(err)
		}
		seqs = append(seqs, fmt.Sprint(e.Seq))
	}
	fmt.Println(strings.Join(seqs, " "))
	fmt.Println("connections:", api.Stats().ByPath["GET /events"])
	fmt.Println("the last one resumed after event", s.Response().Request.Header.Get("Last-Event-ID"))
	// Output:
	// 1 2 3 4 5 6 7
	// connections: 4
	// the last one resumed after event 6
}

// NDJSON, JSON Lines and json-seq bodies are streams of records too, one
// JSON value a line (or RS-separated record).
func ExampleStream_ndjson() {
	srv, c := demoAPI()
	defer srv.Close()

	activeUsers := kit.Get[struct{ Active bool }, *kit.Stream[User]]("/users.ndjson")
	s, err := activeUsers.Call(context.Background(), c, struct{ Active bool }{true})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	n := 0
	for u, err := range s.All() {
		if err != nil {
			log.Fatal(err)
		}
		if n++; n <= 2 {
			fmt.Println(u.ID, u.Name)
		}
	}
	fmt.Println(n, "active users,", s.Response().Header.Get("Content-Type"))
	// Output:
	// 1 Ada Lovelace
	// 2 Alan Turing
	// 167 active users, application/x-ndjson
}

// A JSON array of any length is decoded one element at a time: memory
// holds one record, not the array, and the body limit applies to each
// element.
func ExampleStream_array() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithMaxBodySize(4<<10)) // 4 KiB a record
	if err != nil {
		log.Fatal(err)
	}

	export := kit.Get[struct{ Count int }, *kit.Stream[kittest.Record]]("/records")
	s, err := export.Call(context.Background(), c, struct{ Count int }{200_000}) // about 38 MB
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	var n, active int
	var last kittest.Record
	for r, err := range s.All() {
		if err != nil {
			log.Fatal(err)
		}
		n++
		if r.Active {
			active++
		}
		last = r
	}
	fmt.Println(n, "records,", active, "active; the last:", last.Name, last.CreatedAt.Format(time.DateOnly))
	// Output:
	// 200000 records, 133334 active; the last: record-200000 2024-01-03
}
