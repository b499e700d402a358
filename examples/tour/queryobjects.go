package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/kithttp/kit"
)

// Query objects and bodies of any type: a map or struct sent in brackets
// under its name (OpenAPI's deepObject), a list sent as one value, and a
// JSON body that is a map.
type (
	auditRange struct {
		GT *int64 `json:"gt,omitempty"`
		LT *int64 `json:"lt,omitempty"`
	}
	auditQuery struct {
		Limit    int               `kit:"limit"`
		Created  *auditRange       `kit:"created,query"`  // created[gt]=...
		Metadata map[string]string `kit:"metadata,query"` // metadata[order]=...
	}
	echoed struct {
		RequestURI string              `json:"request_uri"`
		Body       json.RawMessage     `json:"body"`
		Headers    map[string][]string `json:"headers"`
	}
	usersByID struct {
		IDs []int `kit:"ids,csv"` // ids=2,4,7: one value (OpenAPI's explode false)
	}
	manifestConversion struct {
		Code     string
		Manifest map[string]any `kit:",body"` // the JSON body, a free-form object
	}
)

var (
	auditLogs = kit.Get[auditQuery, echoed]("/echo/audit_logs")
	convert   = kit.Post[manifestConversion, echoed]("/echo/app-manifests/{code}/conversions")
	byIDs     = kit.Get[usersByID, []User]("/filter/users")
)

func queryObjectsTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Query objects and bodies of any type")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer c.Close()

	gt := int64(1700000000)
	got, err := auditLogs.Call(ctx, c, auditQuery{Limit: 20, Created: &auditRange{GT: &gt}, Metadata: map[string]string{"order": "6735"}})
	if err != nil {
		return err
	}
	uri, err := url.QueryUnescape(got.RequestURI)
	if err != nil {
		return err
	}
	t.say("`kit:\"created,query\"` on a struct, `kit:\"metadata,query\"` on a map (deepObject): the server saw %s", uri)

	users, err := byIDs.Call(ctx, c, usersByID{IDs: []int{2, 4, 7}})
	if err != nil {
		return err
	}
	t.say("`kit:\"ids,csv\"` on a []int: one parameter ids=2,4,7, which /filter/users splits itself: %d users", len(users))

	got, err = convert.Call(ctx, c, manifestConversion{"c0de", map[string]any{"name": "octoapp", "public": true}})
	if err != nil {
		return err
	}
	t.say("`kit:\",body\"` on a map[string]any: the JSON body %s", got.Body)
	return nil
}
