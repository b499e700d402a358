// Package pagescan reads a page of a paginated JSON API in one pass: it
// decodes the records list straight into a []T (no generic tree of the
// page) and reads the cursor and the has-more flag on the way. It knows
// nothing of kit's types.
package pagescan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/jsonpath"
)

// DefaultItemKeys are looked for, in this order, when no items key is set.
var DefaultItemKeys = []string{"data", "items", "results"}

// Keys are the dotted keys a paginator reads a page at.
type Keys struct {
	Items   string // the records list; "" for a top-level array or one of DefaultItemKeys
	Cursor  string // the cursor; "" when none is read
	Link    bool   // the cursor is a next-page URL
	HasMore string // the has-more flag; "" when none
	Record  string // the cursor is this key of the last record; "" when not
}

// Layout is where a page's records (and cursor) are, derived once from a
// paginator's Keys. It is safe for concurrent use.
type Layout struct {
	items      []jsonpath.Path // candidates in priority order
	override   string          // the dotted items key, when one is set
	cursor     jsonpath.Path   // nil when the paginator reads no cursor
	cursorKey  string
	link       bool          // the cursor is a next-page URL
	hasMore    jsonpath.Path // the has-more flag; nil when none
	hasMoreKey string
	record     jsonpath.Path // the cursor is this key of the last record
	recordKey  string
	opts       json.Options // how records are decoded
}

// Info is what the single pass found.
type Info struct {
	Records    int
	CursorKey  string // the key the cursor was looked for at ("" when none)
	RecordKey  string // the record key the cursor was read from ("" when none)
	HasMoreKey string // the key the has-more flag was looked for at ("" when none)
	Cursor     string // "" when absent, null or ""
	CursorNum  bool   // the cursor is a JSON number (its text)
	CursorErr  error  // the cursor could not be read (a record key, a next-page URL): reported when a walk goes on
	HasMore    uint8  // HasMoreAbsent, HasMoreTrue or HasMoreFalse
	HasMoreErr error  // the has-more value is not a boolean
	Span       []byte // the raw records array, for a repeated-page guard
	Index      int    // the page's number in its walk, from 1; 0 outside a walk (the walk sets it)
}

// The values of Info.HasMore.
const (
	HasMoreAbsent uint8 = iota
	HasMoreTrue
	HasMoreFalse
)

// New returns the layout of pages read at k's keys, whose records decode
// with opts. A key that is not a valid dotted path, or two keys of which
// one lies inside the other, is an error.
func New(k Keys, opts json.Options) (*Layout, error) {
	l := &Layout{override: k.Items, cursorKey: k.Cursor, link: k.Link, hasMoreKey: k.HasMore, recordKey: k.Record, opts: opts}
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
	l.cursor = parse("cursor key", l.cursorKey)
	l.hasMore = parse("has-more key", l.hasMoreKey)
	l.record = parse("record key", l.recordKey)
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
	for _, k := range DefaultItemKeys {
		// A cursor inside "data" means data is an object, not the records.
		if p := (jsonpath.Path{k}); !overlaps(p, l.cursor) && !overlaps(p, l.hasMore) {
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

// ErrNoRecords is wrapped in the error of a page without a records list.
var ErrNoRecords = errors.New("no records list")

// Scan decodes the records of body into recs (a pointer to a slice) and
// reads the cursor and the has-more flag, in one pass.
func (l *Layout) Scan(body []byte, recs any) (Info, error) {
	info := Info{CursorKey: l.cursorKey, HasMoreKey: l.hasMoreKey, RecordKey: l.recordKey}
	slice := reflect.ValueOf(recs).Elem()
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	var last []byte // the raw last record, when l.record is set
	if l.override == "" && len(trimmed) > 0 && trimmed[0] == '[' {
		if l.record != nil {
			dec := jsontext.NewDecoder(bytes.NewReader(body), l.opts)
			var err error
			if last, err = l.decodeTracking(dec, body, slice); err != nil {
				return info, err
			}
			if _, err := dec.ReadToken(); err != io.EOF {
				return info, json.Unmarshal(body, recs, l.opts) // reports what follows the array
			}
		} else if err := json.Unmarshal(body, recs, l.opts); err != nil {
			return info, err
		}
		info.Records, info.Span = slice.Len(), trimmed
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
			info.Span = nil
			return dec.SkipValue()
		}
		if l.record != nil {
			var err error
			last, err = l.decodeTracking(dec, body, slice)
			if err != nil {
				return err
			}
		} else if err := json.UnmarshalDecode(dec, recs, l.opts); err != nil {
			return err
		}
		info.Span = bytes.TrimLeft(body[start:dec.InputOffset()], " \t\r\n:")
		return nil
	})
	if err != nil {
		return info, err
	}
	if best == len(l.items) {
		if l.override != "" {
			if notArray != 0 {
				return info, fmt.Errorf("%w: the value at %q is %s, not an array", ErrNoRecords, l.override, KindName(notArray))
			}
			return info, fmt.Errorf("%w: no key %q", ErrNoRecords, l.override)
		}
		keys := make([]string, len(l.items))
		for i, p := range l.items {
			keys[i] = p.String()
		}
		return info, fmt.Errorf("%w: not a JSON array, and none of the keys %s holds an array", ErrNoRecords, strings.Join(keys, ", "))
	}
	info.Records = slice.Len()
	l.readRecordKey(last, &info)
	return info, nil
}

// decodeTracking decodes the JSON array dec is positioned at into slice
// (a []T), one record at a time, and returns the raw text of the last
// record (a slice of body; nil for an empty array): what a record key
// reads, without decoding the page a second time.
func (l *Layout) decodeTracking(dec *jsontext.Decoder, body []byte, slice reflect.Value) ([]byte, error) {
	if _, err := dec.ReadToken(); err != nil { // '['
		return nil, err
	}
	var last []byte
	n := 0
	for dec.PeekKind() != ']' {
		start := dec.InputOffset()
		slice.Grow(1)
		slice.SetLen(n + 1)
		if err := json.UnmarshalDecode(dec, slice.Index(n).Addr().Interface(), l.opts); err != nil {
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
func (l *Layout) readRecordKey(last []byte, info *Info) {
	if l.record == nil || last == nil {
		return
	}
	raw, found, err := jsonpath.Lookup(last, l.record)
	if err != nil || !found {
		info.CursorErr = fmt.Errorf("the last record has no key %q", l.recordKey)
		return
	}
	switch jsontext.Value(raw).Kind() {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s, l.opts); err == nil && s != "" {
			info.Cursor = s
			return
		}
		info.CursorErr = fmt.Errorf("the last record's key %q is an empty string", l.recordKey)
	case '0':
		info.Cursor, info.CursorNum = string(raw), true
	default:
		info.CursorErr = fmt.Errorf("the last record's key %q is %s, want a string or a number", l.recordKey, KindName(jsontext.Value(raw).Kind()))
	}
}

func (l *Layout) readCursor(dec *jsontext.Decoder, info *Info) error {
	switch dec.PeekKind() {
	case '"':
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		info.Cursor = tok.String()
		return nil
	case '0':
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		info.Cursor, info.CursorNum = string(v), true
		return nil
	case 'n':
		return dec.SkipValue()
	default:
		kind := dec.PeekKind()
		if err := dec.SkipValue(); err != nil {
			return err
		}
		if l.link {
			info.CursorErr = fmt.Errorf("next-page URL at %q is %s, not a URL", l.cursorKey, KindName(kind))
			return nil
		}
		return fmt.Errorf("cursor at %q is %s, want a string or a number", l.cursorKey, KindName(kind))
	}
}

// readHasMore reads the has-more flag: true, false, or absent (null); any
// other value is an error kept for NextPage.
func (l *Layout) readHasMore(dec *jsontext.Decoder, info *Info) error {
	kind := dec.PeekKind()
	if err := dec.SkipValue(); err != nil {
		return err
	}
	switch kind {
	case 't':
		info.HasMore = HasMoreTrue
	case 'f':
		info.HasMore = HasMoreFalse
	case 'n':
	default:
		info.HasMoreErr = fmt.Errorf("has-more key %q is %s, want a boolean", l.hasMoreKey, KindName(kind))
	}
	return nil
}

// KindName names a JSON value's kind in messages: "an object", "null".
func KindName(k jsontext.Kind) string {
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
