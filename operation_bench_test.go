package kit_test

import (
	"context"
	"net/http"
	"reflect"
	"testing"

	"github.com/kithttp/kit"
)

// The operation benchmarks are the calls and walks generated code makes:
// BenchmarkCallGet and BenchmarkIterateKit through a kit.Operation,
// declared by a function (Get) or in the call (Of, PagedOf).

var benchOpGet, benchOpGetOf, benchOpWalk, benchOpWalkOf kit.LazyOperation

func declareBenchOpGet() (*kit.Operation, error) {
	return kit.NewOperation(http.MethodGet, "/users/{login}", reflect.TypeFor[getUserParams](), reflect.TypeFor[benchUser]())
}

func declareBenchOpWalk() (*kit.Operation, error) {
	return kit.NewPagedOperation(http.MethodGet, "/records", nil, reflect.TypeFor[iterRecord](), kit.PagedBy(kit.PageNumber{PageSize: iterPageSize}))
}

func BenchmarkOperationCallGet(b *testing.B) {
	benchOperationCall(b, func() *kit.Operation { return benchOpGet.Get(declareBenchOpGet) })
}

func BenchmarkOperationCallGetOf(b *testing.B) {
	benchOperationCall(b, func() *kit.Operation {
		return benchOpGetOf.Of(http.MethodGet, "/users/{login}", (*getUserParams)(nil), (*benchUser)(nil))
	})
}

func benchOperationCall(b *testing.B, op func() *kit.Operation) {
	srv := benchServer(b)
	c, err := kit.NewClient(srv.URL + "/api")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var u benchUser
		if err := op().CallInto(ctx, c, &getUserParams{Login: "octo", Fields: "all"}, &u); err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}

func BenchmarkOperationWalk(b *testing.B) {
	benchOperationWalk(b, func() *kit.Operation { return benchOpWalk.Get(declareBenchOpWalk) })
}

func BenchmarkOperationWalkOf(b *testing.B) {
	benchOperationWalk(b, func() *kit.Operation {
		return benchOpWalkOf.PagedOf(http.MethodGet, "/records", nil, (*iterRecord)(nil), kit.PageNumber{PageSize: iterPageSize})
	})
}

func benchOperationWalk(b *testing.B, op func() *kit.Operation) {
	srv := iterServer(b)
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for page, err := range op().Pages(ctx, c, nil) {
			if err != nil {
				b.Fatal(err)
			}
			n += len(page.Records.([]iterRecord))
		}
		if n != iterRecords {
			b.Fatalf("walked %d records", n)
		}
	}
}
