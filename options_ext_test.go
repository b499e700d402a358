package kit_test

import (
	"testing"

	"github.com/kithttp/kit"
)

// TestOptionUnions checks that the named option unions keep callers'
// code compiling: a value of each is an Option, EndpointOption or
// ResourceOption, and still fits the unnamed interface the functions
// returned before the unions had names.
func TestOptionUnions(t *testing.T) {
	t.Parallel()
	var unnamed []interface {
		kit.Option
		kit.EndpointOption
	}
	for _, o := range []kit.ClientEndpointOption{
		kit.WithHeader("X-A", "b"),
		kit.WithMaxBodySize(1 << 10),
		kit.WithRetry(kit.RetryPolicy{}),
		kit.WithErrorModel[struct{ Message string }](),
	} {
		unnamed = append(unnamed, o)
		newClient(t, "http://127.0.0.1:1", o)
		if _, err := kit.NewEndpoint[kit.NoParams, kit.NoParams]("GET", "/x", o); err != nil {
			t.Errorf("%v as an EndpointOption: %v", o, err)
		}
	}
	var paging []interface {
		kit.ResourceOption
		kit.EndpointOption
	}
	for _, o := range []kit.PagingOption{
		kit.WithPaginator(kit.Cursor{}),
		kit.WithMaxPages(3),
		kit.WithPrefetch(2),
	} {
		paging = append(paging, o)
		if _, err := kit.NewPaged[kit.NoParams, struct{}]("/x", o); err != nil {
			t.Errorf("%v as an EndpointOption: %v", o, err)
		}
	}
	if len(unnamed) != 4 || len(paging) != 3 {
		t.Fatalf("%d and %d unions", len(unnamed), len(paging))
	}
}
