package kit_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
)

// startRec is a record of the numbered servers below.
type startRec struct {
	ID int `json:"id"`
}

// numberedServer serves 24 records {"id": 1..24} in pages of page_size
// (default 5), numbered from first (0 or 1); a request without "page" gets
// the first page. With report, a page reports its number ({"page": N});
// with link, a page before the last has a Link rel="next" to the next one.
// Every page number requested is kept in pages ("-" when none was sent).
type numberedServer struct {
	first        int
	report, link bool

	mu    sync.Mutex
	pages []string
}

const numberedTotal = 24

func (s *numberedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, size := s.first, 5
	raw := q.Get("page")
	s.mu.Lock()
	if raw == "" {
		s.pages = append(s.pages, "-")
	} else {
		s.pages = append(s.pages, raw)
	}
	s.mu.Unlock()
	var err error
	if raw != "" {
		if page, err = strconv.Atoi(raw); err != nil || page < s.first {
			http.Error(w, `{"error":"bad page"}`, http.StatusBadRequest)
			return
		}
	}
	if v := q.Get("page_size"); v != "" {
		if size, err = strconv.Atoi(v); err != nil || size < 1 {
			http.Error(w, `{"error":"bad page_size"}`, http.StatusBadRequest)
			return
		}
	}
	lo := min((page-s.first)*size, numberedTotal)
	hi := min(lo+size, numberedTotal)
	recs := make([]string, 0, hi-lo)
	for id := lo + 1; id <= hi; id++ {
		recs = append(recs, fmt.Sprintf(`{"id":%d}`, id))
	}
	if s.link && hi < numberedTotal {
		w.Header().Set("Link", fmt.Sprintf(`<%s?page=%d&page_size=%d>; rel="next"`, r.URL.Path, page+1, size))
	}
	w.Header().Set("Content-Type", "application/json")
	body := `{"data":[` + strings.Join(recs, ",") + `]`
	if s.report {
		body += `,"page":` + strconv.Itoa(page)
	}
	fmt.Fprint(w, body+"}")
}

func (s *numberedServer) requested() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.pages, ",")
}

// startWalks are the walks of a collection: resource and paged endpoint,
// sync and async, lazy and pipelined, by records and by pages.
var startWalks = []struct {
	name  string
	async bool
	walk  func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error]
}{
	{"Resource.Iterate", false, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return kit.NewResource[startRec](b, "/items", kit.PagedBy(p)).Iterate(ctx, nil)
	}},
	{"Resource.Pages", false, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return records(kit.NewResource[startRec](b, "/items", kit.PagedBy(p)).Pages(ctx, nil))
	}},
	{"AsyncResource.Iterate", true, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return kit.NewAsyncResource[startRec](b, "/items", kit.PagedBy(p)).Iterate(ctx, nil)
	}},
	{"AsyncResource.Pages/prefetch=3", true, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return records(kit.NewAsyncResource[startRec](b, "/items", kit.PagedBy(p), kit.WithPrefetch(3)).Pages(ctx, nil))
	}},
	{"Paged.Iterate", false, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return kit.Paged[kit.NoParams, startRec]("/items", kit.PagedBy(p)).Iterate(ctx, b, kit.NoParams{})
	}},
	{"Paged.Pages", false, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return records(kit.Paged[kit.NoParams, startRec]("/items", kit.PagedBy(p)).Pages(ctx, b, kit.NoParams{}))
	}},
	{"Paged.GoIterate", true, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return kit.Paged[kit.NoParams, startRec]("/items", kit.PagedBy(p)).GoIterate(ctx, b, kit.NoParams{})
	}},
	{"Paged.GoIterate/prefetch=4", true, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return kit.Paged[kit.NoParams, startRec]("/items", kit.PagedBy(p), kit.WithPrefetch(4)).GoIterate(ctx, b, kit.NoParams{})
	}},
	{"Paged.GoPages/prefetch=2", true, func(ctx context.Context, b kit.Binding, p kit.Paginator) iter.Seq2[startRec, error] {
		return records(kit.Paged[kit.NoParams, startRec]("/items", kit.PagedBy(p), kit.WithPrefetch(2)).GoPages(ctx, b, kit.NoParams{}))
	}},
}

// TestPageNumberStart walks servers that number pages from 0 and from 1,
// with each Start and every walk: every record exactly once, in order, and
// the pages requested are the server's (a walk from 1 of a server that
// counts from 0 lost its first page without an error).
func TestPageNumberStart(t *testing.T) {
	leakcheck.Check(t)
	cases := []struct {
		name string
		srv  *numberedServer
		p    kit.PageNumber
		// want is the page numbers requested by a lazy walk ("-": none).
		want string
	}{
		{"zero/StartAtZero", &numberedServer{first: 0}, kit.PageNumber{PageSize: 5, Start: kit.StartAtZero}, "0,1,2,3,4"},
		{"zero/StartUnknown/page reported", &numberedServer{first: 0, report: true}, kit.PageNumber{PageSize: 5, Start: kit.StartUnknown}, "-,1,2,3,4"},
		{"zero/StartUnknown/Link", &numberedServer{first: 0, link: true}, kit.PageNumber{PageSize: 5, Start: kit.StartUnknown}, "-,1,2,3,4"},
		{"zero/StartUnknown/both", &numberedServer{first: 0, report: true, link: true}, kit.PageNumber{PageSize: 5, Start: kit.StartUnknown}, "-,1,2,3,4"},
		{"one/StartAtOne", &numberedServer{first: 1}, kit.PageNumber{PageSize: 5}, "1,2,3,4,5"},
		{"one/StartUnknown/page reported", &numberedServer{first: 1, report: true}, kit.PageNumber{PageSize: 5, Start: kit.StartUnknown}, "-,2,3,4,5"},
		{"one/StartUnknown/Link", &numberedServer{first: 1, link: true}, kit.PageNumber{PageSize: 5, Start: kit.StartUnknown}, "-,2,3,4,5"},
	}
	var want []int
	for id := 1; id <= numberedTotal; id++ {
		want = append(want, id)
	}
	for _, tc := range cases {
		for _, wk := range startWalks {
			t.Run(tc.name+"/"+wk.name, func(t *testing.T) {
				srv := &numberedServer{first: tc.srv.first, report: tc.srv.report, link: tc.srv.link}
				tw := syncTwin
				if wk.async {
					tw = asyncTwin
				}
				_, b := tw.setup(t, srv)
				var got []int
				for rec, err := range wk.walk(t.Context(), b, tc.p) {
					if err != nil {
						t.Fatalf("after %v: %v", got, err)
					}
					got = append(got, rec.ID)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("walked %v,\nwant %v", got, want)
				}
				if pages := srv.requested(); !strings.Contains(wk.name, "prefetch") && pages != tc.want {
					t.Fatalf("pages requested %s, want %s", pages, tc.want)
				}
			})
		}
	}
}

// TestPageNumberStartUnknownNoClue: a full page of a StartUnknown walk that
// reports no page number and sends no next link ends the walk with an
// error after its records, not silently; a short first page is the whole
// collection.
func TestPageNumberStartUnknownNoClue(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := &numberedServer{first: 0}
			_, b := tw.setup(t, srv)
			res := twinAll[startRec](t.Context(), tw, b, "/items", kit.PagedBy(kit.PageNumber{PageSize: 5, Start: kit.StartUnknown}))
			n := 0
			var walkErr error
			for _, err := range res {
				if err != nil {
					walkErr = err
					break
				}
				n++
			}
			if n != 5 || walkErr == nil || !strings.Contains(walkErr.Error(), `reports no "page" member and has no Link rel="next"`) {
				t.Fatalf("%d records, then %v; want 5, then the next page is unknown", n, walkErr)
			}
			if got := srv.requested(); got != "-" {
				t.Fatalf("pages requested %s, want only the first", got)
			}

			// A short first page: the collection, no error.
			all := 0
			for _, err := range twinAll[startRec](t.Context(), tw, b, "/items", kit.PagedBy(kit.PageNumber{PageSize: 50, Start: kit.StartUnknown})) {
				if err != nil {
					t.Fatal(err)
				}
				all++
			}
			if all != numberedTotal {
				t.Fatalf("%d records, want %d", all, numberedTotal)
			}
		})
	}
}

// TestPageNumberStartUnknownForeignLink: the server's next link is followed
// only on the walk's origin.
func TestPageNumberStartUnknownForeignLink(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			foreign := newRecorder(nil)
			other, _ := tw.setup(t, foreign)
			_, b := tw.setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Link", "<"+other.URL+"/items?page=1>; rel=\"next\"")
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"data":[{"id":1},{"id":2}]}`)
			}))
			var walkErr error
			for _, err := range twinAll[startRec](t.Context(), tw, b, "/items", kit.PagedBy(kit.PageNumber{PageSize: 2, Start: kit.StartUnknown})) {
				if err != nil {
					walkErr = err
				}
			}
			if !errors.Is(walkErr, kit.ErrCrossOrigin) {
				t.Fatalf("walk ended with %v, want ErrCrossOrigin", walkErr)
			}
			if n := len(foreign.requests()); n != 0 {
				t.Fatalf("the foreign origin got %d requests", n)
			}
		})
	}
}

// TestPageNumberStartDeclaration: a Start that is none of the constants
// fails the walk's declaration; the constants print as their names.
func TestPageNumberStartDeclaration(t *testing.T) {
	t.Parallel()
	_, b := setup(t, &numberedServer{})
	for _, err := range kit.NewResource[startRec](b, "/items", kit.PagedBy(kit.PageNumber{Start: 7})).All(t.Context()) {
		if err == nil || !strings.Contains(err.Error(), "PageNumber.Start is kit.PageStart(7)") {
			t.Fatalf("walk with Start 7: %v", err)
		}
		break
	}
	// The declaration error names the paginator, not an option the
	// declaration does not use (it said WithPaginator for PagedBy).
	_, err := kit.NewPaged[kit.NoParams, startRec]("/items", kit.PagedBy(&kit.PageNumber{Start: -1}))
	if err == nil || !strings.Contains(err.Error(), "PageNumber.Start is kit.PageStart(-1)") || strings.Contains(err.Error(), "WithPaginator") {
		t.Fatalf("paged endpoint with Start -1: %v", err)
	}
	if got := fmt.Sprintf("%#v", kit.PageNumber{Start: kit.StartAtZero}); !strings.Contains(got, "Start:kit.StartAtZero") {
		t.Fatalf("%%#v = %s", got)
	}
}

// TestWalkFollowsServerLinkWhenPaginatorCannotAdvance: a PageNumber walk
// whose page parameter is not a number (the caller's "first", then the
// server's tokens) has no next page of its own making; it follows the
// server's Link rel="next" instead of failing after the first page.
func TestWalkFollowsServerLinkWhenPaginatorCannotAdvance(t *testing.T) {
	t.Parallel()
	tokens := map[string]struct {
		lo, hi int
		next   string
	}{"first": {1, 5, "p2"}, "p2": {6, 10, "p3"}, "p3": {11, 12, ""}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pg, ok := tokens[r.URL.Query().Get("page")]
		if !ok {
			http.Error(w, `{"error":"bad page"}`, http.StatusBadRequest)
			return
		}
		if pg.next != "" {
			w.Header().Set("Link", `<items?page=`+pg.next+`>; rel="next"`)
		}
		recs := []string{}
		for id := pg.lo; id <= pg.hi; id++ {
			recs = append(recs, fmt.Sprintf(`{"id":%d}`, id))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"data":[`+strings.Join(recs, ",")+`]}`)
	})
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, h)
			query := map[string]string{"page": "first"}
			var seq iter.Seq2[startRec, error]
			p := kit.PagedBy(kit.PageNumber{PageSize: 5})
			if tw.async {
				seq = kit.NewAsyncResource[startRec](b, "/items", p, kit.WithPrefetch(2)).Iterate(t.Context(), query)
			} else {
				seq = kit.NewResource[startRec](b, "/items", p).Iterate(t.Context(), query)
			}
			var got []int
			for rec, err := range seq {
				if err != nil {
					t.Fatalf("after %v: %v", got, err)
				}
				got = append(got, rec.ID)
			}
			if len(got) != 12 || got[0] != 1 || got[11] != 12 {
				t.Fatalf("walked %v, want 1..12", got)
			}
		})
	}
}
