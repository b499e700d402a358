package main

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/kithttp/kit"
)

// Brackets as Rails, PHP and Stripe read them: a list of objects and a
// union in a deepObject query, a map of objects in a form body, checked
// against kittest's /brackets, which answers what such a server reads.
type (
	previewLine struct {
		Amount int64  `json:"amount,omitempty"`
		Type   string `json:"type"`
	}
	// createdFilter is a union as kitgen writes one: a timestamp or a
	// range; its JSON is the variant it holds.
	createdFilter struct {
		at   *int64
		span *createdSpan
	}
	createdSpan struct {
		GTE int64 `json:"gte"`
		LT  int64 `json:"lt"`
	}
	previewQuery struct {
		Lines   []previewLine `kit:"lines,query"`   // lines[0][amount]=...
		Created createdFilter `kit:"created,query"` // created=... or created[gte]=...
	}
	couponForm struct {
		Name            string                     `json:"name"`
		CurrencyOptions map[string]couponAmountOff `json:"currency_options"`
	}
	couponAmountOff struct {
		AmountOff int64 `json:"amount_off"`
	}
	bracketsRead struct {
		Query json.RawMessage `json:"query"`
		Form  json.RawMessage `json:"form"`
	}
)

func (f createdFilter) MarshalJSON() ([]byte, error) {
	switch {
	case f.at != nil:
		return json.Marshal(*f.at)
	case f.span != nil:
		return json.Marshal(f.span)
	}
	return []byte("null"), nil
}

var (
	previewBrackets = kit.Get[previewQuery, bracketsRead]("/brackets")
	couponBrackets  = kit.Post[struct{ Body couponForm }, bracketsRead]("/brackets", kit.FormBody(kit.FormIndexed))
)

func bracketsTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Brackets as Rails, PHP and Stripe read them")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer c.Close()

	at := int64(1700000000)
	got, err := previewBrackets.Call(ctx, c, previewQuery{
		Lines:   []previewLine{{Amount: 500, Type: "custom_line_item"}, {Type: "invoice_line_item"}},
		Created: createdFilter{at: &at},
	})
	if err != nil {
		return err
	}
	t.say("a list of objects and a union (a timestamp) in a deepObject query; the server read %s", got.Query)
	got, err = previewBrackets.Call(ctx, c, previewQuery{Created: createdFilter{span: &createdSpan{GTE: 1, LT: 9}}})
	if err != nil {
		return err
	}
	t.say("the same union holding a range: %s", got.Query)
	got, err = couponBrackets.Call(ctx, c, struct{ Body couponForm }{couponForm{Name: "spring", CurrencyOptions: map[string]couponAmountOff{"eur": {500}}}})
	if err != nil {
		return err
	}
	t.say("a map of objects in a form body: %s", got.Form)
	return nil
}
