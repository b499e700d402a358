package kit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/jsonpath"
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
// decodes the records list straight into []T (no generic tree of the
// page) and, for a cursor paginator, reads the cursor on the way. What the
// pass learns is kept on the Response so the built-in paginators do not
// parse the body again.

// defaultItemKeys are looked for, in this order, when no items key is set.
var defaultItemKeys = []string{"data", "items", "results"}

// pageLayout is where a page's records (and cursor) are, derived once per
// resource from its paginator.
type pageLayout struct {
	items      []jsonpath.Path // candidates in priority order
	override   string          // the dotted items key, when one is set
	cursor     jsonpath.Path   // nil when the paginator reads no cursor
	cursorKey  string
	link       bool          // the cursor is a next-page URL (NextLink)
	hasMore    jsonpath.Path // Cursor.HasMoreKey; nil when none
	hasMoreKey string
	record     jsonpath.Path // Cursor.RecordKey: the cursor is this key of the last record
	recordKey  string
}

// pageInfo is what the single pass found, kept on the page's Response.
type pageInfo struct {
	records    int
	cursorKey  string // the key the cursor was looked for at ("" when none)
	recordKey  string // the record key the cursor was read from ("" when none)
	hasMoreKey string // the key the has-more flag was looked for at ("" when none)
	cursor     string // "" when absent, null or ""
	cursorNum  bool   // the cursor is a JSON number (its text)
	cursorErr  error  // the cursor could not be read (RecordKey, NextLink): reported when the walk goes on
	hasMore    uint8  // hasMoreAbsent, hasMoreTrue or hasMoreFalse
	hasMoreErr error  // the has-more value is not a boolean
	span       []byte // the raw records array, for the repeated-page guard
	index      int    // the page's number in its walk, from 1; 0 outside a walk
}

// The values of pageInfo.hasMore.
const (
	hasMoreAbsent uint8 = iota
	hasMoreTrue
	hasMoreFalse
)

func newPageLayout(p Paginator) (*pageLayout, error) {
	l := &pageLayout{}
	if err := checkStart(p); err != nil {
		return nil, err
	}
	if ip, ok := p.(interface{ ItemsPath() string }); ok {
		l.override = ip.ItemsPath()
	}
	var err error
	parse := func(what, key string) jsonpath.Path {
		if key == "" || err != nil {
			return nil
		}
		path, perr := jsonpath.Parse(key)
		if perr != nil {
			err = fmt.Errorf("%s %q: %w", what, key, perr)
		}
		return path
	}
	if cp, ok := p.(interface{ cursorPath() string }); ok {
		l.cursorKey = cp.cursorPath()
		l.cursor = parse("cursor key", l.cursorKey)
	}
	if _, ok := p.(NextLink); ok {
		l.link = true
	}
	if hp, ok := p.(interface{ hasMorePath() string }); ok {
		l.hasMoreKey = hp.hasMorePath()
		l.hasMore = parse("has-more key", l.hasMoreKey)
	}
	if rp, ok := p.(interface{ recordPath() string }); ok {
		l.recordKey = rp.recordPath()
		l.record = parse("record key", l.recordKey)
	}
	if err != nil {
		return nil, err
	}
	if overlaps(l.cursor, l.hasMore) {
		return nil, fmt.Errorf("cursor key %q and has-more key %q overlap: one lies inside the other", l.cursorKey, l.hasMoreKey)
	}
	if l.override != "" {
		path, err := jsonpath.Parse(l.override)
		if err != nil {
			return nil, fmt.Errorf("items key %q: %w", l.override, err)
		}
		if overlaps(path, l.cursor) {
			return nil, fmt.Errorf("items key %q and cursor key %q overlap: one lies inside the other", l.override, l.cursorKey)
		}
		if overlaps(path, l.hasMore) {
			return nil, fmt.Errorf("items key %q and has-more key %q overlap: one lies inside the other", l.override, l.hasMoreKey)
		}
		l.items = []jsonpath.Path{path}
		return l, nil
	}
	for _, k := range defaultItemKeys {
		// A cursor inside "data" means data is an object, not the records.
		if p := (jsonpath.Path{k}); !overlaps(p, l.cursor) && !overlaps(p, l.hasMore) {
			l.items = append(l.items, p)
		}
	}
	return l, nil
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

// overlaps reports whether one of a and b is a prefix of the other.
func overlaps(a, b jsonpath.Path) bool {
	if a == nil || b == nil {
		return false
	}
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func layoutFor(itemsKey, cursorKey string) (*pageLayout, error) {
	p := PageNumber{ItemsKey: itemsKey}
	if cursorKey == "" {
		return newPageLayout(p)
	}
	return newPageLayout(Cursor{ItemsKey: itemsKey, NextKey: cursorKey})
}

// errNoRecords is wrapped in the *DecodeError of a page without a records
// list.
var errNoRecords = errors.New("no records list")

// scan decodes the records of body into recs (a pointer to a slice) and
// reads the cursor and the has-more flag, in one pass.
func (l *pageLayout) scan(body []byte, recs any) (pageInfo, error) {
	info := pageInfo{cursorKey: l.cursorKey, hasMoreKey: l.hasMoreKey, recordKey: l.recordKey}
	slice := reflect.ValueOf(recs).Elem()
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	var last []byte // the raw last record, when l.record is set
	if l.override == "" && len(trimmed) > 0 && trimmed[0] == '[' {
		if l.record != nil {
			dec := jsontext.NewDecoder(bytes.NewReader(body), jsonOpts)
			var err error
			if last, err = decodeTracking(dec, body, slice); err != nil {
				return info, err
			}
			if _, err := dec.ReadToken(); err != io.EOF {
				return info, unmarshalJSON(body, recs) // reports what follows the array
			}
		} else if err := unmarshalJSON(body, recs); err != nil {
			return info, err
		}
		info.records, info.span = slice.Len(), trimmed
		l.readRecordKey(last, &info)
		return info, nil
	}
	paths := l.items
	cursorAt, hasMoreAt := -1, -1
	if l.cursor != nil || l.hasMore != nil {
		paths = paths[:len(paths):len(paths)]
		if l.cursor != nil {
			cursorAt = len(paths)
			paths = append(paths, l.cursor)
		}
		if l.hasMore != nil {
			hasMoreAt = len(paths)
			paths = append(paths, l.hasMore)
		}
	}
	best := len(l.items) // index of the records list found; len: none yet
	var notArray jsontext.Kind
	err := jsonpath.Walk(body, paths, func(i int, dec *jsontext.Decoder) error {
		switch i {
		case cursorAt:
			return l.readCursor(dec, &info)
		case hasMoreAt:
			return l.readHasMore(dec, &info)
		}
		kind := dec.PeekKind()
		if i >= best || (kind != '[' && kind != 'n') {
			if kind != '[' && kind != 'n' && l.override != "" {
				notArray = kind
			}
			return dec.SkipValue()
		}
		best = i
		slice.SetZero()
		last = nil
		start := dec.InputOffset()
		if kind == 'n' {
			info.span = nil
			return dec.SkipValue()
		}
		if l.record != nil {
			var err error
			last, err = decodeTracking(dec, body, slice)
			if err != nil {
				return err
			}
		} else if err := unmarshalDecode(dec, recs); err != nil {
			return err
		}
		info.span = bytes.TrimLeft(body[start:dec.InputOffset()], " \t\r\n:")
		return nil
	})
	if err != nil {
		return info, err
	}
	if best == len(l.items) {
		if l.override != "" {
			if notArray != 0 {
				return info, fmt.Errorf("%w: the value at %q is %s, not an array", errNoRecords, l.override, kindName(notArray))
			}
			return info, fmt.Errorf("%w: no key %q", errNoRecords, l.override)
		}
		keys := make([]string, len(l.items))
		for i, p := range l.items {
			keys[i] = p.String()
		}
		return info, fmt.Errorf("%w: not a JSON array, and none of the keys %s holds an array", errNoRecords, strings.Join(keys, ", "))
	}
	info.records = slice.Len()
	l.readRecordKey(last, &info)
	return info, nil
}

// decodeTracking decodes the JSON array dec is positioned at into slice
// (a []T), one record at a time, and returns the raw text of the last
// record (a slice of body; nil for an empty array): what Cursor.RecordKey
// reads, without decoding the page a second time.
func decodeTracking(dec *jsontext.Decoder, body []byte, slice reflect.Value) ([]byte, error) {
	if _, err := dec.ReadToken(); err != nil { // '['
		return nil, err
	}
	var last []byte
	n := 0
	for dec.PeekKind() != ']' {
		start := dec.InputOffset()
		slice.Grow(1)
		slice.SetLen(n + 1)
		if err := unmarshalDecode(dec, slice.Index(n).Addr().Interface()); err != nil {
			return nil, err
		}
		n++
		last = bytes.TrimLeft(body[start:dec.InputOffset()], " \t\r\n,")
	}
	if _, err := dec.ReadToken(); err != nil { // ']'
		return nil, err
	}
	if n == 0 && slice.IsNil() {
		slice.Set(reflect.MakeSlice(slice.Type(), 0, 0))
	}
	return last, nil
}

// readRecordKey reads the cursor at l.record in the page's last record;
// a record without it is an error kept for NextPage.
func (l *pageLayout) readRecordKey(last []byte, info *pageInfo) {
	if l.record == nil || last == nil {
		return
	}
	raw, found, err := jsonpath.Lookup(last, l.record)
	if err != nil || !found {
		info.cursorErr = fmt.Errorf("the last record has no key %q", l.recordKey)
		return
	}
	switch jsontext.Value(raw).Kind() {
	case '"':
		var s string
		if err := unmarshalJSON(raw, &s); err == nil && s != "" {
			info.cursor = s
			return
		}
		info.cursorErr = fmt.Errorf("the last record's key %q is an empty string", l.recordKey)
	case '0':
		info.cursor, info.cursorNum = string(raw), true
	default:
		info.cursorErr = fmt.Errorf("the last record's key %q is %s, want a string or a number", l.recordKey, kindName(jsontext.Value(raw).Kind()))
	}
}

func (l *pageLayout) readCursor(dec *jsontext.Decoder, info *pageInfo) error {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		info.cursor = tok.String()
		return nil
	case '0':
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		info.cursor, info.cursorNum = string(v), true
		return nil
	case 'n':
		return dec.SkipValue()
	default:
		kind := dec.PeekKind()
		if err := dec.SkipValue(); err != nil {
			return err
		}
		if l.link {
			info.cursorErr = fmt.Errorf("next-page URL at %q is %s, not a URL", l.cursorKey, kindName(kind))
			return nil
		}
		return fmt.Errorf("cursor at %q is %s, want a string or a number", l.cursorKey, kindName(kind))
	}
}

// readHasMore reads the has-more flag: true, false, or absent (null); any
// other value is an error kept for NextPage.
func (l *pageLayout) readHasMore(dec *jsontext.Decoder, info *pageInfo) error {
	kind := dec.PeekKind()
	if err := dec.SkipValue(); err != nil {
		return err
	}
	switch kind {
	case 't':
		info.hasMore = hasMoreTrue
	case 'f':
		info.hasMore = hasMoreFalse
	case 'n':
	default:
		info.hasMoreErr = fmt.Errorf("has-more key %q is %s, want a boolean", l.hasMoreKey, kindName(kind))
	}
	return nil
}

// kindName names a JSON value's kind in messages (the page scanner's and
// WithJSONField's).
func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "invalid JSON"
}

// decodePage scans a page response into recs, keeping what it found on the
// response, and reports failures as a *DecodeError.
func decodePage(l *pageLayout, resp *Response, recs any) error {
	info, err := l.scan(resp.body, recs)
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
		return resp.page.records, nil
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
// walk) is scanned now. Errors in what it found (cursorErr, hasMoreErr)
// name the key and the page.
func pageFacts(resp *Response, p Paginator) (*pageInfo, error) {
	if resp == nil {
		return nil, errors.New("kit: paginator: nil response")
	}
	info := resp.page
	if info == nil || !info.scannedFor(p) {
		l, err := newPageLayout(p)
		if err != nil {
			return nil, fmt.Errorf("kit: paginator %T: %w", p, err)
		}
		var recs []jsontext.Value
		scanned, err := l.scan(resp.body, &recs)
		if err != nil {
			return nil, pageDecodeError(resp, &recs, err)
		}
		if resp.page != nil {
			scanned.index = resp.page.index
		}
		info = &scanned
	}
	if info.cursorErr != nil || info.hasMoreErr != nil {
		c := *info
		if c.cursorErr != nil {
			c.cursorErr = pageFactError(resp, info, "%w", c.cursorErr)
		}
		if c.hasMoreErr != nil {
			c.hasMoreErr = pageFactError(resp, info, "%w", c.hasMoreErr)
		}
		info = &c
	}
	return info, nil
}

// scannedFor reports whether the pass that found info read the keys p
// reads.
func (info *pageInfo) scannedFor(p Paginator) bool {
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
	return info.cursorKey == cursor && info.hasMoreKey == hasMore && info.recordKey == record
}

// pageFactError is an error about the page of resp, naming it: "page 3
// (GET https://api.example.com/v1/items?limit=2): <what>". The walk wraps
// it with what it attempted.
func pageFactError(resp *Response, info *pageInfo, format string, args ...any) error {
	where := ""
	if resp != nil && resp.Request != nil {
		where = resp.Request.Method + " " + resp.redact.url(resp.Request.URL)
	}
	what := fmt.Errorf(format, args...)
	if info != nil && info.index > 0 {
		return fmt.Errorf("page %d (%s): %w", info.index, where, what)
	}
	return fmt.Errorf("page (%s): %w", where, what)
}
