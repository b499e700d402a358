package kit

import (
	"context"
	"hash/maphash"
	"iter"
	"net/url"
)

// Private implementation past this point.
//
// walk.go is the page walk shared by Resource and AsyncResource: ask the
// paginator for a request, fetch the page, yield it, ask for the next one.
// Guards end a walk that does not advance.

// pageFetcher sends the request of a page and decodes it.
type pageFetcher[T any] func(ctx context.Context, req *Request) (*Page[T], error)

// walkPages is the lazy loop shared by every paginator: it fetches each page
// with fetch, yields it, then asks the paginator for the next one; an error
// is yielded once and ends the walk. chain is the chain the pages go
// through, nil when the engine lacks the protocol.
func walkPages[T any](ctx context.Context, rc *resourceCore, chain Sender, query any, fetch pageFetcher[T]) iter.Seq2[*Page[T], error] {
	return func(yield func(*Page[T], error) bool) {
		w, err := rc.newWalk(query, chain)
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
	req, err := w.nextRequest()
	if err != nil || req == nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errorf(w.rc.walkOp(), "nil Context")
	}
	if err := ctx.Err(); err != nil {
		return nil, errorf(w.rc.walkOp(), "%w", err)
	}
	page, err := fetch(ctx, req)
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
	seen       seenURLs
	prevReqURL *url.URL // URL of the request that produced the last page; next links resolve against it
	prevSpan   []byte
	pages      int
}

func (rc *resourceCore) newWalk(query any, chain Sender) (*walk, error) {
	if err := rc.checkAs("Iterate", opList, chain); err != nil {
		return nil, err
	}
	q, err := queryFrom(query)
	if err != nil {
		return nil, errorf(rc.ops[opList].name, "%w", err)
	}
	first := rc.paginator.FirstPage(cloneValues(q))
	return &walk{rc: rc, query: q, req: &first}, nil
}

// nextRequest returns the request of the next page to fetch, or nil when
// the walk is over.
func (w *walk) nextRequest() (*Request, error) {
	if w.req == nil || (w.rc.maxPages > 0 && w.pages >= w.rc.maxPages) {
		return nil, nil
	}
	u, err := w.rc.pageURL(*w.req, w.query, w.prevReqURL)
	if err != nil {
		return nil, err
	}
	if !w.seen.add(u) {
		return nil, errorf(w.rc.walkOp(), "%w: paginator %T asked for %s, which the walk has already requested", ErrPageLoop, w.rc.paginator, w.rc.st.secrets.redactString(u))
	}
	return w.rc.st.build(w.rc.ops[opList], &routed{}, u)
}

// guard records a fetched page, refusing one whose records are exactly
// those of the page before.
func (w *walk) guard(resp *Response) error {
	w.pages++
	if resp.page != nil && len(resp.page.span) > 2 && w.prevSpan != nil && string(resp.page.span) == string(w.prevSpan) {
		return errorf(w.rc.walkOp(), "%w: page %d has exactly the records of the page before", ErrPageLoop, w.pages)
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
		return errorf(w.rc.walkOp(), "paginator %T: %w", w.rc.paginator, err)
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
		return "", errorf(rc.walkOp(), "bad next-page URL: %w", err)
	}
	base := prev
	if base == nil {
		base, _ = url.Parse(rc.collectionURL(nil))
	}
	u := base.ResolveReference(ref)
	if !sameOrigin(u, rc.st.base) {
		return "", errorf(rc.walkOp(), "next page %s: %w %s", rc.st.redact(u), ErrCrossOrigin, rc.st.origin())
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

// walkOp is what a walk attempts, for its errors: walking the pages of the
// collection's (redacted) URL.
func (rc *resourceCore) walkOp() string {
	return "GET " + rc.st.secrets.redactString(rc.collectionURL(nil)) + ": walking pages"
}

// seenURLs remembers the URLs a walk has requested, so that a paginator
// that cycles (A, B, A, B, ...) is caught at its first repeat. It keeps a
// 64-bit hash per URL, for the last maxSeenURLs pages: a cycle shorter than
// that is always caught, in about 40 bytes of memory per page remembered.
type seenURLs struct {
	set   map[uint64]struct{}
	order []uint64 // ring of the hashes in set, oldest at next
	next  int
}

// maxSeenURLs bounds the memory of one walk's seenURLs (about 2.5 MiB).
const maxSeenURLs = 1 << 16

var seenSeed = maphash.MakeSeed()

// add records u and reports whether it is new.
func (s *seenURLs) add(u string) bool {
	h := maphash.String(seenSeed, u)
	if _, ok := s.set[h]; ok {
		return false
	}
	if s.set == nil {
		s.set = make(map[uint64]struct{})
	}
	if len(s.order) < maxSeenURLs {
		s.order = append(s.order, h)
	} else {
		delete(s.set, s.order[s.next])
		s.order[s.next] = h
		s.next = (s.next + 1) % maxSeenURLs
	}
	s.set[h] = struct{}{}
	return true
}
