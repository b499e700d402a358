package main

import (
	"context"
	"net/http"

	"github.com/kithttp/kit"
)

// tokensTour walks the token lists kitgen openapi detects in documents: a
// request parameter X that the page answers with next_X, in the API's
// case style (Box's marker and next_marker, Google's pageToken and
// nextPageToken), the records in the page's one array. These are the
// paginators kitgen writes for them; kitgen openapi -v says why.
func tokensTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Token lists, as kitgen openapi detects them")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer c.Close()
	for _, w := range []struct {
		path, say string
		p         kit.Cursor
	}{
		{"/marker/users", `marker answered by next_marker (Box)`, kit.Cursor{CursorParam: "marker", NextKey: "next_marker", ItemsKey: "entries"}},
		{"/token/users", `pageToken answered by nextPageToken (Google)`, kit.Cursor{CursorParam: "pageToken", NextKey: "nextPageToken", ItemsKey: "users"}},
	} {
		list := kit.NewResource[User](c, w.path, kit.PagedBy(w.p))
		t.quiet = true
		n := 0
		for _, err := range list.Iterate(ctx, map[string]any{"active": true}) {
			if err != nil {
				t.quiet = false
				return err
			}
			n++
		}
		t.quiet = false
		t.say("%s  %s: %d active users, every page", w.path, w.say, n)
	}
	return nil
}
