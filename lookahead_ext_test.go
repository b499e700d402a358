package kit_test

import (
	"net/url"
	"testing"

	"github.com/kithttp/kit"
)

func TestLookaheadBuiltins(t *testing.T) {
	t.Parallel()
	prev := kit.PageRequest{Params: url.Values{"page": {"3"}, "page_size": {"7"}, "q": {"x"}}}
	next, ok := kit.PageNumber{}.PageAfter(prev)
	if !ok || next.Params.Encode() != "page=4&page_size=7&q=x" {
		t.Fatalf("PageNumber.PageAfter = %v, %v", next.Params, ok)
	}
	if prev.Params.Get("page") != "3" {
		t.Fatalf("PageAfter modified prev: %v", prev.Params)
	}
	next, ok = kit.Offset{Limit: 25}.PageAfter(kit.PageRequest{Params: url.Values{"offset": {"50"}, "limit": {"25"}}})
	if !ok || next.Params.Encode() != "limit=25&offset=75" {
		t.Fatalf("Offset.PageAfter = %v, %v", next.Params, ok)
	}
	if _, ok := (kit.PageNumber{}).PageAfter(kit.PageRequest{Params: url.Values{"page": {"last"}}}); ok {
		t.Fatal("PageAfter named the page after a page that is not a number")
	}
	// Each built-in that can name pages ahead says so; the others do not.
	for _, p := range []kit.Paginator{kit.PageNumber{}, &kit.PageNumber{}, kit.Offset{}, &kit.Offset{}} {
		if _, ok := p.(kit.Lookahead); !ok {
			t.Errorf("%T is not a Lookahead", p)
		}
	}
	for _, p := range []kit.Paginator{kit.Cursor{}, kit.LinkHeader{}} {
		if _, ok := p.(kit.Lookahead); ok {
			t.Errorf("%T is a Lookahead", p)
		}
	}
}
