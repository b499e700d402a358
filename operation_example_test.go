package kit_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"reflect"

	"github.com/kithttp/kit"
)

// usersOp is declared on its first call: a program that never calls it
// carries neither it nor its declaration.
var usersOp kit.LazyOperation

// membersOp is a paged operation, declared lazily too.
var membersOp kit.LazyOperation

func declareGetUser() (*kit.Operation, error) {
	return kit.NewOperation(http.MethodGet, "/users/{id}",
		reflect.TypeFor[struct{ ID int }](), reflect.TypeFor[User]())
}

func declareMembers() (*kit.Operation, error) {
	return kit.NewPagedOperation(http.MethodGet, "/teams/{id}/members",
		reflect.TypeFor[struct{ ID int }](), reflect.TypeFor[User](),
		kit.PagedBy(kit.PageNumber{PageSize: 10}))
}

// An Operation is the non-generic form of an endpoint, for generated code:
// the typed method around it is a few lines.
func ExampleOperation() {
	srv, c := demoAPI()
	defer srv.Close()
	ctx := context.Background()

	var u User
	params := struct{ ID int }{3}
	if err := usersOp.Get(declareGetUser).CallInto(ctx, c, &params, &u); err != nil {
		log.Fatal(err)
	}
	fmt.Println(u.ID, u.Name)

	team := struct{ ID int }{2}
	for page, err := range membersOp.Get(declareMembers).Pages(ctx, c, &team) {
		if err != nil {
			log.Fatal(err)
		}
		recs := page.Records.([]User)
		fmt.Println(len(recs), "members,", page.Response.StatusCode)
		break
	}
	// Output:
	// 3 Barbara Liskov
	// 10 members, 200
}

// getUserOp is declared by Of on its first call, from constants.
var getUserOp kit.LazyOperation

// Of declares an operation from typed nil pointers, in the call itself:
// this is what kitgen writes for an operation without options, so that the
// operation needs no declaring function of its own.
func ExampleLazyOperation_Of() {
	srv, c := demoAPI()
	defer srv.Close()

	type params struct{ ID int }
	var u User
	op := getUserOp.Of(http.MethodGet, "/users/{id}", (*params)(nil), (*User)(nil))
	if err := op.CallInto(context.Background(), c, &params{ID: 3}, &u); err != nil {
		log.Fatal(err)
	}
	fmt.Println(op, "->", u.ID, u.Name)
	// Output:
	// GET /users/{id} -> 3 Barbara Liskov
}
