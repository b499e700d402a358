package kit_test

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kithttp/kit"
)

// twin is one of the two ways to make the same calls; tests that check that
// sync and async calls behave alike have one row for each of twins.
type twin struct {
	name string
	// async: Endpoint.Go(...).Await and AsyncResource, on a
	// *kit.AsyncClient; otherwise Endpoint.Call and Resource, on a
	// *kit.Client.
	async bool
}

var (
	syncTwin  = twin{"sync", false}
	asyncTwin = twin{"async", true}
	twins     = []twin{syncTwin, asyncTwin}
)

// setup is setup or setupAsync.
func (tw twin) setup(t testing.TB, h http.Handler, opts ...kit.Option) (*httptest.Server, kit.Binding) {
	t.Helper()
	if tw.async {
		return setupAsync(t, h, opts...)
	}
	return setup(t, h, opts...)
}

// client is newClient or newAsyncClient.
func (tw twin) client(t testing.TB, base string, opts ...kit.Option) kit.Binding {
	t.Helper()
	if tw.async {
		return newAsyncClient(t, base, opts...)
	}
	return newClient(t, base, opts...)
}

// twinCall makes one call of ep: ep.Call, or ep.Go then Await.
func twinCall[P, R any](ctx context.Context, tw twin, ep *kit.Endpoint[P, R], b kit.Binding, p P, opts ...kit.CallOption) (R, error) {
	if tw.async {
		return ep.Go(ctx, b, p, opts...).Await(ctx)
	}
	return ep.Call(ctx, b, p, opts...)
}

// twinAll walks the collection at path with Resource.All or
// AsyncResource.All.
func twinAll[T any](ctx context.Context, tw twin, b kit.Binding, path string, opts ...kit.ResourceOption) iter.Seq2[T, error] {
	if tw.async {
		return kit.NewAsyncResource[T](b, path, opts...).All(ctx)
	}
	return kit.NewResource[T](b, path, opts...).All(ctx)
}

// ---------------------------------------------------------------------------
// Defect 12: zero values and nil receivers panic.

func TestHostileZeroValues(t *testing.T) { // defect 12
	ctx := hxCtx(t)
	var nilRes *kit.Resource[hxRec]
	var nilARes *kit.AsyncResource[hxRec]
	var nilEp *kit.Endpoint[kit.NoParams, hxRec]
	c := hxClient(t, "http://127.0.0.1:1")
	walkErr := func(seq func(func(hxRec, error) bool)) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, tc := range []struct {
		name string
		call func() error
		// noErr: the method has no error result; only a panic is checked.
		noErr bool
	}{
		{"Client{}.Close", func() error { (&kit.Client{}).Close(); return nil }, true},
		{"Client{}.BaseURL", func() error { (&kit.Client{}).BaseURL(); return nil }, true},
		{"(*Client)(nil).Close", func() error { (*kit.Client)(nil).Close(); return nil }, true},
		{"AsyncClient{}.Close", func() error { (&kit.AsyncClient{}).Close(ctx); return nil }, true},
		{"AsyncClient{}.BaseURL", func() error { (&kit.AsyncClient{}).BaseURL(); return nil }, true},
		{"nil_Resource.List", func() error { _, err := nilRes.List(ctx, nil); return err }, false},
		{"nil_Resource.Get", func() error { _, err := nilRes.Get(ctx, 1); return err }, false},
		{"nil_Resource.Create", func() error { _, err := nilRes.Create(ctx, hxRec{}); return err }, false},
		{"nil_Resource.Delete", func() error { _, err := nilRes.Delete(ctx, 1); return err }, false},
		{"nil_Resource.All", func() error { return walkErr(nilRes.All(ctx)) }, false},
		{"zero_Resource.List", func() error { _, err := (&kit.Resource[hxRec]{}).List(ctx, nil); return err }, false},
		{"nil_AsyncResource.Get", func() error { _, err := nilARes.Get(ctx, 1).Await(ctx); return err }, false},
		{"nil_AsyncResource.All", func() error { return walkErr(nilARes.All(ctx)) }, false},
		{"nil_Endpoint.Call", func() error { _, err := nilEp.Call(ctx, c, kit.NoParams{}); return err }, false},
		{"WithAuth(nil_TokenSourceAuth)", func() error {
			c, err := kit.NewClient("http://127.0.0.1:1", kit.WithAuth((*kit.TokenSourceAuth)(nil)))
			if c != nil {
				c.Close()
			}
			return err
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			p := hxCatch(func() { err = tc.call() })
			switch {
			case p != nil && !hxAcceptablePanic(p):
				t.Fatalf("panicked: %v", p)
			case p == nil && !tc.noErr && err == nil:
				t.Fatal("no error")
			}
		})
	}
}
