package kit_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
)

type contentParams struct {
	Owner string
	Path  string
}

var getContent = kit.Get[contentParams, kit.Result[string]]("/repos/{owner}/contents/{path...}")

// TestRestPlaceholder: a {name...} placeholder keeps the value's slashes,
// escapes each segment on its own, and refuses a value with an empty, "."
// or ".." segment before anything is sent; sync and async.
func TestRestPlaceholder(t *testing.T) {
	var sent atomic.Int32
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		got.Store(r.URL.EscapedPath())
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`"ok"`))
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close(context.Background())
	ctx := context.Background()
	calls := map[string]func(contentParams) error{
		"sync": func(p contentParams) error { _, err := getContent.Call(ctx, c, p); return err },
		"async": func(p contentParams) error {
			_, err := getContent.Go(ctx, ac, p).Await(ctx)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			for _, tt := range []struct{ owner, path, want string }{
				{"kit", "README.md", "/repos/kit/contents/README.md"},
				{"a/b", "docs/a b/ü?.md", "/repos/a%2Fb/contents/docs/a%20b/%C3%BC%3F.md"},
			} {
				if err := call(contentParams{tt.owner, tt.path}); err != nil {
					t.Fatalf("%q: %v", tt.path, err)
				}
				if p := got.Load().(string); p != tt.want {
					t.Errorf("%q sent as %s, want %s", tt.path, p, tt.want)
				}
			}
			before := sent.Load()
			for _, bad := range []string{"a/../../admin", "a//b", "./x", "x/", ""} {
				err := call(contentParams{"kit", bad})
				if err == nil || !strings.Contains(err.Error(), "{path...}") {
					t.Errorf("%q: error %v, want one naming {path...}", bad, err)
				}
			}
			if n := sent.Load() - before; n != 0 {
				t.Errorf("%d requests sent for refused paths", n)
			}
		})
	}
}

// TestRestPlaceholderMiddle: {name...} may stand mid-path, as GitHub's
// /branches/{branch}/protection needs for a branch named feature/x.
func TestRestPlaceholderMiddle(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.URL.EscapedPath())
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	protection := kit.Get[struct{ Branch string }, struct{}]("/branches/{branch...}/protection")
	if _, err := protection.Call(context.Background(), c, struct{ Branch string }{"feature/x y"}); err != nil {
		t.Fatal(err)
	}
	if p := got.Load().(string); p != "/branches/feature/x%20y/protection" {
		t.Errorf("sent %s", p)
	}
	_, err = kit.NewEndpoint[struct{ Branch string }, string](http.MethodGet, "/branches/{...}")
	var de *kit.DeclarationError
	if !errors.As(err, &de) {
		t.Errorf("{...}: error %v, want a *kit.DeclarationError", err)
	}
}
