package kit_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
	"github.com/kithttp/kit/kittest"
)

// The tests of pipelined walks: WithPrefetch(n) on AsyncResource and on
// PagedEndpoint.GoIterate/GoPages. Servers here answer pages in the order
// a test needs, with gates, never with sleeps; nothing is timed.

// pipeServer serves total records, numbered from 1, as {"data":[...]} for
// page/page_size (PageNumber) and offset/limit (Offset) queries, and keeps
// count of what it sees.
type pipeServer struct {
	total int
	// hook, when set, runs before a page is answered; a non-zero status
	// answers that status instead.
	hook func(r *http.Request, page int) int
	// arrivals, when set, receives the number of each page requested.
	arrivals chan int

	mu          sync.Mutex
	inflight    int
	maxInflight int
	perPage     map[int]int
	requests    int
}

func newPipeServer(total int) *pipeServer {
	return &pipeServer{total: total, perPage: map[int]int{}}
}

func (s *pipeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, size := 0, 0
	if q.Has("offset") {
		off, _ := strconv.Atoi(q.Get("offset"))
		size, _ = strconv.Atoi(q.Get("limit"))
		page = off/max(size, 1) + 1
	} else {
		page, _ = strconv.Atoi(q.Get("page"))
		size, _ = strconv.Atoi(q.Get("page_size"))
	}
	s.mu.Lock()
	s.inflight++
	s.maxInflight = max(s.maxInflight, s.inflight)
	s.perPage[page]++
	s.requests++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inflight--
		s.mu.Unlock()
	}()
	if s.arrivals != nil {
		s.arrivals <- page
	}
	if s.hook != nil {
		if status := s.hook(r, page); status != 0 {
			replyJSON(status, `{"error":"injected"}`)(w, r)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for id := (page-1)*size + 1; id <= min(page*size, s.total); id++ {
		if id > (page-1)*size+1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"n%d","email":"u%d@example.com"}`, id, id, id)
	}
	b.WriteString(`]}`)
	w.Write([]byte(b.String()))
}

func (s *pipeServer) stats() (requests, maxInflight int, perPage map[int]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests, s.maxInflight, maps(s.perPage)
}

func maps(m map[int]int) map[int]int {
	out := make(map[int]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// pipeWalker is one way to make a pipelined walk: an AsyncResource, or a
// paged endpoint's GoIterate.
type pipeWalker struct {
	name string
	walk func(ctx context.Context, ac *kit.AsyncClient, p kit.Paginator, opts ...pagingOption) iter.Seq2[apiUser, error]
}

// pagingOption is what WithPaginator, WithMaxPages and WithPrefetch return.
type pagingOption = interface {
	kit.ResourceOption
	kit.EndpointOption
}

var pipeWalkers = []pipeWalker{
	{"AsyncResource", func(ctx context.Context, ac *kit.AsyncClient, p kit.Paginator, opts ...pagingOption) iter.Seq2[apiUser, error] {
		ro := []kit.ResourceOption{kit.WithPaginator(p)}
		for _, o := range opts {
			ro = append(ro, o)
		}
		return kit.NewAsyncResource[apiUser](ac, "/x", ro...).All(ctx)
	}},
	{"GoIterate", func(ctx context.Context, ac *kit.AsyncClient, p kit.Paginator, opts ...pagingOption) iter.Seq2[apiUser, error] {
		eo := []kit.EndpointOption{kit.WithPaginator(p)}
		for _, o := range opts {
			eo = append(eo, o)
		}
		ep := kit.Paged[struct{ Dir string }, apiUser]("/{dir}", eo...)
		return ep.GoIterate(ctx, ac, struct{ Dir string }{"x"})
	}},
}

// collect ranges over seq and returns the ids and the errors.
func collect(seq iter.Seq2[apiUser, error]) (ids []int, errs []error) {
	for u, err := range seq {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, u.ID)
	}
	return ids, errs
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// lookaheadPaginators are the paginators that can name pages ahead, with
// the query pipeServer understands.
var lookaheadPaginators = []struct {
	name string
	p    func(size int) kit.Paginator
}{
	{"PageNumber", func(size int) kit.Paginator { return kit.PageNumber{PageSize: size} }},
	{"Offset", func(size int) kit.Paginator { return kit.Offset{Limit: size} }},
	{"custom", func(size int) kit.Paginator { return customAhead{kit.PageNumber{PageSize: size}} }},
}

// customAhead is a custom paginator that implements kit.Lookahead by
// itself (not by embedding).
type customAhead struct{ inner kit.PageNumber }

func (c customAhead) FirstPage(q url.Values) kit.PageRequest { return c.inner.FirstPage(q) }
func (c customAhead) NextPage(resp *kit.Response, prev kit.PageRequest) (*kit.PageRequest, error) {
	return c.inner.NextPage(resp, prev)
}
func (c customAhead) PageAfter(prev kit.PageRequest) (kit.PageRequest, bool) {
	n, err := strconv.Atoi(prev.Params.Get("page"))
	if err != nil {
		return kit.PageRequest{}, false
	}
	next := prev.Clone()
	next.Params.Set("page", strconv.Itoa(n+1))
	return next, true
}

// TestPipelineOutOfOrder: the server answers the first window of pages in
// reverse; records still come in order, each once.
func TestPipelineOutOfOrder(t *testing.T) {
	t.Parallel()
	const n = 4
	for _, w := range pipeWalkers {
		for _, pg := range lookaheadPaginators {
			t.Run(w.name+"/"+pg.name, func(t *testing.T) {
				t.Parallel()
				srv := newPipeServer(19) // 10 pages of 2, the last short
				var answered [n + 2]chan struct{}
				for i := range answered {
					answered[i] = make(chan struct{})
				}
				srv.hook = func(r *http.Request, page int) int {
					if page <= n {
						// Page k waits for page k+1: answers go n, n-1, ..., 1.
						if page < n {
							<-answered[page+1]
						}
						defer close(answered[page])
					}
					return 0
				}
				_, ac := setupAsync(t, srv)
				ids, errs := collect(w.walk(t.Context(), ac, pg.p(2), kit.WithPrefetch(n)))
				if len(errs) != 0 || !slices.Equal(ids, seq(1, 19)) {
					t.Fatalf("ids %v, errs %v; want 1..19 and no error", ids, errs)
				}
			})
		}
	}
}

// TestPipelineWindow: a walk with WithPrefetch(n) has n page requests in
// flight at once (the first n pages are all requested before any is
// answered), and never more.
func TestPipelineWindow(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		for _, n := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%s/n=%d", w.name, n), func(t *testing.T) {
				t.Parallel()
				srv := newPipeServer(95)
				arrived := make(chan struct{})
				var count atomic.Int32
				srv.hook = func(r *http.Request, page int) int {
					if page <= n {
						if count.Add(1) == int32(n) {
							close(arrived)
						}
						select {
						case <-arrived:
						case <-time.After(10 * time.Second):
							t.Errorf("page %d: the first %d pages were never in flight together", page, n)
						}
					}
					return 0
				}
				_, ac := setupAsync(t, srv)
				ids, errs := collect(w.walk(t.Context(), ac, kit.PageNumber{PageSize: 10}, kit.WithPrefetch(n)))
				if len(errs) != 0 || !slices.Equal(ids, seq(1, 95)) {
					t.Fatalf("ids %v, errs %v", ids, errs)
				}
				if _, most, _ := srv.stats(); most > n {
					t.Fatalf("%d requests in flight at once, want at most %d", most, n)
				}
			})
		}
	}
}

// TestPipelineShortPageEnds: the first short page ends the walk; at most
// n-1 requests go past it, and what they get (an error here) is discarded.
// Pages yields every page, an empty last one included.
func TestPipelineShortPageEnds(t *testing.T) {
	t.Parallel()
	const n = 4
	for _, tc := range []struct {
		total int
		pages []int // records per page yielded
	}{
		{25, []int{10, 10, 5}},
		{30, []int{10, 10, 10, 0}},
		{0, []int{0}},
	} {
		t.Run(strconv.Itoa(tc.total), func(t *testing.T) {
			t.Parallel()
			srv := newPipeServer(tc.total)
			last := len(tc.pages)
			srv.hook = func(r *http.Request, page int) int {
				if page > last {
					return http.StatusInternalServerError // past the end: never seen by the caller
				}
				return 0
			}
			_, ac := setupAsync(t, srv)
			r := kit.NewAsyncResource[apiUser](ac, "/x", kit.WithPaginator(kit.PageNumber{PageSize: 10}), kit.WithPrefetch(n))
			var got []int
			for page, err := range r.Pages(t.Context(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, len(page.Records))
			}
			if !slices.Equal(got, tc.pages) {
				t.Fatalf("pages of %v records, want %v", got, tc.pages)
			}
			if reqs, _, _ := srv.stats(); reqs < last || reqs > last+n-1 {
				t.Fatalf("%d requests for %d pages, want at most %d past the end", reqs, last, n-1)
			}
		})
	}
}

// TestPipelineErrorInWindow: a page in the middle of the window fails
// before the pages before it are answered; the error is yielded once,
// after every record before that page, and nothing follows it.
func TestPipelineErrorInWindow(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := newPipeServer(200)
			failed := make(chan struct{})
			srv.hook = func(r *http.Request, page int) int {
				switch {
				case page == 5:
					close(failed)
					return http.StatusInternalServerError
				case page < 5:
					<-failed // answered after page 5 failed
				}
				return 0
			}
			_, ac := setupAsync(t, srv)
			ids, errs := collect(w.walk(t.Context(), ac, kit.PageNumber{PageSize: 10}, kit.WithPrefetch(8)))
			var he *kit.HTTPError
			if !slices.Equal(ids, seq(1, 40)) || len(errs) != 1 || !errors.As(errs[0], &he) || he.StatusCode != 500 {
				t.Fatalf("ids %v, errs %v; want 1..40 then one 500", ids, errs)
			}
			if !strings.Contains(he.URL, "page=5") {
				t.Fatalf("the error is about %s, want page 5", he.URL)
			}
		})
	}
}

// TestPipelineOneRefresh: the token expires while a window of pages is in
// flight; the 401s share one refresh and every page is sent again.
func TestPipelineOneRefresh(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := newPipeServer(100)
			var unauthorized, stale atomic.Int32
			together := make(chan struct{}) // closed when pages 2 to 4 have come with t1
			srv.hook = func(r *http.Request, page int) int {
				switch r.Header.Get("Authorization") {
				case "Bearer t2":
					return 0
				case "Bearer t1":
					if page == 1 {
						return 0 // t1 expires after the first page
					}
					if stale.Add(1) == 3 {
						close(together)
					}
					select {
					case <-together:
					case <-time.After(10 * time.Second):
						t.Errorf("pages 2 to 4 never came together with the old token")
					}
				}
				unauthorized.Add(1)
				return http.StatusUnauthorized
			}
			var fetches atomic.Int32
			auth := kit.TokenAuth(func(context.Context) (kit.Token, error) {
				return kit.Token{Value: "t" + strconv.Itoa(int(fetches.Add(1)))}, nil
			})
			_, ac := setupAsync(t, srv, kit.WithAuth(auth))
			ids, errs := collect(w.walk(t.Context(), ac, kit.PageNumber{PageSize: 10}, kit.WithPrefetch(4)))
			if len(errs) != 0 || !slices.Equal(ids, seq(1, 100)) {
				t.Fatalf("ids %v, errs %v", ids, errs)
			}
			if f, u := fetches.Load(), unauthorized.Load(); f != 2 || u < 3 {
				t.Fatalf("%d token fetches for %d 401s; want 2 (first use, one refresh) for 3 or more", f, u)
			}
		})
	}
}

// TestPipelineRetries: every page fails once with a 503 and is retried
// within the window: each record once, in order, each page sent twice.
func TestPipelineRetries(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := newPipeServer(75)
			var mu sync.Mutex
			tried := map[int]bool{}
			srv.hook = func(r *http.Request, page int) int {
				mu.Lock()
				defer mu.Unlock()
				if !tried[page] {
					tried[page] = true
					return http.StatusServiceUnavailable
				}
				return 0
			}
			_, ac := setupAsync(t, srv, kit.WithRetry(kit.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}))
			ids, errs := collect(w.walk(t.Context(), ac, kit.Offset{Limit: 10}, kit.WithPrefetch(3)))
			if len(errs) != 0 || !slices.Equal(ids, seq(1, 75)) {
				t.Fatalf("ids %v, errs %v", ids, errs)
			}
			_, _, per := srv.stats()
			for page := 1; page <= 8; page++ {
				if per[page] != 2 {
					t.Fatalf("page %d sent %d times, want 2 (%v)", page, per[page], per)
				}
			}
		})
	}
}

// activeSends is a call interceptor that counts the requests in kit's send
// chain.
type activeSends struct{ n atomic.Int32 }

func (a *activeSends) interceptor(next kit.Sender) kit.Sender {
	return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
		a.n.Add(1)
		defer a.n.Add(-1)
		return next(ctx, req)
	}
}

// stallAfterFirst makes srv answer page 1 and hold every other page until
// its request is cancelled, reporting each cancellation.
func stallAfterFirst(srv *pipeServer) (cancelled chan int) {
	cancelled = make(chan int, 100)
	srv.arrivals = make(chan int, 100)
	srv.hook = func(r *http.Request, page int) int {
		if page > 1 {
			<-r.Context().Done()
			cancelled <- page
		}
		return 0
	}
	return cancelled
}

// TestPipelineBreak: breaking out cancels every request in flight, and the
// loop returns only once they have left kit: no request, no goroutine left.
func TestPipelineBreak(t *testing.T) {
	leakcheck.Check(t)
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			const n = 4
			srv := newPipeServer(1000)
			cancelled := stallAfterFirst(srv)
			var sends activeSends
			_, ac := setupAsync(t, srv, kit.WithInterceptors(sends.interceptor))
			for _, err := range w.walk(t.Context(), ac, kit.PageNumber{PageSize: 10}, kit.WithPrefetch(n)) {
				if err != nil {
					t.Fatal(err)
				}
				// Holding page 1: pages 2 to n+1 are in flight.
				for range n + 1 {
					<-srv.arrivals
				}
				break
			}
			if got := sends.n.Load(); got != 0 {
				t.Fatalf("%d requests still in kit's chain after the loop returned", got)
			}
			for range n {
				<-cancelled
			}
			if reqs, _, _ := srv.stats(); reqs != n+1 {
				t.Fatalf("%d requests, want %d", reqs, n+1)
			}
		})
	}
}

// TestPipelineContextCancel: cancelling the walk's context while the
// caller holds a page ends the walk with one error matching
// context.Canceled, and nothing is left in flight.
func TestPipelineContextCancel(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := newPipeServer(1000)
			stallAfterFirst(srv)
			var sends activeSends
			_, ac := setupAsync(t, srv, kit.WithInterceptors(sends.interceptor))
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			n, errs := 0, 0
			for _, err := range w.walk(ctx, ac, kit.PageNumber{PageSize: 10}, kit.WithPrefetch(3)) {
				if err != nil {
					errs++
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("error %v, want context.Canceled", err)
					}
					continue
				}
				if n++; n == 5 {
					<-srv.arrivals // page 1
					<-srv.arrivals // page 2 at least is in flight
					cancel()
				}
			}
			if n != 10 || errs != 1 {
				t.Fatalf("%d records and %d errors, want the 10 of page 1 and one error", n, errs)
			}
			if got := sends.n.Load(); got != 0 {
				t.Fatalf("%d requests still in kit's chain", got)
			}
		})
	}
}

// TestPipelineMaxInFlight: the client's in-flight limit bounds the window,
// even for WithPrefetch(math.MaxInt) (which allocates nothing of that size).
func TestPipelineMaxInFlight(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		for _, n := range []int{8, math.MaxInt} {
			t.Run(fmt.Sprintf("%s/n=%d", w.name, n), func(t *testing.T) {
				t.Parallel()
				srv := newPipeServer(500)
				_, ac := setupAsync(t, srv, kit.WithMaxInFlight(2))
				ids, errs := collect(w.walk(t.Context(), ac, kit.Offset{Limit: 10}, kit.WithPrefetch(n)))
				if len(errs) != 0 || !slices.Equal(ids, seq(1, 500)) {
					t.Fatalf("ids %v, errs %v", ids, errs)
				}
				reqs, most, _ := srv.stats()
				if most > 2 {
					t.Fatalf("%d requests in flight at once, want at most 2", most)
				}
				if reqs > 51+1 {
					t.Fatalf("%d requests for 51 pages, want at most one past the end", reqs)
				}
			})
		}
	}
}

// TestPipelineRateLimit: pages in the window wait for the rate limit: with
// a burst of 3 and no new token for years, 3 of the 8 pages in the window
// are sent, and the rest never are.
func TestPipelineRateLimit(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := newPipeServer(1000)
			srv.arrivals = make(chan int, 100)
			_, ac := setupAsync(t, srv, kit.WithRateLimit(1e-9, 3))
			ctx, cancel := context.WithCancel(t.Context())
			go func() {
				for range 3 {
					<-srv.arrivals
				}
				cancel()
			}()
			var last error
			for _, err := range w.walk(ctx, ac, kit.PageNumber{PageSize: 10}, kit.WithPrefetch(8)) {
				if err != nil {
					last = err
				}
			}
			if !errors.Is(last, context.Canceled) {
				t.Fatalf("walk ended with %v, want context.Canceled", last)
			}
			if reqs, _, _ := srv.stats(); reqs != 3 {
				t.Fatalf("%d requests, want 3 (the burst)", reqs)
			}
		})
	}
}

// TestPipelineMaxPages: WithMaxPages bounds what is named ahead too.
func TestPipelineMaxPages(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := newPipeServer(1000)
			_, ac := setupAsync(t, srv)
			ids, errs := collect(w.walk(t.Context(), ac, kit.PageNumber{PageSize: 10}, kit.WithPrefetch(8), kit.WithMaxPages(3)))
			if len(errs) != 0 || !slices.Equal(ids, seq(1, 30)) {
				t.Fatalf("ids %v, errs %v", ids, errs)
			}
			if reqs, _, _ := srv.stats(); reqs != 3 {
				t.Fatalf("%d requests, want 3", reqs)
			}
		})
	}
}

// TestPipelineOneAhead: a paginator that cannot name pages ahead (Cursor,
// LinkHeader, a custom one) fetches one page ahead: while the caller holds
// page 1, page 2 is requested, and page 3 is not.
func TestPipelineOneAhead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		p          kit.Paginator
	}{
		{"Cursor", "/cursor/users", kit.Cursor{NextKey: "meta.next_cursor"}},
		{"LinkHeader", "/linked/users", kit.LinkHeader{}},
		{"custom", "/paged/users", sequential{kit.PageNumber{PageSize: 20}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			arrivals := make(chan string, 100)
			var requests atomic.Int32
			api := kittest.NewAPI()
			_, ac := setupAsync(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				requests.Add(1)
				arrivals <- r.URL.RawQuery
				api.ServeHTTP(w, r)
			}))
			r := kit.NewAsyncResource[apiUser](ac, tc.path, kit.WithPaginator(tc.p), kit.WithPrefetch(8))
			n := 0
			for _, err := range r.All(t.Context()) {
				if err != nil {
					t.Fatal(err)
				}
				if n++; n == 1 {
					<-arrivals
					<-arrivals // page 2, requested while the caller holds page 1
					if got := requests.Load(); got != 2 {
						t.Fatalf("%d requests while the caller holds page 1, want 2", got)
					}
				}
			}
			if n == 0 {
				t.Fatal("no records")
			}
		})
	}
}

// sequential is a custom paginator that cannot name pages ahead.
type sequential struct{ p kit.PageNumber }

func (s sequential) FirstPage(q url.Values) kit.PageRequest { return s.p.FirstPage(q) }
func (s sequential) NextPage(resp *kit.Response, prev kit.PageRequest) (*kit.PageRequest, error) {
	return s.p.NextPage(resp, prev)
}

// wrongGuess names the page two after prev: always wrong.
type wrongGuess struct{ kit.PageNumber }

func (g wrongGuess) PageAfter(prev kit.PageRequest) (kit.PageRequest, bool) {
	n, _ := strconv.Atoi(prev.Params.Get("page"))
	next := prev.Clone()
	next.Params.Set("page", strconv.Itoa(n+2))
	return next, true
}

// noGuess never names a page ahead.
type noGuess struct{ kit.PageNumber }

func (noGuess) PageAfter(kit.PageRequest) (kit.PageRequest, bool) { return kit.PageRequest{}, false }

// TestPipelineWrongGuesses: NextPage is the authority; a Lookahead that
// guesses wrong, or not at all, costs requests, never records.
func TestPipelineWrongGuesses(t *testing.T) {
	t.Parallel()
	for _, p := range []kit.Paginator{wrongGuess{kit.PageNumber{PageSize: 10}}, noGuess{kit.PageNumber{PageSize: 10}}} {
		for _, w := range pipeWalkers {
			t.Run(fmt.Sprintf("%s/%T", w.name, p), func(t *testing.T) {
				t.Parallel()
				srv := newPipeServer(205)
				_, ac := setupAsync(t, srv)
				ids, errs := collect(w.walk(t.Context(), ac, p, kit.WithPrefetch(4)))
				if len(errs) != 0 || !slices.Equal(ids, seq(1, 205)) {
					t.Fatalf("ids %v, errs %v", ids, errs)
				}
			})
		}
	}
}

// linkAhead names its pages with relative URLs, as a Link header would,
// and can name them ahead.
type linkAhead struct{}

func (linkAhead) FirstPage(q url.Values) kit.PageRequest {
	return kit.PageRequest{URL: "x?page=1&page_size=10"}
}

func (l linkAhead) NextPage(resp *kit.Response, prev kit.PageRequest) (*kit.PageRequest, error) {
	var body struct{ Data []apiUser }
	if err := resp.JSON(&body); err != nil || len(body.Data) < 10 {
		return nil, err
	}
	next, _ := l.PageAfter(prev)
	return &next, nil
}

func (linkAhead) PageAfter(prev kit.PageRequest) (kit.PageRequest, bool) {
	u, err := url.Parse(prev.URL)
	if err != nil {
		return kit.PageRequest{}, false
	}
	n, _ := strconv.Atoi(u.Query().Get("page"))
	return kit.PageRequest{URL: fmt.Sprintf("x?page=%d&page_size=10", n+1)}, true
}

// TestPipelineRelativeURLs: pages named ahead by relative URLs resolve
// like the ones NextPage names, so they are confirmed, not requested twice.
func TestPipelineRelativeURLs(t *testing.T) {
	t.Parallel()
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			t.Parallel()
			srv := newPipeServer(95)
			_, ac := setupAsync(t, srv)
			ids, errs := collect(w.walk(t.Context(), ac, linkAhead{}, kit.WithPrefetch(4)))
			if len(errs) != 0 || !slices.Equal(ids, seq(1, 95)) {
				t.Fatalf("ids %v, errs %v", ids, errs)
			}
			reqs, _, per := srv.stats()
			for page, n := range per {
				if n != 1 {
					t.Fatalf("page %d requested %d times", page, n)
				}
			}
			if reqs > 10+3 {
				t.Fatalf("%d requests for 10 pages, want at most 3 past the end", reqs)
			}
		})
	}
}

// panicky panics in the method named by at, on the page given.
type panicky struct {
	kit.PageNumber
	at   string
	page int
}

func (p panicky) FirstPage(q url.Values) kit.PageRequest {
	if p.at == "FirstPage" {
		panic("boom in FirstPage")
	}
	return p.PageNumber.FirstPage(q)
}

func (p panicky) NextPage(resp *kit.Response, prev kit.PageRequest) (*kit.PageRequest, error) {
	if p.at == "NextPage" && prev.Params.Get("page") == strconv.Itoa(p.page) {
		panic("boom in NextPage")
	}
	return p.PageNumber.NextPage(resp, prev)
}

func (p panicky) PageAfter(prev kit.PageRequest) (kit.PageRequest, bool) {
	if p.at == "PageAfter" {
		panic("boom in PageAfter")
	}
	return p.PageNumber.PageAfter(prev)
}

type panicValidator struct{}

func (panicValidator) Validate(any) error { panic("boom in Validate") }

// TestPipelinePanics: a panic in the paginator or the validator of an
// async walk (pipelined or not) ends the walk with an error carrying the
// panic and its stack; it does not crash the process. A sync walk lets a
// paginator's panic through to its caller, as any function call would.
func TestPipelinePanics(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		p    kit.Paginator
		opts []kit.Option
		ids  []int
	}{
		{"FirstPage", panicky{kit.PageNumber{PageSize: 10}, "FirstPage", 0}, nil, nil},
		{"NextPage", panicky{kit.PageNumber{PageSize: 10}, "NextPage", 3}, nil, seq(1, 30)},
		{"PageAfter", panicky{kit.PageNumber{PageSize: 10}, "PageAfter", 0}, nil, nil},
		{"Validate", kit.PageNumber{PageSize: 10}, []kit.Option{kit.WithValidator(panicValidator{})}, nil},
	}
	for _, tc := range cases {
		for _, w := range pipeWalkers {
			for _, n := range []int{0, 4} {
				t.Run(fmt.Sprintf("%s/%s/n=%d", tc.name, w.name, n), func(t *testing.T) {
					t.Parallel()
					srv := newPipeServer(100)
					_, ac := setupAsync(t, srv, tc.opts...)
					ids, errs := collect(w.walk(t.Context(), ac, tc.p, kit.WithPrefetch(n)))
					want := tc.ids
					if tc.name == "PageAfter" && n == 0 {
						want = seq(1, 100) // a lazy walk does not look ahead
					}
					if !slices.Equal(ids, want) {
						t.Fatalf("ids %v, want %v", ids, want)
					}
					if want := "boom in " + tc.name; tc.name != "PageAfter" || n > 0 {
						if len(errs) != 1 || !strings.Contains(errs[0].Error(), want) || !strings.Contains(fmt.Sprintf("%+v", errs[0]), "goroutine") {
							t.Fatalf("errs %v, want one with %q and a stack", errs, want)
						}
					}
				})
			}
		}
	}
	t.Run("sync", func(t *testing.T) {
		t.Parallel()
		_, c := setup(t, newPipeServer(100))
		r := kit.NewResource[apiUser](c, "/x", kit.WithPaginator(panicky{kit.PageNumber{PageSize: 10}, "NextPage", 2}))
		defer func() {
			if v := recover(); v != "boom in NextPage" {
				t.Fatalf("recovered %v, want the paginator's panic", v)
			}
		}()
		for range r.All(t.Context()) {
		}
		t.Fatal("no panic")
	})
}

// TestPipelineCloseWhileBusy: AsyncClient.Close while the caller is busy
// in its loop body, with pages in flight that the server holds: Close
// cancels them and returns, nothing of kit's is left running, and the walk
// then ends with an error matching ErrClosed.
func TestPipelineCloseWhileBusy(t *testing.T) {
	leakcheck.Check(t)
	for _, w := range pipeWalkers {
		t.Run(w.name, func(t *testing.T) {
			srv := newPipeServer(1000)
			stallAfterFirst(srv)
			var sends activeSends
			_, ac := setupAsync(t, srv, kit.WithInterceptors(sends.interceptor))
			n := 0
			var last error
			for _, err := range w.walk(t.Context(), ac, kit.PageNumber{PageSize: 10}, kit.WithPrefetch(4)) {
				if err != nil {
					last = err
					continue
				}
				if n++; n == 1 {
					for range 5 {
						<-srv.arrivals // page 1, and pages 2 to 5 held by the server
					}
					if err := ac.Close(t.Context()); err != nil {
						t.Fatalf("Close: %v", err)
					}
					if got := sends.n.Load(); got != 0 {
						t.Fatalf("%d requests still in kit's chain after Close", got)
					}
				}
			}
			if n != 10 || !errors.Is(last, kit.ErrClosed) {
				t.Fatalf("%d records, last error %v; want page 1 and ErrClosed", n, last)
			}
		})
	}
}
