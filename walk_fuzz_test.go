package kit

import (
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// FuzzNextPageURL feeds next-page links, as a server sends them, to the
// walk of a collection on the base URL's origin and to the walk of a paged
// endpoint declared on another origin. Whatever the link, the URL the walk
// would request is on the walk's own origin (never the other walk's), it
// has no fragment, and the base URL's query is on it only on the base
// origin; or the link is refused with an error. It never panics.
func FuzzNextPageURL(f *testing.F) {
	for _, s := range []string{
		"/items?page=2", "?page=2", "page2", "https://api.example/items?page=2",
		"https://partner.example/feed?page=2", "//partner.example/feed", "https://API.EXAMPLE:443/x",
		"http://api.example/x", "https://api.example@partner.example/x", "https://partner.example:443/x#frag",
		"javascript:alert(1)", "%zz", "https://[::1]:8443/x", "https://api.example:444/x", "",
	} {
		f.Add(s, s)
	}
	st, err := newTestState("https://api.example/v1/?key=base-secret")
	if err != nil {
		f.Fatal(err)
	}
	base, err := declare("GET", "/items", reflect.TypeFor[NoParams](), reflect.TypeFor[any](), nil, true)
	if err != nil {
		f.Fatal(err)
	}
	other, err := declare("GET", "https://partner.example/feed", reflect.TypeFor[NoParams](), reflect.TypeFor[any](), nil, true)
	if err != nil {
		f.Fatal(err)
	}
	walks := []*walk{
		newWalk(st, base, &base.paging, nil, nil, st.builder.prefix+"/items", nil, url.Values{}),
		newWalk(st, other, &other.paging, nil, nil, "https://partner.example/feed", nil, url.Values{}),
	}
	f.Fuzz(func(t *testing.T, link, prevLink string) {
		for i, w := range walks {
			var prev *url.URL
			if prevLink != "" {
				p, err := w.pageURL(PageRequest{URL: prevLink}, nil)
				if err != nil {
					continue
				}
				prev, _ = url.Parse(p)
			}
			got, err := w.pageURL(PageRequest{URL: link}, prev)
			if err != nil {
				continue
			}
			u, err := url.Parse(got)
			if err != nil {
				t.Fatalf("walk %d: link %q gave unparsable %q: %v", i, link, got, err)
			}
			if !sameOrigin(u, w.origin) {
				t.Fatalf("walk %d: link %q (after %q) gave %q, off the walk's origin %s", i, link, prevLink, got, w.originText())
			}
			if u.Fragment != "" || strings.Contains(got, "#") && !strings.Contains(u.RawQuery+u.Path, "#") {
				t.Fatalf("walk %d: %q keeps a fragment", i, got)
			}
			if i == 1 && strings.Contains(got, "base-secret") {
				t.Fatalf("the other origin's walk requests %q, with the base URL's query", got)
			}
			first := w.collectionURL(nil)
			if strings.Contains(first, "base-secret") != (i == 0) {
				t.Fatalf("walk %d's first page is %q", i, first)
			}
		}
	})
}
