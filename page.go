package kit

import (
	"bytes"
	"errors"
	"fmt"
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
	items     []jsonpath.Path // candidates in priority order
	override  string          // the dotted items key, when one is set
	cursor    jsonpath.Path   // nil when the paginator reads no cursor
	cursorKey string
}

// pageInfo is what the single pass found, kept on the page's Response.
type pageInfo struct {
	records   int
	cursorKey string // the key the cursor was looked for at ("" when none)
	cursor    string // "" when absent, null or ""
	span      []byte // the raw records array, for the repeated-page guard
}

func newPageLayout(p Paginator) (*pageLayout, error) {
	l := &pageLayout{}
	if ip, ok := p.(interface{ ItemsPath() string }); ok {
		l.override = ip.ItemsPath()
	}
	if cp, ok := p.(interface{ cursorPath() string }); ok {
		l.cursorKey = cp.cursorPath()
		path, err := jsonpath.Parse(l.cursorKey)
		if err != nil {
			return nil, fmt.Errorf("cursor key %q: %w", l.cursorKey, err)
		}
		l.cursor = path
	}
	if l.override != "" {
		path, err := jsonpath.Parse(l.override)
		if err != nil {
			return nil, fmt.Errorf("items key %q: %w", l.override, err)
		}
		if overlaps(path, l.cursor) {
			return nil, fmt.Errorf("items key %q and cursor key %q overlap: one lies inside the other", l.override, l.cursorKey)
		}
		l.items = []jsonpath.Path{path}
		return l, nil
	}
	for _, k := range defaultItemKeys {
		// A cursor inside "data" means data is an object, not the records.
		if p := (jsonpath.Path{k}); !overlaps(p, l.cursor) {
			l.items = append(l.items, p)
		}
	}
	return l, nil
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
// reads the cursor, in one pass.
func (l *pageLayout) scan(body []byte, recs any) (pageInfo, error) {
	info := pageInfo{cursorKey: l.cursorKey}
	slice := reflect.ValueOf(recs).Elem()
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if l.override == "" && len(trimmed) > 0 && trimmed[0] == '[' {
		if err := unmarshalJSON(body, recs); err != nil {
			return info, err
		}
		info.records, info.span = slice.Len(), trimmed
		return info, nil
	}
	paths := l.items
	if l.cursor != nil {
		paths = append(paths[:len(paths):len(paths)], l.cursor)
	}
	best := len(l.items) // index of the records list found; len: none yet
	var notArray jsontext.Kind
	err := jsonpath.Walk(body, paths, func(i int, dec *jsontext.Decoder) error {
		if i == len(l.items) {
			return l.readCursor(dec, &info)
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
		start := dec.InputOffset()
		if kind == 'n' {
			info.span = nil
			return dec.SkipValue()
		}
		if err := unmarshalDecode(dec, recs); err != nil {
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
	return info, nil
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
		info.cursor = string(v)
		return nil
	case 'n':
		return dec.SkipValue()
	default:
		kind := dec.PeekKind()
		if err := dec.SkipValue(); err != nil {
			return err
		}
		return fmt.Errorf("cursor at %q is %s, want a string or a number", l.cursorKey, kindName(kind))
	}
}

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
		de.Method, de.URL = resp.Request.Method, resp.secrets.redact(resp.Request.URL)
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

// pageCursor returns the cursor at cursorKey in the page of resp ("" when
// absent, null or ""), from the walk's single pass when there was one.
func pageCursor(resp *Response, itemsKey, cursorKey string) (string, error) {
	if resp == nil {
		return "", errors.New("kit: paginator: nil response")
	}
	if resp.page != nil && resp.page.cursorKey == cursorKey {
		return resp.page.cursor, nil
	}
	path, err := jsonpath.Parse(cursorKey)
	if err != nil {
		return "", fmt.Errorf("kit: cursor key %q: %w", cursorKey, err)
	}
	l := &pageLayout{cursor: path, cursorKey: cursorKey}
	var info pageInfo
	err = jsonpath.Walk(resp.body, []jsonpath.Path{path}, func(_ int, dec *jsontext.Decoder) error {
		return l.readCursor(dec, &info)
	})
	if err != nil {
		return "", pageDecodeError(resp, new(string), err)
	}
	return info.cursor, nil
}
