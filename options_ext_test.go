package kit_test

import (
	"io"
	"math"
	"net/http"
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

// ---------------------------------------------------------------------------
// Defect 2: WithMaxBodySize(math.MaxInt64) panics (makeslice: cap out of
// range) on a body of unknown length, or on one announced as MaxInt64 bytes.

// hxChunked answers {"id":1} with no Content-Length (chunked).
func hxChunked(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	io.WriteString(w, `{"id":1}`)
}

func TestHostileMaxBodySizeExtremes(t *testing.T) { // defect 2
	t.Run("client_MaxInt64_chunked_Call", func(t *testing.T) {
		srv := hxServer(t, hxChunked)
		c := hxClient(t, srv.URL, kit.WithMaxBodySize(math.MaxInt64))
		var got hxRec
		var err error
		if p := hxCatch(func() { got, err = hxGetRec.Call(hxCtx(t), c, kit.NoParams{}) }); p != nil {
			t.Fatalf("Call panicked: %v", p)
		}
		if err != nil || got.ID != 1 {
			t.Fatalf("Call = %+v, %v; want {ID:1}, nil", got, err)
		}
	})
	t.Run("endpoint_MaxInt64_chunked_Go", func(t *testing.T) {
		// Crashes the binary on the unfixed code (the panic is on kit's goroutine).
		srv := hxServer(t, hxChunked)
		ac := hxAsyncClient(t, srv.URL)
		ep := kit.Get[kit.NoParams, hxRec]("/rec", kit.WithMaxBodySize(math.MaxInt64))
		got, err := ep.Go(hxCtx(t), ac, kit.NoParams{}).Await(hxCtx(t))
		if err != nil || got.ID != 1 {
			t.Fatalf("Go = %+v, %v; want {ID:1}, nil", got, err)
		}
	})
	t.Run("MaxInt64_announced_MaxInt64", func(t *testing.T) {
		srv := hxRawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"+
			"Content-Length: 9223372036854775807\r\nConnection: close\r\n\r\n{\"id\":1}")
		c := hxClient(t, srv.URL, kit.WithMaxBodySize(math.MaxInt64))
		var err error
		if p := hxCatch(func() { _, err = hxGetRec.Call(hxCtx(t), c, kit.NoParams{}) }); p != nil {
			t.Fatalf("Call panicked: %v", p)
		}
		if err == nil {
			t.Fatal("a body cut short of its announced length gave no error")
		}
	})
}
