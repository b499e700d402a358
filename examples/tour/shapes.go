package main

import (
	"context"
	"net/http"
	"strings"

	"github.com/kithttp/kit"
)

// The shapes real APIs use, as declarations and nothing else: no
// interceptor, no paginator of one's own.
var (
	// Stripe: the cursor is the id of the page's last record; has_more
	// false ends the walk, with no request past the end.
	stripeUsers = kit.Paged[struct{ Limit int }, User]("/stripe/users",
		kit.PagedBy(kit.Cursor{CursorParam: "starting_after", RecordKey: "id", HasMoreKey: "has_more"}))

	// Twilio, DigitalOcean, Microsoft Graph: the next page's URL is in the
	// body.
	nextUsers = kit.Paged[struct{ PageSize int }, User]("/next/users",
		kit.PagedBy(kit.NextLink{Key: "links.next"}))

	// Notion: a search walked with POST requests, the cursor a field of the
	// JSON body.
	searchAll = kit.PagedPost[struct{ Body userSearch }, User]("/search/users",
		kit.PagedBy(kit.Cursor{CursorParam: "start_cursor", NextKey: "next_cursor", HasMoreKey: "has_more", InBody: true}))

	// Stripe's nested form bodies, in its indexed style.
	newCharge = kit.Post[struct{ Body chargeRequest }, chargeReply]("/charges", kit.FormBody(kit.FormIndexed))

	// A PATCH with three-state fields.
	patchUser = kit.Patch[struct {
		ID   int
		Body userChanges
	}, User]("/users/{id}")
)

type userSearch struct {
	Filter   searchFilter `json:"filter"`
	PageSize int          `json:"page_size,omitempty"`
}

type searchFilter struct {
	TeamID int   `json:"team_id,omitempty"`
	Active *bool `json:"active,omitempty"`
}

type chargeItem struct {
	Price    string `json:"price"`
	Quantity int    `json:"quantity,omitempty"`
}

type chargeRequest struct {
	Amount   int               `json:"amount"`
	Currency string            `json:"currency"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Expand   []string          `json:"expand,omitempty"`
	Items    []chargeItem      `json:"items,omitempty"`
}

type chargeReply struct {
	Amount   int               `json:"amount"`
	Metadata map[string]string `json:"metadata"`
	Expand   []string          `json:"expand"`
	Items    []chargeItem      `json:"items"`
}

// userChanges leaves absent fields alone, sends null for null ones, and
// sends false and 0 as values.
type userChanges struct {
	Name   kit.Nullable[string] `json:"name,omitzero"`
	TeamID kit.Nullable[int]    `json:"team_id,omitzero"`
	Active kit.Nullable[bool]   `json:"active,omitzero"`
}

// shapesTour walks the demo API's Stripe-like list, next-link collection
// and POST search, sends a nested form and a three-state PATCH.
func shapesTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("The shapes real APIs use")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer c.Close()

	t.quiet = true
	before := t.requests.Load()
	n := 0
	for _, err := range stripeUsers.Iterate(ctx, c, struct{ Limit int }{50}) {
		if err != nil {
			return err
		}
		n++
	}
	t.quiet = false
	t.say("Stripe-like list (starting_after = the last record's id, has_more): %d users in %d requests, none past the end", n, t.requests.Load()-before)

	t.quiet = true
	before, n = t.requests.Load(), 0
	for _, err := range nextUsers.Iterate(ctx, c, struct{ PageSize int }{100}) {
		if err != nil {
			return err
		}
		n++
	}
	t.quiet = false
	t.say("next-page URL in the body (links.next, kit.NextLink): %d users in %d requests", n, t.requests.Load()-before)

	active := true
	n = 0
	for _, err := range searchAll.Iterate(ctx, c, struct{ Body userSearch }{userSearch{Filter: searchFilter{TeamID: 3, Active: &active}, PageSize: 20}}) {
		if err != nil {
			return err
		}
		n++
	}
	t.say("POST search with the cursor in the body (kit.PagedPost, Cursor.InBody): %d active users of team 3", n)

	ch, err := newCharge.Call(ctx, c, struct{ Body chargeRequest }{chargeRequest{
		Amount: 2000, Currency: "eur",
		Metadata: map[string]string{"order_id": "6735"},
		Expand:   []string{"customer"},
		Items:    []chargeItem{{Price: "price_1", Quantity: 2}},
	}})
	if err != nil {
		return err
	}
	t.say("nested form (FormBody(kit.FormIndexed)): the server read metadata %v, expand %v, items %+v",
		ch.Metadata, strings.Join(ch.Expand, ","), ch.Items)

	u, err := patchUser.Call(ctx, c, struct {
		ID   int
		Body userChanges
	}{7, userChanges{Active: kit.Value(false), TeamID: kit.Value(1)}})
	if err != nil {
		return err
	}
	t.say("PATCH with kit.Nullable: active=%v team_id=%d sent, the name left alone: %q", u.Active, u.TeamID, u.Name)
	return nil
}
