// Hostile tests of issue 22 ("issues show 22"): one TestHostileSec...
// function per defect found by attacking the newer features (paged
// endpoints, interceptors, pipelined walks, uploads, streams, `kit:",url"`),
// each naming its defect number, plus the cases of the same class found
// while fixing them. Like hostile_ext_test.go they use kit's public API,
// servers on 127.0.0.1 only, and no timed assertions (waits are bounded by
// the test's context, that is all).
package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// hsSeen records what a server received: each request's URL (path and
// query) and headers.
type hsSeen struct {
	mu   sync.Mutex
	urls []string
	hdrs []http.Header
}

func (s *hsSeen) add(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.urls = append(s.urls, r.URL.RequestURI())
	s.hdrs = append(s.hdrs, r.Header.Clone())
}

func (s *hsSeen) snapshot() ([]string, []http.Header) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.urls), slices.Clone(s.hdrs)
}

// hsRecording wraps h so that every request is recorded in s first.
func hsRecording(s *hsSeen, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.add(r)
		h(w, r)
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
// Defect 3: credential headers set with the client's WithHeader go to
// another origin when a call interceptor rewrites the URL. Credentials go
// only to the base origin, whoever set them, checked where the request
// finally goes. The same class: an attempt interceptor (which runs after
// the auth layer) that moves the request to another origin takes the
// Auth's header or query key along.

// hsMoveTo returns an interceptor that sends every request to target's
// host instead.
func hsMoveTo(target *string) kit.Interceptor {
	return func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			u, err := url.Parse(*target)
			if err != nil {
				return nil, err
			}
			req.URL.Scheme, req.URL.Host = u.Scheme, u.Host
			return next(ctx, req)
		}
	}
}

func TestHostileSecInterceptorRewriteCredentials(t *testing.T) { // defect 3
	cases := []struct {
		name    string
		attempt bool // an attempt interceptor moves the request, else a call interceptor
		opts    []kit.Option
	}{
		{name: "call_WithHeader_Authorization", opts: []kit.Option{kit.WithHeader("Authorization", "Bearer hs-manual")}},
		{name: "call_WithHeader_Cookie", opts: []kit.Option{kit.WithHeader("Cookie", "session=hs-manual")}},
		{name: "call_WithHeader_Proxy-Authorization", opts: []kit.Option{kit.WithHeader("Proxy-Authorization", "Basic aHM6eA==")}},
		{name: "call_WithHeader_APIKey_header", opts: []kit.Option{kit.WithAuth(kit.APIKey("X-Api-Key", "hs-auth")), kit.WithHeader("X-Api-Key", "hs-manual")}},
		{name: "call_Bearer", opts: []kit.Option{kit.WithAuth(kit.Bearer("hs-manual"))}},
		{name: "attempt_Bearer", attempt: true, opts: []kit.Option{kit.WithAuth(kit.Bearer("hs-manual"))}},
		{name: "attempt_APIKeyQuery", attempt: true, opts: []kit.Option{kit.WithAuth(kit.APIKeyQuery("api_key", "hs-manual"))}},
		{name: "attempt_WithHeader_Authorization", attempt: true, opts: []kit.Option{kit.WithHeader("Authorization", "Bearer hs-manual")}},
	}
	for _, tc := range cases {
		for _, async := range []bool{false, true} {
			name := tc.name
			if async {
				name += "_async"
			}
			t.Run(name, func(t *testing.T) {
				var mirror hsSeen
				ok := func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"id":1}`)
				}
				mirrorSrv := hxServer(t, hsRecording(&mirror, ok))
				baseSrv := hxServer(t, ok)
				move := hsMoveTo(&mirrorSrv.URL)
				opts := slices.Clone(tc.opts)
				if tc.attempt {
					opts = append(opts, kit.WithAttemptInterceptors(move))
				} else {
					opts = append(opts, kit.WithInterceptors(move))
				}
				var err error
				if async {
					ac := hxAsyncClient(t, baseSrv.URL, opts...)
					_, err = hxGetRec.Go(hxCtx(t), ac, kit.NoParams{}).Await(hxCtx(t))
				} else {
					c := hxClient(t, baseSrv.URL, opts...)
					_, err = hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
				}
				if err != nil {
					t.Fatal(err)
				}
				urls, hdrs := mirror.snapshot()
				if len(hdrs) != 1 {
					t.Fatalf("the mirror got %d requests, want 1", len(hdrs))
				}
				for _, k := range []string{"Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key"} {
					if v := hdrs[0].Values(k); len(v) > 0 {
						t.Errorf("the mirror (another origin) got %s: %q", k, v)
					}
				}
				if strings.Contains(urls[0], "hs-manual") {
					t.Errorf("the mirror got the API key in its URL: %s", urls[0])
				}
			})
		}
	}
}

// TestHostileSecInterceptorRewriteKeepsDeclared checks the other side of
// defect 3's fix: credentials still go where they belong. A call
// interceptor that moves a request of another origin's endpoint to the
// base origin gets the client's credentials there, and an endpoint
// declared on another origin keeps the headers its call set for it.
func TestHostileSecInterceptorRewriteKeepsDeclared(t *testing.T) {
	var base, upload hsSeen
	ok := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":1}`)
	}
	baseSrv := hxServer(t, hsRecording(&base, ok))
	uploadSrv := hxServer(t, hsRecording(&upload, ok))
	type params struct {
		Auth string `kit:"Authorization,header"`
	}
	ep := kit.Get[params, hxRec](uploadSrv.URL + "/rec")
	c := hxClient(t, baseSrv.URL, kit.WithHeader("Cookie", "session=hs-base"))
	if _, err := ep.Call(hxCtx(t), c, params{"Signed hs-upload"}); err != nil {
		t.Fatal(err)
	}
	_, hdrs := upload.snapshot()
	if len(hdrs) != 1 || hdrs[0].Get("Authorization") != "Signed hs-upload" || hdrs[0].Get("Cookie") != "" {
		t.Errorf("the upload origin got %v; want the call's Authorization and not the client's Cookie", hdrs)
	}
	c = hxClient(t, baseSrv.URL, kit.WithHeader("Cookie", "session=hs-base"), kit.WithAuth(kit.Bearer("hs-base")),
		kit.WithInterceptors(hsMoveTo(&baseSrv.URL)))
	if _, err := ep.Call(hxCtx(t), c, params{}); err != nil {
		t.Fatal(err)
	}
	_, hdrs = base.snapshot()
	if len(hdrs) != 1 || hdrs[0].Get("Authorization") != "Bearer hs-base" {
		t.Errorf("a request moved to the base origin got %v; want the client's Auth", hdrs)
	}
}

// ---------------------------------------------------------------------------
// Defect 4: data race in the multipart body: Read and Close share state
// with no lock, and net/http closes a request body from another goroutine
// while its write loop reads it ("Body must allow Read to be called
// concurrently with Close"). Checked on every body kit makes: multipart,
// raw File, form and JSON, by an attempt interceptor that reads a body of
// its own (GetBody) while another goroutine closes it. Run under -race.

func TestHostileSecBodyReadCloseRace(t *testing.T) { // defect 4
	type upload struct {
		Note  string     `json:"note"`
		Files []kit.File `json:"files"`
	}
	type form struct {
		A string `json:"a"`
	}
	big := strings.Repeat("x", 64<<10)
	files := func() []kit.File {
		fs := make([]kit.File, 8)
		for i := range fs {
			fs[i] = kit.FileFromBytes("f"+strconv.Itoa(i), []byte(big))
		}
		return fs
	}
	type rawParams struct{ Body kit.File }
	type jsonParams struct{ Body form }
	calls := map[string]func(ctx context.Context, c *kit.Client) error{
		"multipart": func(ctx context.Context, c *kit.Client) error {
			_, err := kit.Post[struct{ Form upload }, hxRec]("/rec", kit.Multipart()).Call(ctx, c, struct{ Form upload }{upload{Note: "n", Files: files()}})
			return err
		},
		"raw_File": func(ctx context.Context, c *kit.Client) error {
			_, err := kit.Post[rawParams, hxRec]("/rec").Call(ctx, c, rawParams{files()[0]})
			return err
		},
		"form": func(ctx context.Context, c *kit.Client) error {
			_, err := kit.Post[jsonParams, hxRec]("/rec", kit.FormBody()).Call(ctx, c, jsonParams{form{big}})
			return err
		},
		"json": func(ctx context.Context, c *kit.Client) error {
			_, err := kit.Post[jsonParams, hxRec]("/rec").Call(ctx, c, jsonParams{form{big}})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":1}`)
			})
			var afterClose atomic.Value
			race := func(next kit.Sender) kit.Sender {
				return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
					for range 20 {
						body, err := req.GetBody()
						if err != nil {
							return nil, err
						}
						started := make(chan struct{})
						done := make(chan error, 1)
						go func() {
							buf := make([]byte, 1024)
							close(started)
							for {
								if _, err := body.Read(buf); err != nil {
									done <- err
									return
								}
							}
						}()
						<-started
						body.Close()
						err = <-done
						if err == io.EOF {
							continue // read to the end before Close: nothing to check
						}
						if _, err := body.Read(buf1k()); err == nil {
							afterClose.Store(fmt.Sprintf("a Read after Close returned no error (%T)", body))
						}
					}
					return next(ctx, req)
				}
			}
			c := hxClient(t, srv.URL, kit.WithAttemptInterceptors(race))
			if err := call(hxCtx(t), c); err != nil {
				t.Fatal(err)
			}
			if v := afterClose.Load(); v != nil && name == "multipart" {
				t.Error(v)
			}
		})
	}
}

func buf1k() []byte { return make([]byte, 1024) }

// ---------------------------------------------------------------------------
// Defect 5: an event stream stops resuming after a heartbeat: on a resumed
// connection, ": ping" and a blank line reset the last event id to "", so
// the next drop ends the stream with an error. The id is kept across
// connections, as browsers keep it.

type hsEvent struct {
	N int `json:"n"`
}

var hsEvents = kit.Get[kit.NoParams, *kit.Stream[hsEvent]]("/events")

func TestHostileSecSSEHeartbeatKeepsLastEventID(t *testing.T) { // defect 5
	for _, async := range []bool{false, true} {
		name := "sync"
		if async {
			name = "async"
		}
		t.Run(name, func(t *testing.T) {
			var conns atomic.Int32
			var mu sync.Mutex
			var lastIDs []string
			srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
				n := conns.Add(1)
				mu.Lock()
				lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
				mu.Unlock()
				w.Header().Set("Content-Type", "text/event-stream")
				switch n {
				case 1:
					io.WriteString(w, "id: 1\ndata: {\"n\":1}\n\n")
				case 2:
					io.WriteString(w, ": ping\n\n") // a heartbeat, then the drop
				default:
					io.WriteString(w, "id: 2\ndata: {\"n\":2}\n\ndata: [DONE]\n\n")
					return
				}
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			})
			policy := kit.WithRetry(kit.RetryPolicy{BaseDelay: 1, MaxDelay: 1, MaxAttempts: 5})
			var s *kit.Stream[hsEvent]
			var err error
			if async {
				ac := hxAsyncClient(t, srv.URL, policy)
				s, err = hsEvents.Go(hxCtx(t), ac, kit.NoParams{}).Await(hxCtx(t))
			} else {
				c := hxClient(t, srv.URL, policy)
				s, err = hsEvents.Call(hxCtx(t), c, kit.NoParams{})
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var got []int
			for e, err := range s.Events() {
				if err != nil {
					t.Fatalf("after events %v: %v", got, err)
				}
				got = append(got, e.Data.N)
				if e.Data.N == 2 && e.ID != "2" {
					t.Errorf("event 2 has ID %q", e.ID)
				}
			}
			if !slices.Equal(got, []int{1, 2}) {
				t.Errorf("events %v, want [1 2]", got)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := []string{"", "1", "1"}; !slices.Equal(lastIDs, want) {
				t.Errorf("Last-Event-ID of each connection %q, want %q", lastIDs, want)
			}
		})
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
// Defect 7: pipelined walks take rate-limit tokens out of page order: a
// page ahead may get the first token, so the first record comes late, and
// under a deadline the walk fails where a sync walk succeeds. Tokens are
// reserved in page order.
//
// The limiter here has one token now and the next in an hour, and the
// walk's context a deadline of seconds: whichever page takes the token is
// sent, every other one fails at once. A call interceptor holds page 1
// back until the pages ahead of it have been answered, so that, without
// the reservation in page order, one of them takes the token.

func TestHostileSecPipelinedRateLimitOrder(t *testing.T) { // defect 7
	for _, hw := range hsWalkers {
		t.Run(hw.name, func(t *testing.T) {
			srv := hxServer(t, hxPagesHandler(func(r *http.Request) (string, string) {
				return `[{"id":` + r.URL.Query().Get("page") + `}]`, ""
			}))
			var ahead atomic.Int32
			aheadDone := make(chan struct{})
			window := int32(0)
			if len(hw.opts) > 0 {
				window = 3 // pages 2, 3 and 4 are named ahead with WithPrefetch(4)
			}
			hold := func(next kit.Sender) kit.Sender {
				return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
					if req.URL.Query().Get("page") == "1" && window > 0 {
						select {
						case <-aheadDone:
						case <-ctx.Done():
							return nil, ctx.Err()
						}
						return next(ctx, req)
					}
					resp, err := next(ctx, req)
					if ahead.Add(1) == window {
						close(aheadDone)
					}
					return resp, err
				}
			}
			copts := []kit.Option{kit.WithRateLimit(1.0/3600, 1), kit.WithInterceptors(hold)}
			ids, err := hw.walk(t, srv.URL, "/recs", copts, kit.WithPaginator(kit.PageNumber{PageSize: 1}))
			if !slices.Equal(ids, []int{1}) {
				t.Errorf("records %v before %v; want [1]: page 1 gets the first token", ids, err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("walk ended with %v; want page 2 to fail with context.DeadlineExceeded", err)
			}
		})
	}
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

// ---------------------------------------------------------------------------
// Defect 9: a multipart upload opens every kit.File before sending a byte
// (64 of 64 open at once; 25,000 files hit the descriptor limit). Each part
// is opened when its turn comes, and closed once read.

func TestHostileSecMultipartOpensInTurn(t *testing.T) { // defect 9
	type upload struct {
		Files []kit.File `json:"files"`
	}
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async_%v", async), func(t *testing.T) {
			srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":1}`)
			})
			var open, maxOpen, opened atomic.Int32
			files := make([]kit.File, 64)
			for i := range files {
				files[i] = kit.File{Name: "f" + strconv.Itoa(i), Open: func() (io.ReadCloser, error) {
					n := open.Add(1)
					opened.Add(1)
					for {
						m := maxOpen.Load()
						if n <= m || maxOpen.CompareAndSwap(m, n) {
							break
						}
					}
					return &hsCountedReader{r: strings.NewReader("content " + strconv.Itoa(i)), open: &open}, nil
				}}
			}
			ep := kit.Post[struct{ Form upload }, hxRec]("/rec", kit.Multipart())
			var err error
			if async {
				_, err = ep.Go(hxCtx(t), hxAsyncClient(t, srv.URL), struct{ Form upload }{upload{files}}).Await(hxCtx(t))
			} else {
				_, err = ep.Call(hxCtx(t), hxClient(t, srv.URL), struct{ Form upload }{upload{files}})
			}
			if err != nil {
				t.Fatal(err)
			}
			if maxOpen.Load() != 1 || opened.Load() != 64 || open.Load() != 0 {
				t.Errorf("%d files open at once at most, %d opened, %d left open; want 1, 64, 0", maxOpen.Load(), opened.Load(), open.Load())
			}
		})
	}
	t.Run("open_error_mid_body", func(t *testing.T) {
		var hits atomic.Int32
		srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":1}`)
		})
		boom := errors.New("hs open boom")
		files := []kit.File{kit.FileFromBytes("a", []byte("a")), {Name: "b", Open: func() (io.ReadCloser, error) { return nil, boom }}}
		_, err := kit.Post[struct{ Form upload }, hxRec]("/rec", kit.Multipart()).Call(hxCtx(t), hxClient(t, srv.URL), struct{ Form upload }{upload{files}})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), `"b"`) {
			t.Errorf("upload whose second file fails to open: %v; want an error naming file \"b\" and wrapping its error", err)
		}
	})
}

// hsCountedReader decrements open when closed (once).
type hsCountedReader struct {
	r      io.Reader
	open   *atomic.Int32
	closed atomic.Bool
}

func (c *hsCountedReader) Read(p []byte) (int, error) { return c.r.Read(p) }
func (c *hsCountedReader) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.open.Add(-1)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Defect 10: an interceptor that sets req.URL = nil panics the auth layer
// instead of getting an error. Checked with and without auth, from a call
// interceptor and an attempt interceptor, sync and async, and for the
// other fields an interceptor may empty (a nil Header is an empty one).

func TestHostileSecInterceptorNilURL(t *testing.T) { // defect 10
	mutations := map[string]func(*kit.Request){
		"URL_nil":     func(r *kit.Request) { r.URL = nil },
		"URL_no_host": func(r *kit.Request) { r.URL = &url.URL{Path: "/rec"} },
		"Header_nil":  func(r *kit.Request) { r.Header = nil },
	}
	srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":1}`)
	})
	for mname, mutate := range mutations {
		for _, attempt := range []bool{false, true} {
			for _, auth := range []bool{false, true} {
				for _, async := range []bool{false, true} {
					name := fmt.Sprintf("%s/attempt_%v/auth_%v/async_%v", mname, attempt, auth, async)
					t.Run(name, func(t *testing.T) {
						ic := func(next kit.Sender) kit.Sender {
							return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
								mutate(req)
								return next(ctx, req)
							}
						}
						var opts []kit.Option
						if attempt {
							opts = append(opts, kit.WithAttemptInterceptors(ic))
						} else {
							opts = append(opts, kit.WithInterceptors(ic))
						}
						if auth {
							// Every layer of the chain between the
							// interceptors and the transport.
							opts = append(opts, kit.WithAuth(kit.Bearer("hs-nil")), kit.WithRateLimit(1000, 10),
								kit.WithCache(kit.NewMemoryCache(1<<20)), kit.WithServerRateLimit(time.Second),
								kit.WithRetry(kit.RetryPolicy{MaxAttempts: 2, BaseDelay: 1}))
						}
						var err error
						p := hxCatch(func() {
							if async {
								_, err = hxGetRec.Go(hxCtx(t), hxAsyncClient(t, srv.URL, opts...), kit.NoParams{}).Await(hxCtx(t))
							} else {
								_, err = hxGetRec.Call(hxCtx(t), hxClient(t, srv.URL, opts...), kit.NoParams{})
							}
						})
						if p != nil {
							t.Fatalf("panicked: %v", p)
						}
						var pe *kit.PanicError
						if errors.As(err, &pe) {
							t.Fatalf("a kit layer panicked: %v", err)
						}
						if mname == "Header_nil" {
							if err != nil {
								t.Fatalf("a nil Header is an empty one: %v", err)
							}
							return
						}
						if err == nil {
							t.Fatal("no error")
						}
						if !strings.HasPrefix(err.Error(), "kit: ") {
							t.Errorf("error %q does not start with kit: ", err)
						}
					})
				}
			}
		}
	}
}

// ---------------------------------------------------------------------------
// Same class as defects 2 and 3, found while fixing them: a `kit:",url"`
// value is a URL a server sent (a Location to follow). The credential
// headers a call carries, the endpoint's own WithHeader and the call's
// header parameters included, were declared for the endpoint's origin,
// not for wherever that server points: they do not follow a URL value to
// another origin. Nor does the base URL's query.

func TestHostileSecURLFieldCredentials(t *testing.T) {
	type follow struct {
		URL  string `kit:",url"`
		Auth string `kit:"Authorization,header"`
	}
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async_%v", async), func(t *testing.T) {
			var other, base hsSeen
			ok := func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":1}`)
			}
			otherSrv := hxServer(t, hsRecording(&other, ok))
			baseSrv := hxServer(t, hsRecording(&base, ok))
			ep := kit.Get[follow, hxRec]("/jobs", kit.WithHeader("Cookie", "session=hs-endpoint"))
			copts := []kit.Option{kit.WithAuth(kit.APIKeyQuery("api_key", "hs-query")), kit.WithHeader("Authorization", "Bearer hs-client")}
			call := func(p follow) error {
				if async {
					_, err := ep.Go(hxCtx(t), hxAsyncClient(t, baseSrv.URL+"/?key=hs-base", copts...), p).Await(hxCtx(t))
					return err
				}
				_, err := ep.Call(hxCtx(t), hxClient(t, baseSrv.URL+"/?key=hs-base", copts...), p)
				return err
			}
			if err := call(follow{URL: otherSrv.URL + "/jobs/7", Auth: "Bearer hs-param"}); err != nil {
				t.Fatal(err)
			}
			urls, hdrs := other.snapshot()
			if len(hdrs) != 1 {
				t.Fatalf("the other origin got %d requests", len(hdrs))
			}
			for _, k := range []string{"Authorization", "Cookie"} {
				if v := hdrs[0].Values(k); len(v) > 0 {
					t.Errorf("a URL value on another origin got %s: %q", k, v)
				}
			}
			if strings.Contains(urls[0], "hs-") {
				t.Errorf("a URL value on another origin got %s", urls[0])
			}
			// On the base origin the same call carries all of them.
			if err := call(follow{URL: "jobs/7", Auth: "Bearer hs-param"}); err != nil {
				t.Fatal(err)
			}
			urls, hdrs = base.snapshot()
			if len(hdrs) != 1 || hdrs[0].Get("Authorization") != "Bearer hs-param" || hdrs[0].Get("Cookie") != "session=hs-endpoint" ||
				!strings.Contains(urls[0], "api_key=hs-query") || !strings.Contains(urls[0], "key=hs-base") {
				t.Errorf("a URL value on the base origin got %v %v", urls, hdrs)
			}
		})
	}
}

// TestHostileSecMultipartHTTP2Cancel is defect 4 as it shows in use: an
// upload over HTTP/2 cancelled while the transport's write loop reads the
// body, which the transport then closes from another goroutine. Under
// -race the unguarded body reports a data race; the call must end with
// the context's error, and every File opened must be closed.
func TestHostileSecMultipartHTTP2Cancel(t *testing.T) { // defect 4
	type upload struct {
		Files []kit.File `json:"files"`
	}
	got := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 64<<10)
		io.ReadFull(r.Body, buf)
		select {
		case got <- struct{}{}:
		default:
		}
		io.Copy(io.Discard, r.Body)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := hxClient(t, srv.URL, kit.WithHTTPClient(srv.Client()))
	ep := kit.Post[struct{ Form upload }, hxRec]("/up", kit.Multipart())
	var open atomic.Int32
	part := strings.Repeat("y", 1<<20)
	for round := range 5 {
		files := make([]kit.File, 16)
		for i := range files {
			files[i] = kit.File{Name: "f" + strconv.Itoa(i), Open: func() (io.ReadCloser, error) {
				open.Add(1)
				return &hsCountedReader{r: strings.NewReader(part), open: &open}, nil
			}}
		}
		ctx, cancel := context.WithCancel(hxCtx(t))
		go func() {
			select {
			case <-got:
			case <-ctx.Done():
			}
			cancel()
		}()
		_, err := ep.Call(ctx, c, struct{ Form upload }{upload{files}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: cancelled upload: %v; want an error matching context.Canceled", round, err)
		}
	}
	// The transport closes the body after the call returns; wait for it.
	for i := 0; open.Load() != 0 && i < 5000; i++ {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d files left open", n)
	}
}

// TestHostileSecInterceptorNilURLAnswered is defect 10's other road: an
// interceptor that empties the URL and answers the call itself (a cache),
// for a call and for the pages of a walk, whose next links resolve
// against the URL of the page before.
func TestHostileSecInterceptorNilURLAnswered(t *testing.T) {
	srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the server got %s", r.URL)
	})
	answer := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			page := req.URL.Query().Get("p")
			req.URL = nil
			h := http.Header{"Content-Type": {"application/json"}}
			if page == "" {
				h.Set("Link", `</recs?p=2>; rel="next"`)
				return kit.NewResponse(200, h, []byte(`[{"id":1}]`)), nil
			}
			return kit.NewResponse(200, h, []byte(`[{"id":2}]`)), nil
		}
	}
	for _, hw := range hsWalkers {
		t.Run(hw.name, func(t *testing.T) {
			var ids []int
			var err error
			if p := hxCatch(func() {
				ids, err = hw.walk(t, srv.URL, "/recs", []kit.Option{kit.WithInterceptors(answer)}, kit.WithPaginator(kit.LinkHeader{}))
			}); p != nil {
				t.Fatalf("panicked: %v", p)
			}
			if err != nil || !slices.Equal(ids, []int{1, 2}) {
				t.Errorf("walk answered by an interceptor: %v, %v; want [1 2]", ids, err)
			}
		})
	}
	t.Run("call", func(t *testing.T) {
		var err error
		var got hxRec
		if p := hxCatch(func() {
			got, err = hxGetRec.Call(hxCtx(t), hxClient(t, srv.URL, kit.WithInterceptors(answer)), kit.NoParams{})
		}); p != nil {
			t.Fatalf("panicked: %v", p)
		}
		// [{"id":1}] is not an hxRec: a decode error, not a panic.
		var de *kit.DecodeError
		if !errors.As(err, &de) || got.ID != 0 {
			t.Errorf("call answered by an interceptor with an array: %+v, %v; want a *kit.DecodeError", got, err)
		}
	})
}
