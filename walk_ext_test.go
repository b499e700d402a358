package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kithttp/kit"
)

// hxPagesHandler serves a walk: page(query) returns the JSON body and the
// Link header ("" for none) of the page asked for.
func hxPagesHandler(page func(r *http.Request) (body, link string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, link := page(r)
		if link != "" {
			w.Header().Set("Link", link)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}
}

// ---------------------------------------------------------------------------
// Defect 5: pages that cycle with a period above one never end the walk.

// hxCycleWalk ranges over recs (at most 30 records), and returns the last
// error and the ids yielded more than once.
func hxCycleWalk(t *testing.T, recs func(ctx context.Context) func(func(hxRec, error) bool)) (dups []int, n int, last error) {
	seen := map[int]bool{}
	for rec, err := range recs(hxCtx(t)) {
		if err != nil {
			last = err
			break
		}
		if seen[rec.ID] {
			dups = append(dups, rec.ID)
		}
		seen[rec.ID] = true
		if n++; n >= 30 {
			break
		}
	}
	return dups, n, last
}

func TestHostilePageCycle(t *testing.T) { // defect 5
	// Cursors: "" → A → B → A → B ...; records 1, 2, 3.
	cursorPage := func(r *http.Request) (string, string) {
		switch r.URL.Query().Get("cursor") {
		case "":
			return `{"data":[{"id":1}],"next_cursor":"A"}`, ""
		case "A":
			return `{"data":[{"id":2}],"next_cursor":"B"}`, ""
		default:
			return `{"data":[{"id":3}],"next_cursor":"A"}`, ""
		}
	}
	// Links: first → ?p=a → ?p=b → ?p=a ...
	linkPage := func(r *http.Request) (string, string) {
		switch r.URL.Query().Get("p") {
		case "":
			return `[{"id":1}]`, `</recs?p=a>; rel="next"`
		case "a":
			return `[{"id":2}]`, `</recs?p=b>; rel="next"`
		default:
			return `[{"id":3}]`, `</recs?p=a>; rel="next"`
		}
	}
	check := func(t *testing.T, last error, dups []int, n int) {
		t.Helper()
		if !errors.Is(last, kit.ErrPageLoop) {
			t.Errorf("walk of A,B,A,B... pages ended with %v after %d records; want an error matching kit.ErrPageLoop", last, n)
		}
		if len(dups) > 0 {
			t.Errorf("%d records yielded again, first: %v", len(dups), dups[:min(len(dups), 4)])
		}
	}
	for _, tc := range []struct {
		name string
		p    kit.Paginator
		page func(r *http.Request) (string, string)
	}{
		{"Cursor", kit.Cursor{}, cursorPage},
		{"LinkHeader", kit.LinkHeader{}, linkPage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := hxServer(t, hxPagesHandler(tc.page))
			c := hxClient(t, srv.URL)
			r := kit.NewResource[hxRec](c, "/recs", kit.WithPaginator(tc.p))
			dups, n, last := hxCycleWalk(t, func(ctx context.Context) func(func(hxRec, error) bool) { return r.All(ctx) })
			check(t, last, dups, n)
		})
		t.Run(tc.name+"_async_prefetch", func(t *testing.T) {
			srv := hxServer(t, hxPagesHandler(tc.page))
			ac := hxAsyncClient(t, srv.URL)
			r := kit.NewAsyncResource[hxRec](ac, "/recs", kit.WithPaginator(tc.p), kit.WithPrefetch(2))
			dups, n, last := hxCycleWalk(t, func(ctx context.Context) func(func(hxRec, error) bool) { return r.All(ctx) })
			check(t, last, dups, n)
		})
	}
}

// hsWalk ranges over recs, returning the ids yielded and the error that
// ended the walk (at most 50 records).
func hsWalk(recs func(func(hxRec, error) bool)) (ids []int, err error) {
	for rec, e := range recs {
		if e != nil {
			return ids, e
		}
		ids = append(ids, rec.ID)
		if len(ids) >= 50 {
			break
		}
	}
	return ids, nil
}

// hsWalker is one way to walk a paged endpoint: Iterate on a Client, or
// GoIterate on an AsyncClient with or without prefetching.
type hsWalker struct {
	name  string
	async bool
	opts  []kit.EndpointOption
}

var hsWalkers = []hsWalker{
	{name: "sync"},
	{name: "async", async: true},
	{name: "async_prefetch", async: true, opts: []kit.EndpointOption{kit.WithPrefetch(4)}},
}

// walk declares path as a paged endpoint of hxRec with opts plus the
// walker's own, binds it to a client of base with copts, and walks it.
func (hw hsWalker) walk(t *testing.T, base, path string, copts []kit.Option, opts ...kit.EndpointOption) ([]int, error) {
	t.Helper()
	ep := kit.Paged[kit.NoParams, hxRec](path, append(slices.Clone(opts), hw.opts...)...)
	if hw.async {
		ac := hxAsyncClient(t, base, copts...)
		return hsWalk(ep.GoIterate(hxCtx(t), ac, kit.NoParams{}))
	}
	c := hxClient(t, base, copts...)
	return hsWalk(ep.Iterate(hxCtx(t), c, kit.NoParams{}))
}

// ---------------------------------------------------------------------------
// Defect 1: a paged endpoint on another origin receives the base URL's
// query (an API key given as ?key=...). Plain endpoints leave it out.

func TestHostileSecPagedOffOriginBaseQuery(t *testing.T) { // defect 1
	const secret = "hs-base-query-secret"
	for _, hw := range hsWalkers {
		t.Run(hw.name, func(t *testing.T) {
			var other, base hsSeen
			page := hxPagesHandler(func(r *http.Request) (string, string) {
				if r.URL.Query().Get("p") == "" {
					return `[{"id":1}]`, `</recs?p=2>; rel="next"`
				}
				return `[{"id":2}]`, ""
			})
			otherSrv := hxServer(t, hsRecording(&other, page))
			baseSrv := hxServer(t, hsRecording(&base, page))
			copts := []kit.Option(nil)
			ids, err := hw.walk(t, baseSrv.URL+"/?key="+secret, otherSrv.URL+"/recs", copts, kit.WithPaginator(kit.LinkHeader{}))
			urls, _ := other.snapshot()
			for _, u := range urls {
				if strings.Contains(u, secret) {
					t.Errorf("the other origin got the base URL's query: %s", u)
				}
			}
			if err != nil || !slices.Equal(ids, []int{1, 2}) {
				t.Fatalf("walk of the other origin: %v, %v; want [1 2] (its next link is on its own origin), no error", ids, err)
			}
			// The base origin's own paged endpoints still get it.
			ids, err = hw.walk(t, baseSrv.URL+"/?key="+secret, "/recs", copts, kit.WithPaginator(kit.LinkHeader{}))
			if err != nil || !slices.Equal(ids, []int{1, 2}) {
				t.Fatalf("walk of the base origin: %v, %v", ids, err)
			}
			urls, _ = base.snapshot()
			if len(urls) == 0 || !strings.Contains(urls[0], "key="+secret) {
				t.Errorf("the base origin's first page %q lacks the base URL's query", urls)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// Defect 2: confused deputy. A paged endpoint on an untrusted origin sends
// Link: <base>/admin/export; rel=next, and kit follows it to the base
// origin with the client's credentials. A walk's pages stay on the origin
// it started on.

func TestHostileSecPagedConfusedDeputy(t *testing.T) { // defect 2
	for _, hw := range hsWalkers {
		// direct: the first page links to the base origin; otherwise the
		// second does, after a link on the walk's own origin.
		for _, direct := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/direct_%v", hw.name, direct), func(t *testing.T) {
				var base, other hsSeen
				baseSrv := hxServer(t, hsRecording(&base, hxPagesHandler(func(*http.Request) (string, string) {
					return `[{"id":99}]`, ""
				})))
				var otherURL string
				otherSrv := hxServer(t, hsRecording(&other, hxPagesHandler(func(r *http.Request) (string, string) {
					if r.URL.Query().Get("p") == "" && !direct {
						// A next page on the walk's own origin is followed ...
						return `[{"id":1}]`, `<` + otherURL + `/recs?p=2>; rel="next"`
					}
					// ... one on the client's base origin is not.
					return fmt.Sprintf(`[{"id":%d}]`, len(r.URL.Query().Get("p"))+1), `<` + baseSrv.URL + `/admin/export>; rel="next"`
				})))
				otherURL = otherSrv.URL
				copts := []kit.Option{kit.WithAuth(kit.Bearer("hs-deputy-token")), kit.WithHeader("Cookie", "session=hs-deputy")}
				ids, err := hw.walk(t, baseSrv.URL, otherSrv.URL+"/recs", copts, kit.WithPaginator(kit.LinkHeader{}))
				if urls, hdrs := base.snapshot(); len(urls) > 0 {
					t.Errorf("the base origin got %q with headers %v from a walk of another origin", urls, hdrs)
				}
				want := []int{1, 2}
				if direct {
					want = []int{1}
				}
				if !slices.Equal(ids, want) {
					t.Errorf("records %v, want %v (the walk's own origin's pages)", ids, want)
				}
				if !errors.Is(err, kit.ErrCrossOrigin) {
					t.Errorf("walk ended with %v; want an error matching kit.ErrCrossOrigin", err)
				}
				_, hdrs := other.snapshot()
				for _, h := range hdrs {
					if h.Get("Authorization") != "" || h.Get("Cookie") != "" {
						t.Errorf("the other origin got credentials: %v", h)
					}
				}
			})
		}
	}
}

// ---------------------------------------------------------------------------
// Defect 6: page cycles of period 2 or more by content are never caught:
// page 3 has the records of page 1 under new URLs, and the walk yields the
// same records forever. A page whose records are exactly those of any
// earlier page of the walk ends it with ErrPageLoop, before it is yielded.

func TestHostileSecPageContentCycle(t *testing.T) { // defect 6
	for _, period := range []int{2, 3, 7} {
		for _, hw := range hsWalkers {
			t.Run(fmt.Sprintf("period_%d_%s", period, hw.name), func(t *testing.T) {
				// Cursor c = 1, 2, 3, ... forever (every URL is new); the
				// records repeat with the period.
				srv := hxServer(t, hxPagesHandler(func(r *http.Request) (string, string) {
					c, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
					id := c%period + 1
					return fmt.Sprintf(`{"data":[{"id":%d},{"id":%d}],"next_cursor":"%d"}`, id, 100+id, c+1), ""
				}))
				ids, err := hw.walk(t, srv.URL, "/recs", nil, kit.WithPaginator(kit.Cursor{ItemsKey: "data"}))
				if !errors.Is(err, kit.ErrPageLoop) {
					t.Errorf("walk ended with %v after %d records; want an error matching kit.ErrPageLoop", err, len(ids))
				}
				seen := map[int]bool{}
				for _, id := range ids {
					if seen[id] {
						t.Fatalf("record %d yielded twice: %v", id, ids)
					}
					seen[id] = true
				}
				if len(ids) != 2*period {
					t.Errorf("%d records before the loop was caught, want %d (every page once)", len(ids), 2*period)
				}
			})
		}
	}
	// The documented limit of the guard: a legitimate collection in which
	// two pages are byte for byte the same cannot be told from a server
	// that loops. The walk yields every page before the repeat once and
	// ends with ErrPageLoop naming both pages; empty pages never count.
	t.Run("identical_pages_documented", func(t *testing.T) {
		srv := hxServer(t, hxPagesHandler(func(r *http.Request) (string, string) {
			switch r.URL.Query().Get("cursor") {
			case "":
				return `{"data":[{"id":7}],"next_cursor":"b"}`, ""
			case "b":
				return `{"data":[],"next_cursor":"c"}`, ""
			case "c":
				return `{"data":[],"next_cursor":"d"}`, ""
			case "d":
				return `{"data":[{"id":8}],"next_cursor":"e"}`, ""
			default:
				return `{"data":[{"id":7}],"next_cursor":""}`, ""
			}
		}))
		ids, err := hsWalkers[0].walk(t, srv.URL, "/recs", nil, kit.WithPaginator(kit.Cursor{ItemsKey: "data"}))
		if !slices.Equal(ids, []int{7, 8}) || !errors.Is(err, kit.ErrPageLoop) || !strings.Contains(err.Error(), "page 5") || !strings.Contains(err.Error(), "page 1") {
			t.Errorf("walk: %v, %v; want [7 8] and ErrPageLoop naming pages 5 and 1", ids, err)
		}
	})
}

// ---------------------------------------------------------------------------
// Defect 8: a `kit:",url"` field on a paged endpoint is accepted and
// silently ignored (Resource refuses it). NewPaged refuses it with a
// *DeclarationError, and so a kit.File field (a body a GET cannot carry);
// a File given at run time in an interface field is an error of the walk.

func TestHostileSecPagedURLField(t *testing.T) { // defect 8
	type withURL struct {
		Next string `kit:",url"`
	}
	type withURLPtr struct {
		Next *url.URL `kit:",url"`
	}
	type withFile struct {
		Body kit.File
	}
	for name, declare := range map[string]func() error{
		"url_string": func() error { _, err := kit.NewPaged[withURL, hxRec]("/recs"); return err },
		"url_ptr":    func() error { _, err := kit.NewPaged[withURLPtr, hxRec]("/recs"); return err },
		"File":       func() error { _, err := kit.NewPaged[withFile, hxRec]("/recs"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			err := declare()
			var de *kit.DeclarationError
			if !errors.As(err, &de) {
				t.Fatalf("NewPaged: %v; want a *kit.DeclarationError", err)
			}
		})
	}
	t.Run("dynamic_File", func(t *testing.T) {
		type dyn struct {
			Any any
		}
		var hits atomic.Int32
		srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `[]`)
		})
		ep := kit.Paged[dyn, hxRec]("/recs")
		for _, async := range []bool{false, true} {
			var ids []int
			var err error
			if async {
				ids, err = hsWalk(ep.GoIterate(hxCtx(t), hxAsyncClient(t, srv.URL), dyn{kit.FileFromBytes("f", []byte("x"))}))
			} else {
				ids, err = hsWalk(ep.Iterate(hxCtx(t), hxClient(t, srv.URL), dyn{kit.FileFromBytes("f", []byte("x"))}))
			}
			if err == nil || len(ids) > 0 {
				t.Errorf("async %v: walk with a File parameter: %v, %v; want an error", async, ids, err)
			}
		}
		if hits.Load() != 0 {
			t.Errorf("%d requests sent", hits.Load())
		}
	})
}
