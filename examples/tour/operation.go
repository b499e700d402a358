package main

import (
	"context"
	"net/http"
	"reflect"

	"github.com/kithttp/kit"
)

// The non-generic operations generated code calls: declared on first use,
// so that a program carries only those it calls.
var (
	getUserOp     kit.LazyOperation
	teamMembersOp kit.LazyOperation
)

func declareGetUserOp() (*kit.Operation, error) {
	return kit.NewOperation(http.MethodGet, "/users/{id}",
		reflect.TypeOf((*struct{ ID int })(nil)).Elem(), reflect.TypeOf((*User)(nil)).Elem())
}

func declareTeamMembersOp() (*kit.Operation, error) {
	return kit.NewPagedOperation(http.MethodGet, "/teams/{id}/members",
		reflect.TypeOf((*MemberQuery)(nil)).Elem(), reflect.TypeOf((*User)(nil)).Elem(),
		kit.PagedBy(kit.PageNumber{PageSize: 10}))
}

// operationTour calls a kit.Operation, the non-generic endpoint that
// kitgen's methods wrap, and walks a paged one page by page.
func operationTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Operations: the non-generic endpoints of generated code")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer c.Close()
	op := getUserOp.Get(declareGetUserOp)
	var u User
	if err := op.CallInto(ctx, c, &struct{ ID int }{3}, &u); err != nil {
		return err
	}
	t.say("%v CallInto: %s, decoded and validated as Endpoint.Call would", op, u.Name)
	err = op.CallInto(ctx, c, &MemberQuery{ID: 3}, &u)
	t.say("params of another type: %v (nothing sent)", err)

	pages, records := 0, 0
	for page, err := range teamMembersOp.Get(declareTeamMembersOp).Pages(ctx, c, &MemberQuery{ID: 2}) {
		if err != nil {
			return err
		}
		pages++
		records += len(page.Records.([]User))
	}
	t.say("Pages of a paged operation: %d records of team 2 in %d pages, each with its response", records, pages)
	return nil
}
