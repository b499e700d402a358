package kit

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/pagescan"
)

// Page is one page of a resource walk: its records, decoded and validated,
// and the response it came from (status, headers and JSON() for totals and
// other page metadata).
type Page[T any] struct {
	Records  []T
	Response *Response
}

// Private implementation past this point.
//
// A page body is read once and parsed once: one pass over the document
// (internal/pagescan) decodes the records list straight into []T (no
// generic tree of the page) and, for a cursor paginator, reads the cursor
// on the way. What the pass learns is kept on the Response so the built-in
// paginators do not parse the body again.

// newPageLayout is where the pages of paginator p hold their records,
// cursor and has-more flag, derived once per resource.
func newPageLayout(p Paginator) (*pagescan.Layout, error) {
	if err := checkStart(p); err != nil {
		return nil, err
	}
	var k pagescan.Keys
	if ip, ok := p.(interface{ ItemsPath() string }); ok {
		k.Items = ip.ItemsPath()
	}
	if cp, ok := p.(interface{ cursorPath() string }); ok {
		k.Cursor = cp.cursorPath()
	}
	if _, ok := p.(NextLink); ok {
		k.Link = true
	}
	if hp, ok := p.(interface{ hasMorePath() string }); ok {
		k.HasMore = hp.hasMorePath()
	}
	if rp, ok := p.(interface{ recordPath() string }); ok {
		k.Record = rp.recordPath()
	}
	return pagescan.New(k, jsonOpts)
}

// checkStart refuses a PageNumber whose Start is none of the PageStart
// constants.
func checkStart(p Paginator) error {
	var start PageStart
	switch pn := p.(type) {
	case PageNumber:
		start = pn.Start
	case *PageNumber:
		if pn != nil {
			start = pn.Start
		}
	}
	if start < StartAtOne || start > StartUnknown {
		return fmt.Errorf("PageNumber.Start is %#v: want kit.StartAtOne, kit.StartAtZero or kit.StartUnknown", start)
	}
	return nil
}

func layoutFor(itemsKey, cursorKey string) (*pagescan.Layout, error) {
	p := PageNumber{ItemsKey: itemsKey}
	if cursorKey == "" {
		return newPageLayout(p)
	}
	return newPageLayout(Cursor{ItemsKey: itemsKey, NextKey: cursorKey})
}

// decodePage scans a page response into recs, keeping what it found on the
// response, and reports failures as a *DecodeError.
func decodePage(l *pagescan.Layout, resp *Response, recs any) error {
	info, err := l.Scan(resp.body, recs)
	if err != nil {
		return pageDecodeError(resp, recs, err)
	}
	resp.page = &info
	return nil
}

func pageDecodeError(resp *Response, recs any, err error) error {
	de := &DecodeError{
		ContentType: resp.Header.Get("Content-Type"),
		Want:        reflect.TypeOf(recs).Elem().String(),
		Offset:      max(jsonErrorOffset(err), 0),
		Err:         err,
	}
	if resp.Request != nil {
		de.Method, de.URL = resp.Request.Method, resp.redact.url(resp.Request.URL)
	}
	return de
}

// recordCount returns how many records the page of resp holds, from the
// walk's single pass when there was one.
func recordCount(resp *Response, itemsKey string) (int, error) {
	if resp == nil {
		return 0, errors.New("kit: paginator: nil response")
	}
	if resp.page != nil {
		return resp.page.Records, nil
	}
	l, err := layoutFor(itemsKey, "")
	if err != nil {
		return 0, err
	}
	var recs []jsontext.Value
	if err := decodePage(l, resp, &recs); err != nil {
		return 0, err
	}
	return len(recs), nil
}

// pageFacts returns what the walk's single pass found in the page of resp
// for paginator p: the cursor, the has-more flag and the record count. A
// response that was not scanned for p's keys (a paginator called outside a
// walk) is scanned now. Errors in what it found (CursorErr, HasMoreErr)
// name the key and the page.
func pageFacts(resp *Response, p Paginator) (*pagescan.Info, error) {
	if resp == nil {
		return nil, errors.New("kit: paginator: nil response")
	}
	info := resp.page
	if info == nil || !scannedFor(info, p) {
		l, err := newPageLayout(p)
		if err != nil {
			return nil, fmt.Errorf("kit: paginator %T: %w", p, err)
		}
		var recs []jsontext.Value
		scanned, err := l.Scan(resp.body, &recs)
		if err != nil {
			return nil, pageDecodeError(resp, &recs, err)
		}
		if resp.page != nil {
			scanned.Index = resp.page.Index
		}
		info = &scanned
	}
	if info.CursorErr != nil || info.HasMoreErr != nil {
		c := *info
		if c.CursorErr != nil {
			c.CursorErr = pageFactError(resp, info, "%w", c.CursorErr)
		}
		if c.HasMoreErr != nil {
			c.HasMoreErr = pageFactError(resp, info, "%w", c.HasMoreErr)
		}
		info = &c
	}
	return info, nil
}

// scannedFor reports whether the pass that found info read the keys p
// reads.
func scannedFor(info *pagescan.Info, p Paginator) bool {
	var cursor, hasMore, record string
	if cp, ok := p.(interface{ cursorPath() string }); ok {
		cursor = cp.cursorPath()
	}
	if hp, ok := p.(interface{ hasMorePath() string }); ok {
		hasMore = hp.hasMorePath()
	}
	if rp, ok := p.(interface{ recordPath() string }); ok {
		record = rp.recordPath()
	}
	return info.CursorKey == cursor && info.HasMoreKey == hasMore && info.RecordKey == record
}

// pageFactError is an error about the page of resp, naming it: "page 3
// (GET https://api.example.com/v1/items?limit=2): <what>". The walk wraps
// it with what it attempted.
func pageFactError(resp *Response, info *pagescan.Info, format string, args ...any) error {
	where := ""
	if resp != nil && resp.Request != nil {
		where = resp.Request.Method + " " + resp.redact.url(resp.Request.URL)
	}
	what := fmt.Errorf(format, args...)
	if info != nil && info.Index > 0 {
		return fmt.Errorf("page %d (%s): %w", info.Index, where, what)
	}
	return fmt.Errorf("page (%s): %w", where, what)
}
