package kit

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/jsonpath"
	"github.com/kithttp/kit/internal/linkheader"
	"github.com/kithttp/kit/internal/pagescan"
)

// Paginator decides which pages a resource walk requests. FirstPage gets a
// copy of the caller's query and returns the first request; NextPage gets
// the response of the last page and the request that produced it, and
// returns the next request, or nil to stop. Implementations must be safe for
// concurrent use (the built-ins are immutable values) and must not modify
// prev.Params: copy it ([PageRequest.Clone]) before changing it.
//
// A paginator that also has an ItemsPath() string method names the dotted
// key of the records in a page (the built-ins do, from ItemsKey); without
// it, or when it returns "", records are found by the default rules: a
// top-level JSON array as is, else the first of "data", "items", "results"
// that holds an array (null is an empty page).
type Paginator interface {
	FirstPage(params url.Values) PageRequest
	NextPage(resp *Response, prev PageRequest) (*PageRequest, error)
}

// Lookahead is implemented by paginators that can name the page after
// another without seeing its response, as [PageNumber] and [Offset] can: the
// request for page 3 is page=3, whatever page 2 holds. An async walk with
// WithPrefetch(n) uses it to keep up to n page requests in flight at once;
// with a paginator that is not a Lookahead it fetches one page ahead.
//
// PageAfter returns the request NextPage would return after the page of
// prev if that page were full (not the last); ok is false when it cannot
// tell, and the walk then waits for NextPage. Like NextPage it must not
// modify prev.Params, and it must be safe for concurrent use.
//
// NextPage stays the authority: a walk compares the request NextPage
// returns with the one PageAfter named, and when they differ (or NextPage
// returns nil: the collection ended) it cancels the requests named ahead,
// or discards their responses, and goes on from NextPage's request. A
// PageAfter that guesses wrong costs requests, never records: records come
// in order, each once, exactly as from a walk without prefetching.
type Lookahead interface {
	Paginator
	PageAfter(prev PageRequest) (next PageRequest, ok bool)
}

// PageRequest is one page request of a walk.
type PageRequest struct {
	Params url.Values // query for this page
	// URL, when set, is the URL to request instead of the resource path with
	// Params (a Link header's next link). It may be relative: kit resolves
	// it against the URL of the request that produced the page, adds the
	// Params it lacks, and refuses a URL on another origin than the base URL.
	URL string
	// Body holds the top-level JSON body fields this page sets (a cursor
	// sent in the body, Cursor.InBody); nil: none. Only a walk of a
	// PagedPost endpoint sends a body: its body model's fields, with these
	// replacing any of the same name. A walk that sends GET requests
	// refuses a page request with a Body.
	Body map[string]any
}

// Clone returns a copy of r whose Params and Body may be modified freely.
func (r PageRequest) Clone() PageRequest {
	c := PageRequest{Params: cloneValues(r.Params), URL: r.URL}
	if r.Body != nil {
		c.Body = make(map[string]any, len(r.Body)+1)
		for k, v := range r.Body {
			c.Body[k] = v
		}
	}
	return c
}

// PageNumber requests page 1, 2, ... sending the page number in PageParam
// and the page size in SizeParam, and stops after a short page (fewer
// records than the size). Zero fields mean: PageParam "page", SizeParam
// "page_size", PageSize 100, Start [StartAtOne]. A page or size given in
// the caller's query takes precedence over the defaults.
//
// Start says where the server's page numbers start: [StartAtOne] (pages 1,
// 2, ...), [StartAtZero] (pages 0, 1, ...), or [StartUnknown], which lets
// the server decide. A walk that starts at the wrong number loses the
// first page, or asks for one past the end, without an error: when an
// API's documentation does not say, use StartUnknown. A value other than
// these three fails the declaration ([PagedBy]) of the walk.
type PageNumber struct {
	PageParam string
	SizeParam string
	PageSize  int
	ItemsKey  string    // dotted key of the records, e.g. "data.records"
	Start     PageStart // the first page's number; zero value: StartAtOne
}

// PageStart is where the page numbers of a [PageNumber] walk start: the
// number of the first page, or StartUnknown. Its zero value, StartAtOne,
// is what PageNumber assumed before it had the choice.
type PageStart int

const (
	// StartAtOne: the first page is page 1 (the zero value).
	StartAtOne PageStart = iota
	// StartAtZero: the first page is page 0.
	StartAtZero
	// StartUnknown: the first page's number is unknown, and the server
	// decides. The first request is sent without the page parameter (the
	// server's default page is its first), and the walk takes the number
	// of each next page from the page before: the number the response
	// reports in a top-level member named like PageParam ({"page": 0,
	// ...}, a number or a numeric string) plus one; else the URL of a
	// Link header entry with rel="next" (it must be on the walk's origin,
	// or the walk ends with [ErrCrossOrigin]); else, once a number is
	// known, the number after the one sent. A short page still ends the
	// walk. A full page that tells none of these ends the walk with an
	// error saying that the next page's number is unknown, after the
	// page's records: never by skipping or repeating a page.
	StartUnknown
)

// GoString returns the constant's Go name (kit.StartAtZero), so that a
// paginator prints as its literal under %#v.
func (s PageStart) GoString() string {
	switch s {
	case StartAtOne:
		return "kit.StartAtOne"
	case StartAtZero:
		return "kit.StartAtZero"
	case StartUnknown:
		return "kit.StartUnknown"
	}
	return fmt.Sprintf("kit.PageStart(%d)", int(s))
}

// Offset requests offset 0 with a limit, then offset+limit, ..., and stops
// after a short page. Zero fields mean: OffsetParam "offset", LimitParam
// "limit", Limit 100.
type Offset struct {
	OffsetParam string
	LimitParam  string
	Limit       int
	ItemsKey    string
}

// Cursor reads the next cursor from each page at the dotted key NextKey and
// sends it back in CursorParam; it stops when the cursor is absent, null or
// "". A numeric cursor is sent as its JSON text (in a body, as a number).
// Zero fields mean: CursorParam "cursor", NextKey "next_cursor".
//
// The shapes of real APIs:
//
//	kit.Cursor{CursorParam: "starting_after", RecordKey: "id", HasMoreKey: "has_more"}  // Stripe
//	kit.Cursor{CursorParam: "after", NextKey: "last_id", HasMoreKey: "has_more"}        // OpenAI
//	kit.Cursor{CursorParam: "start_cursor", NextKey: "next_cursor",
//		HasMoreKey: "has_more", InBody: true}                                       // Notion, with kit.PagedPost
//
// HasMoreKey and RecordKey are read in the walk's one pass over each page:
// a page is decoded once. A HasMoreKey whose value is not a boolean, and a
// RecordKey missing from the last record of a page the walk goes on from,
// end the walk with an error that names the key and the page; an absent or
// null HasMoreKey leaves the decision to the cursor.
type Cursor struct {
	CursorParam string
	NextKey     string
	ItemsKey    string
	HasMoreKey  string // dotted key of a boolean; false ends the walk whatever the cursor says
	RecordKey   string // the cursor is this dotted key of the page's LAST record (Stripe: "id"); NextKey unused
	InBody      bool   // send the cursor as a top-level field of the JSON body (PagedPost walks), not in the query
}

// NextLink follows the URL of the next page found in each page's body at
// the dotted key Key ("next", "links.next", "paging.next",
// "next_page_uri"), as Twilio, DigitalOcean and Microsoft Graph send it.
// The URL may be absolute or relative to the URL of the page it was found
// in; like LinkHeader's, it must be on the client's origin (another one is
// ErrCrossOrigin, and nothing is sent there) and it gets the caller's query
// parameters it lacks. An absent, null or "" value ends the walk; a value
// that is not a URL (a number, an object, a string that does not parse)
// ends it with an error naming the key and the page. Zero fields mean: Key
// "next".
type NextLink struct {
	Key      string // dotted key of the URL
	ItemsKey string
}

// LinkHeader follows the RFC 8288 Link header entry with rel="next" until
// there is none.
type LinkHeader struct {
	ItemsKey string
}

// FirstPage returns the first page (1, or 0 with StartAtZero) or the
// caller's page, with the page size. With StartUnknown it sets no page
// unless the caller did: the server picks its first page.
func (p PageNumber) FirstPage(params url.Values) PageRequest {
	pp, sp, size := p.params()
	switch p.Start {
	case StartUnknown:
		params = cloneValues(params)
		if params.Get(sp) == "" {
			params.Set(sp, strconv.Itoa(size))
		}
		return PageRequest{Params: params}
	case StartAtZero:
		return firstNumbered(params, pp, "0", sp, size)
	}
	return firstNumbered(params, pp, "1", sp, size)
}

// NextPage returns the next page number, or nil after a short page. With
// StartUnknown the number comes from the page (see [StartUnknown]).
func (p PageNumber) NextPage(resp *Response, prev PageRequest) (*PageRequest, error) {
	pp, sp, size := p.params()
	if p.Start == StartUnknown {
		return p.nextUnknown(resp, prev, pp, sp, size)
	}
	return nextNumbered(resp, prev, p.ItemsKey, pp, sp, size, func(page, _ int) int { return page + 1 })
}

// PageAfter returns the page number after prev's, and implements
// [Lookahead]. With StartUnknown it names a page only once prev has a
// number of kit's making (not a server's link).
func (p PageNumber) PageAfter(prev PageRequest) (PageRequest, bool) {
	pp, sp, size := p.params()
	if p.Start == StartUnknown && prev.URL != "" {
		return PageRequest{}, false
	}
	return afterNumbered(prev, pp, sp, size, func(page, _ int) int { return page + 1 })
}

// nextUnknown is NextPage with StartUnknown: after a full page, the page
// the response reports plus one, else the server's Link rel="next", else
// the number after prev's.
func (p PageNumber) nextUnknown(resp *Response, prev PageRequest, pp, sp string, size int) (*PageRequest, error) {
	n, err := recordCount(resp, p.ItemsKey)
	if err != nil {
		return nil, err
	}
	if s, err := strconv.Atoi(prev.Params.Get(sp)); err == nil && s > 0 {
		size = s
	}
	if n == 0 || n < size {
		return nil, nil
	}
	cur, reported, err := reportedPage(resp, pp)
	if err != nil {
		return nil, err
	}
	if reported {
		if cur+1 <= cur {
			return nil, fmt.Errorf("kit: paginator: the page reports %s %d, which cannot advance", pp, cur)
		}
		next := prev.Clone()
		next.URL = ""
		next.Params.Set(pp, strconv.Itoa(cur+1))
		return &next, nil
	}
	if next, ok := linkNext(resp, prev); ok {
		return next, nil
	}
	if prev.URL == "" {
		if next, ok := afterNumbered(prev, pp, sp, size, func(page, _ int) int { return page + 1 }); ok {
			return &next, nil
		}
	}
	return nil, fmt.Errorf("kit: paginator: %w: the page is full but reports no %q member and has no Link rel=\"next\" (kit.StartUnknown); set PageNumber.Start to the API's first page number", errCannotAdvance, pp)
}

// ItemsPath returns ItemsKey.
func (p PageNumber) ItemsPath() string { return p.ItemsKey }

func (p PageNumber) params() (page, size string, pageSize int) {
	return numberedDefaults(p.PageParam, "page", p.SizeParam, "page_size", p.PageSize)
}

// FirstPage returns offset 0 (or the caller's offset) with the limit.
func (p Offset) FirstPage(params url.Values) PageRequest {
	op, lp, limit := p.params()
	return firstNumbered(params, op, "0", lp, limit)
}

// NextPage returns offset+limit, or nil after a short page.
func (p Offset) NextPage(resp *Response, prev PageRequest) (*PageRequest, error) {
	op, lp, limit := p.params()
	return nextNumbered(resp, prev, p.ItemsKey, op, lp, limit, func(off, limit int) int { return off + limit })
}

// PageAfter returns the offset after prev's page (offset+limit), and
// implements [Lookahead].
func (p Offset) PageAfter(prev PageRequest) (PageRequest, bool) {
	op, lp, limit := p.params()
	return afterNumbered(prev, op, lp, limit, func(off, limit int) int { return off + limit })
}

// ItemsPath returns ItemsKey.
func (p Offset) ItemsPath() string { return p.ItemsKey }

func (p Offset) params() (offset, limit string, n int) {
	return numberedDefaults(p.OffsetParam, "offset", p.LimitParam, "limit", p.Limit)
}

// FirstPage returns the caller's query as is.
func (p Cursor) FirstPage(params url.Values) PageRequest {
	return PageRequest{Params: cloneValues(params)}
}

// NextPage sends the cursor found at NextKey (or RecordKey of the last
// record), or returns nil when it is absent, null or "", when the page is
// empty (with RecordKey), or when the page's HasMoreKey is false.
func (p Cursor) NextPage(resp *Response, prev PageRequest) (*PageRequest, error) {
	info, err := pageFacts(resp, p)
	if err != nil {
		return nil, err
	}
	if info.HasMoreErr != nil {
		return nil, info.HasMoreErr
	}
	if info.HasMore == pagescan.HasMoreFalse {
		return nil, nil
	}
	if p.RecordKey != "" && info.Records == 0 {
		return nil, nil
	}
	if info.CursorErr != nil {
		return nil, info.CursorErr
	}
	if info.Cursor == "" {
		return nil, nil
	}
	next := prev.Clone()
	if p.InBody {
		if next.Body == nil {
			next.Body = make(map[string]any, 1)
		}
		var v any = info.Cursor
		if info.CursorNum {
			v = jsontext.Value(info.Cursor)
		}
		next.Body[p.cursorParam()] = v
		return &next, nil
	}
	next.Params.Set(p.cursorParam(), info.Cursor)
	return &next, nil
}

// ItemsPath returns ItemsKey.
func (p Cursor) ItemsPath() string { return p.ItemsKey }

func (p Cursor) cursorPath() string {
	if p.RecordKey != "" {
		return ""
	}
	return p.nextKey()
}

func (p Cursor) hasMorePath() string { return p.HasMoreKey }

func (p Cursor) recordPath() string { return p.RecordKey }

func (p Cursor) inBody() bool { return p.InBody }

func (p Cursor) nextKey() string {
	if p.NextKey == "" {
		return "next_cursor"
	}
	return p.NextKey
}

func (p Cursor) cursorParam() string {
	if p.CursorParam == "" {
		return "cursor"
	}
	return p.CursorParam
}

// FirstPage returns the caller's query as is.
func (p LinkHeader) FirstPage(params url.Values) PageRequest {
	return PageRequest{Params: cloneValues(params)}
}

// NextPage follows the rel="next" link, or returns nil when there is none.
func (p LinkHeader) NextPage(resp *Response, prev PageRequest) (*PageRequest, error) {
	next, _ := linkNext(resp, prev)
	return next, nil
}

// ItemsPath returns ItemsKey.
func (p LinkHeader) ItemsPath() string { return p.ItemsKey }

// FirstPage returns the caller's query as is.
func (p NextLink) FirstPage(params url.Values) PageRequest {
	return PageRequest{Params: cloneValues(params)}
}

// NextPage follows the URL found at Key, or returns nil when it is absent,
// null or "".
func (p NextLink) NextPage(resp *Response, prev PageRequest) (*PageRequest, error) {
	info, err := pageFacts(resp, p)
	if err != nil {
		return nil, err
	}
	if info.CursorErr != nil {
		return nil, info.CursorErr
	}
	if info.Cursor == "" {
		return nil, nil
	}
	if info.CursorNum {
		return nil, pageFactError(resp, info, "next-page URL at %q is a number, not a URL", p.key())
	}
	if _, err := url.Parse(info.Cursor); err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its text repeats the URL, which may hold a secret
		}
		return nil, pageFactError(resp, info, "next-page URL at %q is not a URL: %v", p.key(), err)
	}
	next := prev.Clone()
	next.URL = info.Cursor
	return &next, nil
}

// ItemsPath returns ItemsKey.
func (p NextLink) ItemsPath() string { return p.ItemsKey }

func (p NextLink) cursorPath() string { return p.key() }

func (p NextLink) key() string {
	if p.Key == "" {
		return "next"
	}
	return p.Key
}

// PagedBy declares how a resource or a paged endpoint walks pages: p is
// its paginator. Default: [PageNumber]{}. It is a declaration trait, both a
// [ResourceOption] and an [EndpointOption]; on an endpoint that is not paged
// (declared with [Get], [Post], ...) it is a declaration error.
func PagedBy(p Paginator) PagingOption { return paginatorOption{p, "PagedBy"} }

// WithPaginator is [PagedBy], under the name v0.3.0 gave it.
//
// Deprecated: use [PagedBy]: a paginator is what a declaration is, and
// declaration traits have bare names ([FormBody], [NoAuth], ...).
func WithPaginator(p Paginator) PagingOption { return paginatorOption{p, "WithPaginator"} }

// WithMaxPages ends a walk quietly after n pages, a [RequestOption]: on a
// client it bounds every walk of the client; on a resource or a paged
// endpoint, that one's walks (over the client's); on a walk (Iterate,
// Pages, All and their Go forms), that walk (over both). n = 0 sets no
// bound. Default: no bound (walks are still guarded against paginators
// that do not advance and servers that repeat a page). n must not be
// negative. It applies to walks only: on an endpoint declared with [Get],
// [Post], ... it is a declaration error, and on a call that is not a walk
// (Call, Go, a resource's Get or List, ...) it fails the call.
func WithMaxPages(n int) RequestOption {
	return requestOption[maxPagesOption]{maxPagesOption{n}}
}

// WithPrefetch makes the async walks of an [AsyncResource] or a paged
// endpoint (GoIterate, GoPages) fetch pages ahead of the caller, so that
// the next pages are on their way while the caller works through the
// current one. Default 0: a page is requested only when the records before
// it are used up. Sync walks ([Resource], Iterate, Pages) are always that
// lazy and ignore it. n must not be negative.
//
// With a paginator that can name pages ahead ([PageNumber], [Offset], or any
// [Lookahead]), up to n page requests are in flight at once: the walk is
// pipelined, and on a slow link about n times faster. With any other
// paginator ([Cursor], [LinkHeader]), whose next request is known only from
// the page before, one page is fetched ahead. A walk never has more
// requests in flight than the client's [Limits].MaxInFlight allows, and holds
// only the pages in flight and not yet yielded, so a large n costs nothing
// until that many requests are sent.
//
// Records still come in order, each exactly once, and an error is yielded
// once, after every record before the page that failed. A pipelined walk
// cannot know where the collection ends before it gets there: when a page
// turns out to be the last (a short page), the up to n-1 requests already
// sent past it are cancelled, or their responses discarded if they have
// arrived. Each was a real request: it took a token of the client's rate limit ([Limits].Rate) and
// counts against the server's own rate limit. Breaking out of the loop
// cancels every request in flight and returns once they have stopped.
//
// Under a [Limits].Rate, a pipelined walk reserves the tokens of its pages
// in page order, as it names them: the page the caller needs first gets
// the first token, so the first records come as soon as a sync walk's
// would, and a deadline that a sync walk meets is met. A page cancelled
// before it was sent gives its token back. A [Limiter] given to
// Limits.Limiter (one a fleet shares) has no reservations: it is waited for
// as the pages reach it.
//
// It is a [RequestOption] that applies to walks only, like [WithMaxPages]:
// on a client, every async walk of the client; on a resource or a paged
// endpoint, its async walks (over the client's); on a walk, that walk (over
// both); a sync walk ignores it; on an endpoint declared with [Get], [Post],
// ... it is a declaration error, and on a call that is not a walk it fails
// the call.
func WithPrefetch(n int) RequestOption {
	return requestOption[prefetchOption]{prefetchOption{n}}
}

// Private implementation past this point.

// paginatorOption is PagedBy and WithPaginator; name is the one the caller
// used, for messages.
type paginatorOption struct {
	p    Paginator
	name string
}

func (o paginatorOption) applyResource(c *resourceConfig) { c.paginator = o.p }
func (o paginatorOption) applyEndpoint(c *endpointConfig) {
	c.paging.paginator = o.p
	c.paging.used("kit." + o.name)
}
func (o paginatorOption) String() string { return fmt.Sprintf("kit.%s(%#v)", o.name, o.p) }

// maxPagesOption is WithMaxPages's setting.
type maxPagesOption struct{ n int }

func (o maxPagesOption) applyRequest(c *requestConfig, _ level) error {
	if o.n < 0 {
		return fmt.Errorf("WithMaxPages(%d): must not be negative", o.n)
	}
	c.maxPages, c.setMaxPages = o.n, true
	c.usedPaging("kit.WithMaxPages")
	return nil
}
func (o maxPagesOption) String() string { return fmt.Sprintf("kit.WithMaxPages(%d)", o.n) }

// prefetchOption is WithPrefetch's setting.
type prefetchOption struct{ n int }

func (o prefetchOption) applyRequest(c *requestConfig, _ level) error {
	if o.n < 0 {
		return fmt.Errorf("WithPrefetch(%d): must not be negative", o.n)
	}
	c.prefetch, c.setPrefetch = o.n, true
	c.usedPaging("kit.WithPrefetch")
	return nil
}
func (o prefetchOption) String() string { return fmt.Sprintf("kit.WithPrefetch(%d)", o.n) }

// numberedDefaults fills the zero fields of PageNumber and Offset: the
// position and size parameter names, and a size of 100.
func numberedDefaults(param, defParam, sizeParam, defSizeParam string, size int) (string, string, int) {
	if param == "" {
		param = defParam
	}
	if sizeParam == "" {
		sizeParam = defSizeParam
	}
	if size <= 0 {
		size = 100
	}
	return param, sizeParam, size
}

// firstNumbered is the first request of PageNumber and Offset: the
// caller's query with the position and size set where the caller did not.
func firstNumbered(params url.Values, param, start, sizeParam string, size int) PageRequest {
	params = cloneValues(params)
	if params.Get(param) == "" {
		params.Set(param, start)
	}
	if params.Get(sizeParam) == "" {
		params.Set(sizeParam, strconv.Itoa(size))
	}
	return PageRequest{Params: params}
}

// nextNumbered is the step shared by PageNumber and Offset: after a short
// page (fewer records than the size sent in sizeParam, else size) it stops;
// otherwise it sets param to next(current value, size).
func nextNumbered(resp *Response, prev PageRequest, itemsKey, param, sizeParam string, size int, next func(cur, size int) int) (*PageRequest, error) {
	n, err := recordCount(resp, itemsKey)
	if err != nil {
		return nil, err
	}
	if s, err := strconv.Atoi(prev.Params.Get(sizeParam)); err == nil && s > 0 {
		size = s
	}
	if n == 0 || n < size {
		return nil, nil
	}
	req, ok := afterNumbered(prev, param, sizeParam, size, next)
	if !ok {
		return nil, fmt.Errorf("kit: paginator: %w: parameter %s=%q is not a number that can advance", errCannotAdvance, param, prev.Params.Get(param))
	}
	return &req, nil
}

// afterNumbered is the PageAfter shared by PageNumber and Offset: the
// request nextNumbered returns after a full page. ok is false when prev's
// position is not a number, or one that would overflow (NextPage then
// reports it).
func afterNumbered(prev PageRequest, param, sizeParam string, size int, next func(cur, size int) int) (PageRequest, bool) {
	if s, err := strconv.Atoi(prev.Params.Get(sizeParam)); err == nil && s > 0 {
		size = s
	}
	cur, err := strconv.Atoi(prev.Params.Get(param))
	if err != nil {
		return PageRequest{}, false
	}
	nxt := next(cur, size)
	if nxt <= cur {
		return PageRequest{}, false // it would overflow
	}
	req := prev.Clone()
	req.Params.Set(param, strconv.Itoa(nxt))
	return req, true
}

// errCannotAdvance is wrapped in the error of a built-in paginator that has
// no next request of its own making after a full page: its position is not
// a number it can advance, or (StartUnknown) the page does not tell it.
// The walk then follows the server's Link rel="next", if it sent one.
var errCannotAdvance = errors.New("the next page cannot be named")

// linkNext is the request of the server's Link rel="next" entry in resp,
// with prev's parameters (which the link's URL takes where it lacks them).
func linkNext(resp *Response, prev PageRequest) (*PageRequest, bool) {
	if resp == nil {
		return nil, false
	}
	next, ok := linkheader.Find(resp.Header.Values("Link"), "next")
	if !ok || next == "" {
		return nil, false
	}
	return &PageRequest{Params: cloneValues(prev.Params), URL: next}, true
}

// reportedPage reads the page number a page reports in its top-level
// member named param: a JSON integer or a string holding one. found is
// false when the member is absent or null; another value is an error.
func reportedPage(resp *Response, param string) (page int, found bool, err error) {
	raw, found, err := jsonpath.Lookup(resp.body, jsonpath.Path{param})
	if err != nil || !found {
		return 0, false, nil // a page that is not a JSON object reports nothing
	}
	text := string(raw)
	switch jsontext.Value(raw).Kind() {
	case 'n':
		return 0, false, nil
	case '"':
		if err := unmarshalJSON(raw, &text); err != nil {
			return 0, false, err
		}
	case '0':
	default:
		return 0, false, fmt.Errorf("the page's %q member is %s, want its page number", param, pagescan.KindName(jsontext.Value(raw).Kind()))
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("the page's %q member is not a page number (a non-negative integer)", param)
	}
	return n, true, nil
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v)+2)
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
