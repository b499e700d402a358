package kit_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// Types that contain themselves, as kitgen openapi declares a schema that
// does (GeoJSON's coordinates, a tree of maps).
type (
	selfMap  map[string]selfMap
	selfList []selfList
)

// TestSelfContainingResultTypes: a result whose type contains itself
// (type T map[string]T) is decoded and validated, sync and async; the
// validator asked whether such a map holds a struct without end.
func TestSelfContainingResultTypes(t *testing.T) {
	t.Parallel()
	within := func(t *testing.T, call func(ctx context.Context) error) {
		t.Helper()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- call(ctx) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the call did not end within 30s")
		}
	}
	srv, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := `{"a":{"b":{}}}`
		if r.URL.Path == "/list" {
			body = `[[],[[]]]`
		}
		replyJSON(http.StatusOK, body)(w, r)
	}))
	async := newAsyncClient(t, srv.URL)
	tree, list := kit.Get[kit.NoParams, selfMap]("/map"), kit.Get[kit.NoParams, selfList]("/list")
	check := func(m selfMap, l selfList) error {
		if m["a"]["b"] == nil || len(l) != 2 || len(l[1]) != 1 {
			t.Errorf("map %v, list %v", m, l)
		}
		return nil
	}
	within(t, func(ctx context.Context) error {
		m, err := tree.Call(ctx, c, kit.NoParams{})
		if err != nil {
			return err
		}
		l, err := list.Call(ctx, c, kit.NoParams{})
		if err != nil {
			return err
		}
		return check(m, l)
	})
	within(t, func(ctx context.Context) error {
		m, err := tree.Go(ctx, async, kit.NoParams{}).Await(ctx)
		if err != nil {
			return err
		}
		l, err := list.Go(ctx, async, kit.NoParams{}).Await(ctx)
		if err != nil {
			return err
		}
		return check(m, l)
	})
}
