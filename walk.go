package kit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Private implementation past this point.
//
// walk.go is the one page walk behind Resource, AsyncResource and
// PagedEndpoint, sync and async: ask the paginator for a request, fetch
// the page, yield it, ask for the next one. Guards end a walk that does not
// advance.
//
// A sync walk fetches each page on the caller's goroutine when the records
// before it are used up. An async walk fetches each page on a tracked
// goroutine of its own (so AsyncClient.Close waits for it, and a panic in
// user code becomes the walk's error), and with WithPrefetch(n) keeps
// requests in flight ahead of the caller:
//
//   - The queue holds the pages requested and not yet handed to the caller,
//     in walk order. q[0] is the page the caller gets next.
//   - With a Lookahead paginator, the queue is topped up with the pages
//     PageAfter names, up to n requests in flight (n+1 entries while the
//     caller holds q[0]); with any other paginator, NextPage names the one
//     page after q[0] before q[0] is yielded.
//   - Pages are handled strictly in order: guard, then NextPage. NextPage
//     stays the authority: the request it returns must be the one queued
//     next (compared by URL), or the queue past q[0] is cancelled and the
//     walk goes on from NextPage's request. So a walk yields exactly the
//     records a sync walk would, whatever PageAfter names.
//   - A page that fails is yielded (as the error) only when its turn comes;
//     when an earlier page ends the walk, its error is discarded.
//   - Cancelled requests wait in the graveyard until their goroutine has
//     returned; leaving the loop cancels everything and waits for it.
//
// Memory follows the queue, which holds at most min(n, the client's
// WithMaxInFlight) requests in flight: never a buffer sized by n.

// walk is the state of one page walk: what it walks (a resource's or a
// paged endpoint's collection), where it is, and its guards. Not safe for
// concurrent use: only the goroutine ranging over the walk touches it.
type walk struct {
	st     *clientState
	d      *endpointDecl // the GET of every page: its name and call policy
	pg     *pagingConfig
	chain  Sender        // the sync or async chain the pages go through
	base   string        // the collection's URL, without query
	header http.Header   // header parameters sent with every page
	query  url.Values    // the caller's query (a private copy)
	call   *callSettings // the call's options, for every page; nil: none
	post   bool          // the pages are POST requests with a JSON body (PagedPost)
	body   []byte        // a POST walk's body model as a JSON object; nil: {}
	origin *url.URL      // the origin of base: every page of the walk is on it
	// baseQuery is the base URL's query, sent on every page of a walk on
	// the base URL's origin; nil for a walk of another origin.
	baseQuery url.Values

	req        *PageRequest // the next request the paginator asked for; nil: over
	seen       seenHashes   // the requests sent (URL, and a POST walk's body)
	records    seenHashes   // the records of the pages received (non-empty ones)
	prevReqURL *url.URL     // URL of the request that produced the last page; next links resolve against it
	pages      int
	maxPages   int // WithMaxPages in force: the call's, the declaration's, the client's; 0: none
	prefetch   int // WithPrefetch in force, likewise

	// secretPath holds the runs of base's path that secret path
	// parameters filled (see redactor): redacted in every page's URL.
	secretPath []string
}

// redactor is how the walk reports URLs: its collection's secret path
// parameters stay redacted in the links the server sends back.
func (w *walk) redactor() redactor {
	return redactor{secrets: &w.st.secrets, path: w.secretPath}
}

// newWalk returns a walk of the collection at base; first must be called
// before the walk's first request.
// cs is the call's settings (nil: none).
func newWalk(st *clientState, d *endpointDecl, pg *pagingConfig, cs *callSettings, chain Sender, base string, header http.Header, query url.Values) *walk {
	if len(header) > 0 {
		// Every page's request gets these values; capped slices make an
		// interceptor's Header.Add on one request copy, not share.
		h := make(http.Header, len(header))
		for k, vs := range header {
			h[k] = slices.Clip(vs)
		}
		header = h
	}
	w := &walk{st: st, d: d, pg: pg, call: cs, chain: chain, base: base, header: header, query: query}
	var call requestConfig
	if cs != nil {
		call = cs.requestConfig
	}
	w.maxPages = pick(call.setMaxPages, call.maxPages, d.setMaxPages, d.maxPages, st.maxPages)
	w.prefetch = pick(call.setPrefetch, call.prefetch, d.setPrefetch, d.prefetch, st.prefetch)
	w.origin, _ = url.Parse(base)
	if w.origin == nil || st.sameOrigin(w.origin) {
		w.origin = st.base
		w.baseQuery = st.builder.baseQuery
	}
	return w
}

// first asks the paginator for the first request.
func (w *walk) first() error {
	first := w.pg.paginator.FirstPage(cloneValues(w.query))
	w.req = &first
	return nil
}

// pageTarget is what one page request sends: its URL and, in a POST
// walk, its JSON body.
type pageTarget struct {
	url  string
	body []byte // nil in a GET walk
}

// same reports whether t and o are the same request.
func (t pageTarget) same(o pageTarget) bool {
	return t.url == o.url && string(t.body) == string(o.body)
}

// nextTarget returns the target of the request the paginator asked for,
// and records it: a zero target (url "") when the walk is over (no
// request, or WithMaxPages reached); an error for a request the walk has
// already sent (the same URL, and in a POST walk the same body).
func (w *walk) nextTarget() (pageTarget, error) {
	if w.req == nil || (w.maxPages > 0 && w.pages >= w.maxPages) {
		return pageTarget{}, nil
	}
	t, err := w.target(*w.req, w.prevReqURL)
	if err != nil {
		return pageTarget{}, err
	}
	key := t.url
	if w.post {
		key += "\x00" + string(t.body)
	}
	if _, seen := w.seen.add(key, 0); seen {
		what := w.redactor().text(t.url)
		if w.post {
			what = "POST " + what + " with the same body"
		}
		return pageTarget{}, errorf(w.op(), "%w: paginator %T asked for %s, which the walk has already requested", ErrPageLoop, w.pg.paginator, what)
	}
	return t, nil
}

// target turns a PageRequest into its URL and body; prev is the URL of the
// page before (nil for the first).
func (w *walk) target(pr PageRequest, prev *url.URL) (pageTarget, error) {
	u, err := w.pageURL(pr, prev)
	if err != nil {
		return pageTarget{}, err
	}
	body, err := w.pageBody(pr)
	if err != nil {
		return pageTarget{}, err
	}
	return pageTarget{url: u, body: body}, nil
}

// pageBody is the JSON body of a POST walk's page: the body model's
// fields, with the page's Body fields replacing those of the same name
// and added after them. A GET walk has none, and refuses a Body.
func (w *walk) pageBody(pr PageRequest) ([]byte, error) {
	if !w.post {
		if len(pr.Body) > 0 {
			return nil, errorf(w.op(), "paginator %T sets PageRequest.Body, but the walk sends GET requests, which have no body (a body cursor needs kit.PagedPost)", w.pg.paginator)
		}
		return nil, nil
	}
	if len(pr.Body) == 0 {
		if w.body == nil {
			return emptyObject, nil
		}
		return w.body, nil
	}
	body, err := mergeBody(w.body, pr.Body)
	if err != nil {
		return nil, errorf(w.op(), "page body: %w", err)
	}
	return body, nil
}

var (
	emptyObject   = []byte("{}")
	jsonMediaType = []string{"application/json"}
)

// mergeBody writes the JSON object base (nil: {}) with the members of set
// replacing those of the same name, in sorted order after the others.
func mergeBody(base []byte, set map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf)
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	if base != nil {
		dec := jsontext.NewDecoder(bytes.NewReader(base))
		if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
			return nil, errors.New("the body model is not a JSON object, so a page cannot set fields of it")
		}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before ReadValue voids tok
			val, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			if _, replaced := set[name]; replaced {
				continue
			}
			if err := enc.WriteToken(jsontext.String(name)); err != nil {
				return nil, err
			}
			if err := enc.WriteValue(val); err != nil {
				return nil, err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		v, err := marshalJSON(set[k])
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", k, err)
		}
		if err := enc.WriteToken(jsontext.String(k)); err != nil {
			return nil, err
		}
		if err := enc.WriteValue(v); err != nil {
			return nil, err
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// build makes the request of a page at t.
func (w *walk) build(t pageTarget) (*Request, error) {
	req, err := w.st.builder.build(w.d, &routed{header: w.header, call: w.call}, t.url)
	if err != nil {
		return nil, err
	}
	req.secretPath = w.secretPath
	if w.st.failover != nil && w.prevReqURL == nil {
		w.st.failover.markPage(req) // fails over until a page is served
	}
	if !w.post {
		return req, nil
	}
	req.GetBody = bytesBody(t.body)
	req.ContentLength = int64(len(t.body))
	if _, ok := req.Header["Content-Type"]; !ok {
		req.Header["Content-Type"] = jsonMediaType
	}
	return req, nil
}

// guard records a fetched page, refusing one whose records (the raw JSON
// of its records array, when it has at least one) are exactly those of an
// earlier page of the walk: a server that loops, by URL or by content
// (page 3 = page 1 under a new URL), is caught at the first repeat, before
// a record is yielded twice.
func (w *walk) guard(resp *Response) error {
	w.pages++
	if resp.page != nil {
		resp.page.Index = w.pages
	}
	if resp.page != nil && len(bytes.TrimSpace(resp.page.Span)) > 2 {
		if first, seen := w.records.add(string(resp.page.Span), w.pages); seen {
			return errorf(w.op(), "%w: page %d has exactly the records of page %d", ErrPageLoop, w.pages, first)
		}
	}
	if resp.Request != nil {
		if w.st.failover != nil {
			w.st.failover.pinWalk(w, resp)
		}
		w.prevReqURL = resp.Request.URL
	}
	return nil
}

// advance asks the paginator for the request after the page of resp.
// When a built-in paginator has no next request of its own making
// (errCannotAdvance), the walk follows the server's Link rel="next"
// instead, if there is one: a server-sent link is better than nothing, and
// pageURL keeps it on the walk's origin.
func (w *walk) advance(resp *Response) error {
	next, err := w.pg.paginator.NextPage(resp, *w.req)
	if errors.Is(err, errCannotAdvance) {
		if link, ok := linkNext(resp, *w.req); ok {
			next, err = link, nil
		}
	}
	if err != nil {
		return errorf(w.op(), "paginator %T: %w", w.pg.paginator, err)
	}
	w.req = next
	return nil
}

// collectionURL is the URL of the collection with a query: the base
// URL's query only on the base URL's origin.
func (w *walk) collectionURL(q url.Values) string {
	q = mergeQuery(w.baseQuery, w.d.tmpl.Static, q)
	if len(q) == 0 {
		return w.base
	}
	return w.base + "?" + q.Encode()
}

// pageURL turns a PageRequest into the URL to fetch. A URL in the request
// is resolved against prev (the URL of the page before), completed with the
// caller's query parameters it lacks, and refused on another origin than
// the walk's: a walk of another origin's paged endpoint never follows a
// link to the base URL's origin, where it would carry the client's
// credentials to a path that server chose (a confused deputy).
func (w *walk) pageURL(pr PageRequest, prev *url.URL) (string, error) {
	if pr.URL == "" {
		return w.collectionURL(pr.Params), nil
	}
	ref, err := parseURL(pr.URL) // its error leaves the URL out
	if err != nil {
		return "", errorf(w.op(), "bad next-page URL: %w", err)
	}
	base := prev
	if base == nil {
		base, _ = url.Parse(w.collectionURL(nil))
	}
	u := base.ResolveReference(ref)
	if !sameOrigin(u, w.origin) {
		if w.origin == w.st.base {
			return "", errorf(w.op(), "next page %s: %w %s", w.redactor().url(u), ErrCrossOrigin, w.st.origin())
		}
		return "", errorf(w.op(), "next page %s: %w: the walk is on %s", w.redactor().url(u), ErrCrossOrigin, w.originText())
	}
	q := u.Query()
	added := false
	for _, src := range []url.Values{pr.Params, w.query} {
		for k, vs := range src {
			if _, ok := q[k]; !ok {
				q[k] = append([]string(nil), vs...)
				added = true
			}
		}
	}
	if added {
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), nil
}

// originText is scheme://host of the walk's origin.
func (w *walk) originText() string {
	return w.origin.Scheme + "://" + strings.ToLower(w.origin.Host)
}

// op is what a walk attempts, for its errors: walking the pages of the
// collection's (redacted) URL.
func (w *walk) op() string {
	return w.d.method + " " + w.redactor().text(w.collectionURL(nil)) + ": walking pages"
}

// window is how many page requests an async walk keeps in flight ahead of
// the caller: WithPrefetch's n with a Lookahead paginator, 1 with another,
// never more than the client's in-flight limit; 0 for a strictly lazy walk.
func (w *walk) window() int {
	n := w.prefetch
	if n <= 0 {
		return 0
	}
	if w.pg.ahead == nil {
		n = 1
	}
	return w.st.limits.window(n)
}

// walkPages is the page walk of every resource and paged endpoint, for
// records of type T: walkAny making *Page[T] pages.
func walkPages[T any](ctx context.Context, async bool, start func() (*walk, error)) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		walkAny(ctx, async, pageOf[T]{}, start, func(p any, err error) bool {
			page, _ := p.(*Page[T])
			return yield(page, err)
		})
	}
}

// walkAny ranges over a page walk, yielding the pages pm makes. start
// makes the walk's state when ranging begins; its error is the walk's one
// error. A sync walk fetches each page on the caller's goroutine; an async
// one (async set, w.chain the async chain) on goroutines of its own, up to
// w.window() pages ahead. Pages are yielded in order, every page fetched
// included; an error is yielded once and ends the walk. It is not
// generic: the typed walks are thin layers over it.
func walkAny(ctx context.Context, async bool, pm pageMaker, start func() (*walk, error), yield func(any, error) bool) {
	w, err := start()
	if err != nil {
		yield(nil, err)
		return
	}
	if ctx == nil {
		yield(nil, errorf(w.op(), "nil Context"))
		return
	}
	give := func(f *pageFetch, err error) bool {
		if err != nil {
			return yield(nil, err)
		}
		return yield(f.page, nil)
	}
	if octx, wo := w.st.observe.walk(ctx, w.d); wo != nil {
		ctx = octx // this ranging's: an observer's context must not outlive it
		defer func() { wo.end(w.pages) }()
		give = func(f *pageFetch, err error) bool {
			if err != nil {
				wo.err = err
				return yield(nil, err)
			}
			n := 0
			if f.resp.page != nil {
				n = f.resp.page.Records
			}
			wo.page(w.pages, n, f.resp)
			return yield(f.page, nil)
		}
	}
	r := &pageRun{w: w, pm: pm, caller: ctx, ctx: ctx, async: async}
	if async {
		r.window = w.window()
		r.ctx, r.cancel = context.WithCancelCause(ctx)
		// AsyncClient.Close cancels the walk's requests at once.
		unhook := context.AfterFunc(w.st.work.walkLife(), func() { r.cancel(errCloseCancelled) })
		defer unhook()
		defer r.stop()
	}
	if err := r.protect(w.first); err != nil {
		give(nil, err)
		return
	}
	r.loop(give)
}

// pageRun is one ranging over a walk: the walk and the queue of requests
// past the caller's position (see the notes at the top of the file).
type pageRun struct {
	w      *walk
	pm     pageMaker       // makes the pages
	caller context.Context // the caller's
	ctx    context.Context // the walk's: cancelled when an async walk ends, or by Close
	cancel context.CancelCauseFunc
	async  bool
	window int

	q         []*pageFetch // requested, not yet handed to the caller, in order
	graveyard []*pageFetch // cancelled; their goroutines may still run
}

// pageFetch is one page request of a walk: started on a goroutine of its
// own (async), or to be sent when the caller needs the page (sync).
type pageFetch struct {
	pr     PageRequest // what the paginator asked for or named ahead
	target pageTarget  // what is requested, for comparing with NextPage's
	req    *Request
	cancel context.CancelFunc // async only
	done   chan struct{}      // async only: closed once page, err are set and the goroutine is done with kit's work
	page   any                // made by the walk's pageMaker
	resp   *Response          // page's
	err    error
}

func (r *pageRun) loop(yield func(*pageFetch, error) bool) {
	w := r.w
	for {
		if len(r.q) == 0 {
			t, err := w.nextTarget()
			if err != nil {
				yield(nil, err)
				return
			}
			if t.url == "" {
				return
			}
			if err := r.enqueue(*w.req, t); err != nil {
				yield(nil, err)
				return
			}
		}
		if err := r.caller.Err(); err != nil {
			yield(nil, errorf(w.op(), "%w", err))
			return
		}
		if err := r.ahead(r.window, 0); err != nil {
			yield(nil, err)
			return
		}
		page, err := r.wait(r.q[0])
		if err != nil {
			yield(nil, err)
			return
		}
		if err := w.guard(page.resp); err != nil {
			yield(nil, err)
			return
		}
		// after is an error to yield after the page; over: the page is
		// the last.
		var after error
		over := false
		if r.window > 0 {
			// Name and start the next page before the caller gets this
			// one, so that it is fetched while the caller works.
			over, after = r.next(page.resp)
		}
		if !yield(page, nil) {
			return
		}
		r.q[0] = nil
		r.q = r.q[1:]
		if r.window == 0 {
			after = r.protect(func() error { return w.advance(page.resp) })
		}
		if after != nil {
			yield(nil, after)
			return
		}
		if over {
			return
		}
	}
}

// next asks the paginator for the page after q[0], whose response is resp,
// and makes sure it is q[1]: confirmed when it was named ahead, started
// otherwise. Then it tops the queue up. over is true when q[0] is the last
// page; after is an error that ends the walk once q[0] is yielded.
func (r *pageRun) next(resp *Response) (over bool, after error) {
	w := r.w
	if err := r.protect(func() error { return w.advance(resp) }); err != nil {
		r.discard(1)
		return true, err
	}
	t, err := w.nextTarget()
	if err != nil || t.url == "" {
		r.discard(1)
		return true, err
	}
	if len(r.q) < 2 || !r.q[1].target.same(t) {
		r.discard(1)
		if err := r.enqueue(*w.req, t); err != nil {
			return true, err
		}
	}
	return false, r.ahead(r.window+1, 1)
}

// enqueue builds the request of pr at t and starts it at the end of the
// queue.
func (r *pageRun) enqueue(pr PageRequest, t pageTarget) error {
	req, err := r.w.build(t)
	if err != nil {
		return err
	}
	r.q = append(r.q, r.start(&pageFetch{pr: pr, target: t, req: req}))
	return nil
}

// ahead tops the queue up to limit entries with the pages a Lookahead
// paginator names, within WithMaxPages; received is how many entries at
// the front have been received and counted by guard (0 or 1). A page that
// cannot be named ahead ends the topping up, not the walk: NextPage will
// name it, or end the walk with the error.
func (r *pageRun) ahead(limit, received int) error {
	la := r.w.pg.ahead
	if la == nil || r.window == 0 {
		return nil
	}
	w := r.w
	for len(r.q) < limit {
		if w.maxPages > 0 && w.pages+len(r.q)-received >= w.maxPages {
			return nil
		}
		last := r.q[len(r.q)-1]
		var (
			next PageRequest
			ok   bool
		)
		if err := r.protect(func() error {
			next, ok = la.PageAfter(last.pr)
			return nil
		}); err != nil {
			return err
		}
		if !ok {
			return nil
		}
		var prev *url.URL
		if next.URL != "" {
			// Resolved against the URL last asked for, parsed again: its
			// Request belongs to the goroutine sending it now.
			prev, _ = url.Parse(last.target.url)
		}
		t, err := w.target(next, prev)
		if err != nil || t.same(last.target) {
			return nil
		}
		req, err := w.build(t)
		if err != nil {
			return nil
		}
		r.q = append(r.q, r.start(&pageFetch{pr: next, target: t, req: req}))
	}
	return nil
}

// start sends f's request on a tracked goroutine of its own (async walks);
// a sync walk sends it in wait.
func (r *pageRun) start(f *pageFetch) *pageFetch {
	if !r.async {
		return f
	}
	ctx, cancel := context.WithCancel(r.ctx)
	f.cancel, f.done = cancel, make(chan struct{})
	if r.window > 0 {
		// Pages are started in page order: so are their tokens.
		f.req.token = r.w.st.limits.ticket()
	}
	what := r.w.st.opOf(f.req)
	task, err := r.w.st.beginAsync(ctx)
	if err != nil {
		f.req.token.release()
		f.err = errorf(what, "%w", err)
		close(f.done)
		return f
	}
	go func() {
		returned := false
		defer close(f.done) // last: the task has ended
		defer task.end()
		defer f.req.token.release()
		defer func() {
			if !returned {
				// A panic in a validator, an interceptor or an auth.
				f.page, f.err = nil, recovered(what, recover())
			}
			f.err = task.wrap(f.err)
		}()
		f.page, f.resp, f.err = getPage(task.ctx, r.w.st, r.w.pg.layout, r.w.chain, f.req, r.pm)
		returned = true
	}()
	return f
}

// wait returns f's page, fetching it now in a sync walk.
func (r *pageRun) wait(f *pageFetch) (*pageFetch, error) {
	if f.done == nil {
		f.page, f.resp, f.err = getPage(r.ctx, r.w.st, r.w.pg.layout, r.w.chain, f.req, r.pm)
	} else {
		<-f.done
	}
	if f.err != nil {
		return nil, f.err
	}
	return f, nil
}

// discard cancels the requests from q[i] on.
func (r *pageRun) discard(i int) {
	if i >= len(r.q) {
		return
	}
	live := r.graveyard[:0]
	for _, f := range r.graveyard {
		select {
		case <-f.done:
		default:
			live = append(live, f)
		}
	}
	clear(r.graveyard[len(live):])
	r.graveyard = live
	for j, f := range r.q[i:] {
		if f.cancel != nil {
			f.cancel()
			r.graveyard = append(r.graveyard, f)
		}
		r.q[i+j] = nil
	}
	r.q = r.q[:i]
}

// stop cancels every request of an async walk still in flight and waits
// until their goroutines are done, so that nothing of the walk outlives
// the range statement.
func (r *pageRun) stop() {
	r.cancel(nil)
	for _, fs := range [][]*pageFetch{r.q, r.graveyard} {
		for _, f := range fs {
			if f != nil && f.done != nil {
				<-f.done
			}
		}
	}
}

// protect calls fn, the walk's call into a paginator. In an async walk a
// panic there ends the walk with an error carrying it and its stack, as it
// would on one of the walk's goroutines; a sync walk lets it through to
// the caller.
func (r *pageRun) protect(fn func() error) (err error) {
	if !r.async {
		return fn()
	}
	returned := false
	defer func() {
		if !returned {
			err = errorf(r.w.op(), "paginator %T: %w", r.w.pg.paginator, newPanicOrExit(recover()))
		}
	}()
	err = fn()
	returned = true
	return err
}

// records flattens a page walk into a record walk.
func records[T any](pages iter.Seq2[*Page[T], error]) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for page, err := range pages {
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, rec := range page.Records {
				if !yield(rec, nil) {
					return
				}
			}
		}
	}
}

// seenHashes remembers what a walk has seen: the URLs it requested, so
// that a paginator that cycles (A, B, A, B, ...) is caught at its first
// repeat, and the records of the pages it received, so that a server that
// cycles by content under new URLs is too. It keeps a 64-bit hash (and the
// page number) per entry, for the last maxSeen pages: a cycle shorter than
// that is always caught, in about 50 bytes of memory per page remembered,
// whatever the size of the pages. Two different pages that hash alike (one
// chance in 2^64 for a pair) would be taken for a repeat.
type seenHashes struct {
	set   map[uint64]int // hash → the page number it was added with
	order []uint64       // ring of the hashes in set, oldest at next
	next  int
}

// maxSeen bounds the memory of one walk's seenHashes (about 3 MiB each).
const maxSeen = 1 << 16

var seenSeed = maphash.MakeSeed()

// add records s (with page number page) and reports whether it was seen
// before, and with which page number.
func (h *seenHashes) add(s string, page int) (first int, seen bool) {
	k := maphash.String(seenSeed, s)
	if first, ok := h.set[k]; ok {
		return first, true
	}
	if h.set == nil {
		h.set = make(map[uint64]int)
	}
	if len(h.order) < maxSeen {
		h.order = append(h.order, k)
	} else {
		delete(h.set, h.order[h.next])
		h.order[h.next] = k
		h.next = (h.next + 1) % maxSeen
	}
	h.set[k] = page
	return 0, false
}
