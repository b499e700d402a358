package kit

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
)

// Resource is a REST collection of records of type T at a path: the five
// CRUD operations, one-page List, and lazy iteration over every page. T is
// the record's data model; with T = any records are raw JSON (objects
// decode to map[string]any).
//
// A Resource bound to a client shares the client's base URL, engine and
// auth. It is itself a Binding, so a type embedding *Resource[T] can call
// its own endpoints:
//
//	type Users struct{ *kit.Resource[User] }
//	var userPosts = kit.Get[struct{ ID int }, []Post]("/users/{id}/posts")
//	posts, err := userPosts.Call(ctx, users, struct{ ID int }{7})
//
// A Resource is immutable and safe for concurrent use; the iterators it
// returns must each be ranged over by one goroutine at a time.
//
// Its requests follow the client's WithRetry policy, WithRateLimit and
// WithLogger: Get, List, Update, Delete and every page of an iteration are
// retried (a page is retried within the walk, so no record is yielded twice
// or skipped); Create (POST) and Patch (PATCH) are never retried, since kit
// cannot know that the API deduplicates them.
type Resource[T any] struct {
	rc *resourceCore
}

// NewResource returns a Resource for the collection at path, bound to b. An
// empty path is allowed for a resource that only has custom endpoints: its
// CRUD methods and iteration then fail with ErrNoPath. Problems with b or
// the options are reported by every call.
func NewResource[T any](b Binding, path string, opts ...ResourceOption) *Resource[T] {
	return &Resource[T]{rc: newResourceCore(b, path, opts, "kit.Resource")}
}

// WithPaginator sets how a resource walks pages. Default: PageNumber{}.
func WithPaginator(p Paginator) ResourceOption { return paginatorOption{p} }

// WithMaxPages ends any walk of the resource quietly after n pages. Default:
// no bound (walks are still guarded against paginators that do not
// advance and servers that repeat a page).
func WithMaxPages(n int) ResourceOption { return maxPagesOption{n} }

// List returns the records of one page: GET path?query. query is nil, a
// map[string]any, url.Values, or a struct routed with the query rules of
// endpoint parameters. Records are found like those of a walk (the
// paginator's items key, else the default rules).
func (r *Resource[T]) List(ctx context.Context, query any) ([]T, error) {
	page, err := fetchPage[T](ctx, r.rc, r.rc.syncSend(), "List", query)
	if err != nil {
		return nil, err
	}
	return page.Records, nil
}

// Get returns the record with the given id: GET path/{id}. id is formatted
// and escaped like a path parameter.
func (r *Resource[T]) Get(ctx context.Context, id any) (T, error) {
	return crud[T](ctx, r.rc, r.rc.syncSend(), "Get", http.MethodGet, id, true, nil)
}

// Create sends obj as the JSON body of POST path and returns the created
// record. obj must be a data model: with T = any, a map is refused with
// ErrNotModel and nothing is sent.
func (r *Resource[T]) Create(ctx context.Context, obj T) (T, error) {
	return crud[T](ctx, r.rc, r.rc.syncSend(), "Create", http.MethodPost, nil, false, any(obj))
}

// Update replaces the record with the given id: PUT path/{id} with obj as
// the JSON body.
func (r *Resource[T]) Update(ctx context.Context, id any, obj T) (T, error) {
	return crud[T](ctx, r.rc, r.rc.syncSend(), "Update", http.MethodPut, id, true, any(obj))
}

// Patch sends patch, any data model (typically a struct of the fields to
// change with omitempty), as the JSON body of PATCH path/{id} and returns
// the updated record.
func (r *Resource[T]) Patch(ctx context.Context, id any, patch any) (T, error) {
	return crud[T](ctx, r.rc, r.rc.syncSend(), "Patch", http.MethodPatch, id, true, patch)
}

// Delete deletes the record with the given id: DELETE path/{id}. It returns
// the response (its status, headers and body, if any).
func (r *Resource[T]) Delete(ctx context.Context, id any) (*Response, error) {
	return crud[*Response](ctx, r.rc, r.rc.syncSend(), "Delete", http.MethodDelete, id, true, nil)
}

// All returns every record of the collection, lazily: a page is requested
// only when the records before it are used up, and breaking out of the loop
// stops fetching. An error is yielded once, as (zero, err), and ends the
// loop.
func (r *Resource[T]) All(ctx context.Context) iter.Seq2[T, error] {
	return r.Iterate(ctx, nil)
}

// Iterate is All with query parameters sent on every page request. query
// is nil, a map[string]any, url.Values or a struct; it is never modified.
func (r *Resource[T]) Iterate(ctx context.Context, query any) iter.Seq2[T, error] {
	return records(r.Pages(ctx, query))
}

// Pages walks the same pages as Iterate, yielding each page (records and
// response) for callers that need totals or other page metadata. Every page
// fetched is yielded, an empty last one included.
func (r *Resource[T]) Pages(ctx context.Context, query any) iter.Seq2[*Page[T], error] {
	return walkPages[T](ctx, r.rc, r.rc.syncSend(), query)
}

func (r *Resource[T]) binding() *clientState {
	if r == nil || r.rc == nil {
		return nil
	}
	return r.rc.st
}

// Private implementation past this point.

// resourceConfig collects what the resource options set.
type resourceConfig struct {
	paginator Paginator
	maxPages  int
	prefetch  int
}

type paginatorOption struct{ p Paginator }

func (o paginatorOption) applyResource(c *resourceConfig) { c.paginator = o.p }
func (o paginatorOption) String() string                  { return fmt.Sprintf("kit.WithPaginator(%#v)", o.p) }

type maxPagesOption struct{ n int }

func (o maxPagesOption) applyResource(c *resourceConfig) { c.maxPages = o.n }
func (o maxPagesOption) String() string                  { return fmt.Sprintf("kit.WithMaxPages(%d)", o.n) }

// resourceCore is the non-generic part of a resource, shared by Resource
// and AsyncResource.
type resourceCore struct {
	st      *clientState
	kind    string // "kit.Resource" or "kit.AsyncResource", for messages
	path    string // as given
	escaped string // escaped path, with a leading slash and no trailing one
	err     error  // a problem found at construction, reported by every call
	layout  *pageLayout
	resourceConfig
}

func newResourceCore(b Binding, path string, opts []ResourceOption, kind string) *resourceCore {
	rc := &resourceCore{kind: kind, path: path}
	for _, o := range opts {
		if o != nil {
			o.applyResource(&rc.resourceConfig)
		}
	}
	if b != nil {
		rc.st = b.binding()
	}
	if rc.st == nil {
		rc.err = fmt.Errorf("kit: %s %q: %w", kind, path, ErrNilBinding)
		return rc
	}
	if rc.paginator == nil {
		rc.paginator = PageNumber{}
	}
	if rc.maxPages < 0 {
		rc.err = fmt.Errorf("kit: %s %q: WithMaxPages(%d): must not be negative", kind, path, rc.maxPages)
		return rc
	}
	if rc.prefetch < 0 {
		rc.err = fmt.Errorf("kit: %s %q: WithPrefetch(%d): must not be negative", kind, path, rc.prefetch)
		return rc
	}
	if path != "" {
		esc, err := escapeLiteral("/" + strings.Trim(path, "/"))
		if err != nil {
			rc.err = fmt.Errorf("kit: %s %q: %w", kind, path, err)
			return rc
		}
		if strings.ContainsAny(path, "{}?#") {
			rc.err = fmt.Errorf("kit: %s %q: a collection path has no placeholders, query or fragment", kind, path)
			return rc
		}
		rc.escaped = esc
	}
	l, err := newPageLayout(rc.paginator)
	if err != nil {
		rc.err = fmt.Errorf("kit: %s %q: paginator %T: %w", kind, path, rc.paginator, err)
		return rc
	}
	rc.layout = l
	return rc
}

// check reports why op cannot run: a construction problem, or no path.
func (rc *resourceCore) check(op string) error {
	if rc.err != nil {
		return rc.err
	}
	if rc.path == "" {
		return fmt.Errorf("%w: %s.%s needs it", ErrNoPath, rc.kind, op)
	}
	return nil
}

// syncSend returns the sync engine's send function, or nil when the engine
// lacks kit.Engine.
func (rc *resourceCore) syncSend() sendFunc {
	if rc.st == nil || rc.st.syncEng == nil {
		return nil
	}
	return rc.st.syncEng.Do
}

func (rc *resourceCore) engineError(op, method string, lacks string) error {
	return &EngineError{Engine: fmt.Sprintf("%T", rc.st.engine), Lacks: lacks, Endpoint: fmt.Sprintf("%s.%s (%s %s)", rc.kind, op, method, rc.path)}
}

// collectionURL is the URL of the collection with a query.
func (rc *resourceCore) collectionURL(q url.Values) string {
	u := rc.st.prefix + rc.escaped
	q = mergeQuery(rc.st.baseQuery, nil, q)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// itemURL is the URL of one record.
func (rc *resourceCore) itemURL(id any) (string, error) {
	if id == nil {
		return "", errors.New("id is nil")
	}
	v := reflect.ValueOf(id)
	c := classify(v.Type())
	if c.kind != classScalar {
		return "", fmt.Errorf("id of type %T has no single text form", id)
	}
	s, ok, err := c.format(v)
	if err != nil {
		return "", fmt.Errorf("id: %w", err)
	}
	if !ok {
		return "", errors.New("id is nil")
	}
	switch s {
	case "", ".", "..":
		return "", fmt.Errorf("id %q would change the resource addressed", s)
	}
	u := rc.st.prefix + rc.escaped + "/" + url.PathEscape(s)
	if len(rc.st.baseQuery) > 0 {
		u += "?" + rc.st.baseQuery.Encode()
	}
	return u, nil
}

// crud runs one CRUD operation and decodes its result into R.
func crud[R any](ctx context.Context, rc *resourceCore, send sendFunc, op, method string, id any, hasID bool, body any) (R, error) {
	or, err := rc.crudRequest(op, method, id, hasID, body, send)
	if err != nil {
		var zero R
		return zero, err
	}
	return sendCRUD[R](ctx, rc, send, or)
}

// sendCRUD sends a built CRUD request and decodes its result into R.
func sendCRUD[R any](ctx context.Context, rc *resourceCore, send sendFunc, or *outRequest) (R, error) {
	resp, err := rc.st.do(ctx, send, or)
	if err != nil {
		var zero R
		return zero, err
	}
	return decodeResult[R](resultKindOf(reflect.TypeFor[R]()), rc.st, resp)
}

// crudRequest checks and builds the request of a CRUD operation; nothing is
// sent when it fails.
func (rc *resourceCore) crudRequest(op, method string, id any, hasID bool, body any, send sendFunc) (*outRequest, error) {
	if err := rc.check(op); err != nil {
		return nil, err
	}
	if send == nil {
		return nil, rc.engineError(op, method, rc.sendProtocol())
	}
	or := &outRequest{method: method, useAuth: true, endpoint: rc.kind + "." + op + " " + rc.path}
	if hasID {
		u, err := rc.itemURL(id)
		if err != nil {
			return nil, fmt.Errorf("kit: %s.%s %s: %w", rc.kind, op, rc.path, err)
		}
		or.url = u
	} else {
		or.url = rc.collectionURL(nil)
	}
	if method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
		v := reflect.ValueOf(body)
		if !v.IsValid() || isNilValue(v) {
			return nil, fmt.Errorf("kit: %s.%s %s: %w: the body is nil", rc.kind, op, rc.path, ErrNotModel)
		}
		if k := classify(v.Type()).kind; k != classModel && k != classModelSlice {
			return nil, fmt.Errorf("kit: %s.%s %s: %w: %T cannot be a request body", rc.kind, op, rc.path, ErrNotModel, body)
		}
		if err := validateValue(rc.st.validator, v); err != nil {
			return nil, fmt.Errorf("kit: %s.%s %s: request body: %w", rc.kind, op, rc.path, err)
		}
		b, err := marshalJSON(body)
		if err != nil {
			return nil, fmt.Errorf("kit: %s.%s %s: encoding request body: %w", rc.kind, op, rc.path, err)
		}
		or.body, or.hasBody = b, true
	}
	return or, nil
}

// sendProtocol names the protocol this resource's calls need.
func (rc *resourceCore) sendProtocol() string {
	if rc.kind == "kit.AsyncResource" {
		return "kit.AsyncEngine"
	}
	return "kit.Engine"
}

func resultKindOf(t reflect.Type) resultKind {
	switch {
	case t == responseType:
		return resultResponse
	case t.Kind() == reflect.Interface && t.NumMethod() == 0:
		return resultRaw
	}
	return resultTyped
}

// fetchPage requests one page (List).
func fetchPage[T any](ctx context.Context, rc *resourceCore, send sendFunc, op string, query any) (*Page[T], error) {
	u, err := rc.listURL(op, query, send)
	if err != nil {
		return nil, err
	}
	return getPage[T](ctx, rc, send, u)
}

// listURL checks a List call and returns the URL of its page.
func (rc *resourceCore) listURL(op string, query any, send sendFunc) (string, error) {
	if err := rc.check(op); err != nil {
		return "", err
	}
	if send == nil {
		return "", rc.engineError(op, http.MethodGet, rc.sendProtocol())
	}
	q, err := queryFrom(query)
	if err != nil {
		return "", fmt.Errorf("kit: %s.%s %s: %w", rc.kind, op, rc.path, err)
	}
	return rc.collectionURL(q), nil
}

// getPage requests the page at u and decodes its records.
func getPage[T any](ctx context.Context, rc *resourceCore, send sendFunc, u string) (*Page[T], error) {
	or := &outRequest{method: http.MethodGet, url: u, useAuth: true, endpoint: rc.kind + " " + rc.path}
	resp, err := rc.st.do(ctx, send, or)
	if err != nil {
		return nil, err
	}
	page := &Page[T]{Response: resp}
	if err := decodePage(rc.layout, resp, &page.Records); err != nil {
		return nil, err
	}
	if resultKindOf(reflect.TypeFor[T]()) == resultTyped {
		if err := validateValue(rc.st.validator, reflect.ValueOf(page.Records)); err != nil {
			return nil, fmt.Errorf("kit: GET %s: page records: %w", redactURL(resp.Request.URL), err)
		}
	}
	return page, nil
}

// Errors that end a walk.
var (
	// ErrPageLoop ends a walk whose paginator asks for the same request twice
	// in a row, or whose server answers a page with exactly the records of
	// the page before (servers that clamp a page number past the end). No
	// record is yielded twice.
	ErrPageLoop = errors.New("kit: pagination does not advance")

	// ErrCrossOrigin is returned for a next-page URL on another origin than
	// the client's base URL: it is not requested, so credentials never
	// follow it.
	ErrCrossOrigin = errors.New("kit: URL is on another origin than the base URL")
)

// walkPages is the lazy loop shared by every paginator.
func walkPages[T any](ctx context.Context, rc *resourceCore, send sendFunc, query any) iter.Seq2[*Page[T], error] {
	return walkPagesWith(ctx, rc, send, query, func(ctx context.Context, u string) (*Page[T], error) {
		return getPage[T](ctx, rc, send, u)
	})
}

// pageFetcher fetches and decodes the page at u.
type pageFetcher[T any] func(ctx context.Context, u string) (*Page[T], error)

// walkPagesWith runs the walk, fetching each page with fetch. It yields
// each page, then asks the paginator for the next one; an error is yielded
// once and ends the walk.
func walkPagesWith[T any](ctx context.Context, rc *resourceCore, send sendFunc, query any, fetch pageFetcher[T]) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		w, err := rc.newWalk(query, send)
		if err != nil {
			yield(nil, err)
			return
		}
		for {
			page, err := step(ctx, w, fetch)
			if err != nil {
				yield(nil, err)
				return
			}
			if page == nil || !yield(page, nil) {
				return
			}
			if err := w.advance(page.Response); err != nil {
				yield(nil, err)
				return
			}
		}
	}
}

// step fetches the walk's next page: nil when the walk is over.
func step[T any](ctx context.Context, w *walk, fetch pageFetcher[T]) (*Page[T], error) {
	u, err := w.nextURL()
	if err != nil || u == "" {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", w.rc.walkError(), err)
	}
	page, err := fetch(ctx, u)
	if err != nil {
		return nil, err
	}
	if err := w.guard(page.Response); err != nil {
		return nil, err
	}
	return page, nil
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

// walk is the state of one page walk; not generic, not safe for concurrent
// use.
type walk struct {
	rc         *resourceCore
	query      url.Values // the caller's query (a private copy)
	req        *PageRequest
	prevURL    string
	prevReqURL *url.URL // URL of the request that produced the last page; next links resolve against it
	prevSpan   []byte
	pages      int
}

func (rc *resourceCore) newWalk(query any, send sendFunc) (*walk, error) {
	if err := rc.check("Iterate"); err != nil {
		return nil, err
	}
	if send == nil {
		return nil, rc.engineError("Iterate", http.MethodGet, rc.sendProtocol())
	}
	q, err := queryFrom(query)
	if err != nil {
		return nil, fmt.Errorf("kit: %s.Iterate %s: %w", rc.kind, rc.path, err)
	}
	first := rc.paginator.FirstPage(cloneValues(q))
	return &walk{rc: rc, query: q, req: &first}, nil
}

// nextURL returns the URL of the next page to fetch, or "" when the walk is
// over.
func (w *walk) nextURL() (string, error) {
	if w.req == nil || (w.rc.maxPages > 0 && w.pages >= w.rc.maxPages) {
		return "", nil
	}
	u, err := w.rc.pageURL(*w.req, w.query, w.prevReqURL)
	if err != nil {
		return "", err
	}
	if u == w.prevURL {
		return "", fmt.Errorf("%s: %w: paginator %T asked for %s again", w.rc.walkError(), ErrPageLoop, w.rc.paginator, redactString(u))
	}
	w.prevURL = u
	return u, nil
}

// guard records a fetched page, refusing one whose records are exactly
// those of the page before.
func (w *walk) guard(resp *Response) error {
	w.pages++
	if resp.page != nil && len(resp.page.span) > 2 && w.prevSpan != nil && string(resp.page.span) == string(w.prevSpan) {
		return fmt.Errorf("%s: %w: page %d has exactly the records of the page before", w.rc.walkError(), ErrPageLoop, w.pages)
	}
	if resp.page != nil {
		w.prevSpan = resp.page.span
	}
	if resp.Request != nil {
		w.prevReqURL = resp.Request.URL
	}
	return nil
}

// advance asks the paginator for the request after the page of resp.
func (w *walk) advance(resp *Response) error {
	next, err := w.rc.paginator.NextPage(resp, *w.req)
	if err != nil {
		return fmt.Errorf("%s: paginator %T: %w", w.rc.walkError(), w.rc.paginator, err)
	}
	w.req = next
	return nil
}

// pageURL turns a PageRequest into the URL to fetch. A URL in the request
// is resolved against prev (the URL of the page before), completed with the
// caller's query parameters it lacks, and refused on another origin.
func (rc *resourceCore) pageURL(pr PageRequest, callerQuery url.Values, prev *url.URL) (string, error) {
	if pr.URL == "" {
		return rc.collectionURL(pr.Params), nil
	}
	ref, err := url.Parse(pr.URL)
	if err != nil {
		return "", fmt.Errorf("%s: bad next-page URL: %w", rc.walkError(), err)
	}
	base := prev
	if base == nil {
		base, _ = url.Parse(rc.collectionURL(nil))
	}
	u := base.ResolveReference(ref)
	if !sameOrigin(u, rc.st.base) {
		return "", fmt.Errorf("%s: next page %s: %w %s", rc.walkError(), redactURL(u), ErrCrossOrigin, rc.st.origin())
	}
	q := u.Query()
	added := false
	for _, src := range []url.Values{pr.Params, callerQuery} {
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

// walkError is how errors that end a walk begin: what was attempted, with
// the collection's (redacted) URL.
func (rc *resourceCore) walkError() string {
	return "kit: GET " + redactString(rc.collectionURL(nil)) + ": walking pages"
}

// redactString redacts a URL given as text.
func redactString(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return strconv.Quote("<unparsable URL>")
	}
	return redactURL(u)
}
