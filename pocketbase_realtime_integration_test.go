//go:build integration

package kit_test

import (
	"context"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// pbRealtime is the data of PocketBase's realtime events: PB_CONNECT has
// the client id; a record event, the action and the record.
type pbRealtime struct {
	ClientID string    `json:"clientId"`
	Action   string    `json:"action"`
	Record   *pbRecord `json:"record"`
}

type pbSubscription struct {
	ClientID      string   `json:"clientId"`
	Subscriptions []string `json:"subscriptions"`
}

var (
	pbRealtimeConnect   = kit.Get[kit.NoParams, *kit.Stream[pbRealtime]]("/api/realtime")
	pbRealtimeSubscribe = kit.Post[struct{ Body pbSubscription }, *kit.Response]("/api/realtime")
	pbCreateRecord      = kit.Post[struct {
		Collection string
		Body       pbForm
	}, pbRecord]("/api/collections/{collection}/records")
)

// TestPocketBaseRealtime reads PocketBase's realtime endpoint, a real
// server-sent event stream, as a typed Stream: it connects (GET
// /api/realtime), gets the PB_CONNECT event with its client id, subscribes
// that client to a collection (POST /api/realtime), creates a record, and
// gets the record's create event, decoded and validated, on the same open
// stream; then breaks out of the loop, which closes the connection.
func TestPocketBaseRealtime(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, coll := pocketBase(t, ctx)

	s, err := pbRealtimeConnect.Call(ctx, c, kit.NoParams{})
	if err != nil {
		t.Fatalf("connecting to /api/realtime: %v", err)
	}
	defer s.Close()
	if ct := s.Response().Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	var clientID, createdID string
	events := 0
	for e, err := range s.Events() {
		if err != nil {
			t.Fatalf("after %d events: %v", events, err)
		}
		events++
		switch {
		case e.Type == "PB_CONNECT":
			clientID = e.Data.ClientID
			if clientID == "" || e.ID != clientID {
				t.Fatalf("PB_CONNECT event %+v: want the client id as data and id", e)
			}
			t.Logf("pocketbase: PB_CONNECT, client %s", clientID)
			// Subscribe, then cause an event, while the stream is open.
			r, err := pbRealtimeSubscribe.Call(ctx, c, struct{ Body pbSubscription }{pbSubscription{clientID, []string{coll + "/*"}}})
			if err != nil || r.StatusCode != 204 {
				t.Fatalf("subscribing: %v", err)
			}
			rec, err := pbCreateRecord.Call(ctx, c, struct {
				Collection string
				Body       pbForm
			}{coll, pbForm{Title: "sent through realtime", Count: 3}})
			if err != nil {
				t.Fatalf("creating a record: %v", err)
			}
			createdID = rec.ID
		case e.Type == coll+"/*":
			if clientID == "" {
				t.Fatalf("a record event before PB_CONNECT: %+v", e)
			}
			r := e.Data.Record
			if e.Data.Action != "create" || r == nil || r.ID != createdID || r.Title != "sent through realtime" || r.Count != 3 {
				t.Fatalf("record event %+v (record %+v), want the create of %s", e, r, createdID)
			}
			t.Logf("pocketbase: event %q, action %s, record %s %q, as a typed kit.Event[pbRealtime]", e.Type, e.Data.Action, r.ID, r.Title)
		default:
			t.Fatalf("unexpected event %+v", e)
		}
		if createdID != "" && events == 2 {
			break // closes the connection
		}
	}
	if events != 2 {
		t.Fatalf("%d events, want PB_CONNECT and the record's", events)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
