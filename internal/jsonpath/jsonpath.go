// Package jsonpath locates values at dotted object keys in a raw JSON
// document in a single pass, without decoding the document into a tree.
//
// It serves a pagination layer that reads each page body once: the records
// array (for example at "data.records") is decoded straight into typed Go
// values and the cursor (for example at "meta.next_cursor") is read next to
// it, while every other member is skipped without being materialised.
//
// # Matching
//
// A [Path] is a sequence of object member names. Names are matched exactly
// (case-sensitively) against the unescaped member names of the document, so
// the key "d\u0061ta" matches the segment "data". Only objects are
// descended: there are no array indexes or wildcards, and a path whose
// intermediate value is not an object (an array, a string, null, ...) is
// simply not found. The empty Path denotes the top-level value. [Parse] cannot
// produce segments that contain "." or are empty, but a Path built directly,
// such as Path{"a.b"} or Path{""}, matches such member names.
//
// # Strictness
//
// Documents are validated completely, from the first to the last byte,
// according to RFC 8259 with the additional restrictions of RFC 7493 (I-JSON)
// that package jsontext applies by default:
//
//   - Duplicate member names in any object, including objects that are
//     skipped, make the document invalid. They are ambiguous (parsers
//     disagree on which occurrence wins, which is a classic way of smuggling
//     values past a validator), so Walk reports a [*SyntaxError] wrapping
//     [jsontext.ErrDuplicateName] instead of picking one.
//   - Invalid UTF-8 in any string, and escape sequences for unpaired
//     surrogates, make the document invalid. Nothing is replaced with
//     U+FFFD, unlike encoding/json.
//   - Exactly one top-level value is allowed; anything but whitespace after
//     it is reported as [ErrTrailingData], and an empty document as
//     [io.ErrUnexpectedEOF].
//
// A document is never modified, and values returned by [Lookup] alias it.
package jsonpath

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// ErrInvalidPath is wrapped by the errors returned by [Parse].
var ErrInvalidPath = errors.New("jsonpath: invalid path")

// ErrOverlappingPaths is wrapped by the error Walk returns, before reading
// anything, when one of its paths equals another or is a prefix of another.
// A value can be handed to visit only once, so such paths cannot all be
// served in a single pass.
var ErrOverlappingPaths = errors.New("jsonpath: overlapping paths")

// ErrTrailingData is the cause of the [*SyntaxError] reported when a
// document holds anything but whitespace after its top-level value.
var ErrTrailingData = errors.New("unexpected data after top-level value")

// ErrVisitMisuse is wrapped by the error Walk returns when a visit function
// returned nil without consuming exactly one value from the decoder.
var ErrVisitMisuse = errors.New("jsonpath: visit did not consume exactly one value")

// SyntaxError reports that a document is not a single valid JSON value.
type SyntaxError struct {
	// Offset is the byte offset in the document at or after which the
	// problem was detected.
	Offset int64
	// Err is the cause: a *jsontext.SyntacticError (which may in turn wrap
	// jsontext.ErrDuplicateName), io.ErrUnexpectedEOF for an empty document,
	// or ErrTrailingData.
	Err error
}

// Error implements the error interface.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("jsonpath: invalid JSON at byte offset %d: %v", e.Offset, e.Err)
}

// Unwrap returns the cause, so that errors.Is and errors.As see through a
// SyntaxError.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Path is a parsed dotted key: "meta.next" is Path{"meta", "next"}. Each
// element is an object member name. The empty Path denotes the top-level
// value.
type Path []string

// Parse parses a dotted key such as "data.records". The empty string, empty
// segments ("a..b", ".a", "a.") and invalid UTF-8 (which no member name of a
// valid document can match) are errors wrapping [ErrInvalidPath]. To address
// the top-level value use the empty Path, Path{}.
func Parse(dotted string) (Path, error) {
	if dotted == "" {
		return nil, fmt.Errorf("%w: empty key", ErrInvalidPath)
	}
	if !utf8.ValidString(dotted) {
		return nil, fmt.Errorf("%w: %q is not valid UTF-8", ErrInvalidPath, dotted)
	}
	p := make(Path, 0, strings.Count(dotted, ".")+1)
	for i, seg := range strings.Split(dotted, ".") {
		if seg == "" {
			return nil, fmt.Errorf("%w: empty segment %d in %q", ErrInvalidPath, i+1, dotted)
		}
		p = append(p, seg)
	}
	return p, nil
}

// String returns p in dotted form, the inverse of [Parse] for paths Parse
// can produce. The empty Path gives "".
func (p Path) String() string { return strings.Join(p, ".") }

// hasPrefix reports whether q is a prefix of p (or equal to it).
func (p Path) hasPrefix(q Path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Walk reads the JSON document in data once, from start to end, and for
// every value whose location equals one of paths calls visit(i, dec), where
// i is the index of that path and dec is positioned just before the value.
// Values are visited in document order; each path is visited at most once
// (duplicate names are rejected, see the package documentation).
//
// visit must consume exactly one value from dec, for example with
// dec.ReadValue, dec.SkipValue or json.UnmarshalDecode(dec, &v), and must not
// retain dec after returning. If visit returns an error, Walk stops and
// returns it; an error that is or wraps a *jsontext.SyntacticError (invalid
// JSON met inside the visited value), and is not already a [*SyntaxError],
// is first wrapped in a [*SyntaxError].
// If visit returns nil without having consumed exactly one value, Walk
// returns an error wrapping [ErrVisitMisuse].
//
// Members that are not on the way to any path are skipped with
// dec.SkipValue, which validates them without allocating their contents.
// If the document is not valid JSON, Walk returns a [*SyntaxError]; visit may
// already have been called for values preceding the invalid part, so its
// results must be discarded when Walk fails. If paths overlap (one equals or
// is a prefix of another), Walk returns an error wrapping
// [ErrOverlappingPaths] without reading data. With no paths, Walk only
// validates data, and visit may be nil.
func Walk(data []byte, paths []Path, visit func(i int, dec *jsontext.Decoder) error) error {
	if visit == nil && len(paths) > 0 {
		return errors.New("jsonpath: Walk called with paths but a nil visit function")
	}
	if err := checkOverlap(paths); err != nil {
		return err
	}
	w := getWalker(data, paths)
	w.visit = visit
	err := w.run()
	putWalker(w)
	return err
}

// Lookup returns the raw JSON value at p in data, and whether it was found.
// The returned slice aliases data (its capacity is limited so that appending
// to it cannot overwrite data) and is stripped of surrounding whitespace.
// The whole document is validated as by [Walk]; if it is invalid, Lookup
// returns a [*SyntaxError] and no value.
func Lookup(data []byte, p Path) (raw []byte, found bool, err error) {
	w := getWalker(data, nil)
	w.one[0] = p
	w.paths = w.one[:]
	w.lookup = true
	err = w.run()
	raw, found = w.raw, w.found
	putWalker(w)
	if err != nil {
		return nil, false, err
	}
	return raw, found, nil
}

// checkOverlap reports an error if one path equals or is a prefix of another.
func checkOverlap(paths []Path) error {
	for i, p := range paths {
		for j := i + 1; j < len(paths); j++ {
			q := paths[j]
			if p.hasPrefix(q) || q.hasPrefix(p) {
				return fmt.Errorf("%w: %q (index %d) and %q (index %d)",
					ErrOverlappingPaths, p.String(), i, q.String(), j)
			}
		}
	}
	return nil
}

// walker holds the state of one Walk or Lookup. Walkers are pooled so that
// the decoder's internal buffers and the scratch slices are reused.
type walker struct {
	data  []byte
	buf   bytes.Buffer // wraps data so that dec parses it without copying
	dec   jsontext.Decoder
	paths []Path
	visit func(int, *jsontext.Decoder) error

	// sets holds, for each depth d, the indices of the paths whose first d
	// segments match the current location, in sets[d*len(paths):].
	sets []int
	name []byte // scratch space for unescaping member names

	// Lookup mode: the single path is stored in one, and the result in raw
	// and found, avoiding a closure and a slice allocation per call.
	lookup bool
	one    [1]Path
	raw    []byte
	found  bool
}

var walkerPool = sync.Pool{New: func() any { return new(walker) }}

func getWalker(data []byte, paths []Path) *walker {
	w := walkerPool.Get().(*walker)
	w.data = data
	w.paths = paths
	w.buf = *bytes.NewBuffer(data)
	w.dec.Reset(&w.buf)
	return w
}

func putWalker(w *walker) {
	// Drop every reference to caller data so the pool pins nothing.
	w.buf = bytes.Buffer{}
	w.dec.Reset(&w.buf)
	w.data, w.paths, w.visit = nil, nil, nil
	w.one[0], w.raw, w.found, w.lookup = nil, nil, false, false
	if cap(w.name) > 1<<10 {
		w.name = nil
	}
	walkerPool.Put(w)
}

// run walks the whole document and checks that nothing follows it.
func (w *walker) run() error {
	n := len(w.paths)
	maxLen := 0
	for _, p := range w.paths {
		maxLen = max(maxLen, len(p))
	}
	if need := n * (maxLen + 1); cap(w.sets) < need {
		w.sets = make([]int, need)
	} else {
		w.sets = w.sets[:need]
	}
	for i := range n {
		w.sets[i] = i
	}
	if err := w.value(0, w.sets[:n]); err != nil {
		return err
	}
	end := w.dec.InputOffset()
	for i := end; i < int64(len(w.data)); i++ {
		switch w.data[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return &SyntaxError{Offset: i, Err: ErrTrailingData}
		}
	}
	return nil
}

// value processes the next value in the decoder, located at depth, where set
// holds the indices of the paths whose first depth segments match its
// location.
func (w *walker) value(depth int, set []int) error {
	if len(set) == 0 {
		return w.syntax(w.dec.SkipValue())
	}
	// Paths do not overlap, so a path ending here is the only one in set.
	if i := set[0]; len(w.paths[i]) == depth {
		return w.callVisit(i)
	}
	if w.dec.PeekKind() != '{' {
		return w.syntax(w.dec.SkipValue()) // also reports a pending error
	}
	if _, err := w.dec.ReadToken(); err != nil {
		return w.syntax(err)
	}
	n := len(w.paths)
	child := w.sets[(depth+1)*n : (depth+1)*n]
	for {
		if w.dec.PeekKind() == '}' {
			_, err := w.dec.ReadToken()
			return w.syntax(err)
		}
		name, err := w.dec.ReadValue() // a member name, still quoted
		if err != nil {
			return w.syntax(err)
		}
		child = child[:0]
		for _, i := range set {
			if w.nameEquals(name, w.paths[i][depth]) {
				child = append(child, i)
			}
		}
		if err := w.value(depth+1, child); err != nil {
			return err
		}
	}
}

// nameEquals reports whether the quoted member name equals seg once unquoted.
// It only allocates (once per walker) for names that contain escapes.
func (w *walker) nameEquals(quoted jsontext.Value, seg string) bool {
	if len(quoted) < 2 {
		return false
	}
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == seg
	}
	var err error
	w.name, err = jsontext.AppendUnquote(w.name[:0], quoted)
	return err == nil && string(w.name) == seg
}

// callVisit hands the next value to visit (or records it in Lookup mode)
// and checks that exactly one value was consumed.
func (w *walker) callVisit(i int) error {
	if w.dec.PeekKind() == jsontext.KindInvalid {
		// Report a missing or malformed value ourselves rather than
		// leaving it to visit.
		return w.syntax(w.dec.SkipValue())
	}
	if w.lookup {
		v, err := w.dec.ReadValue()
		if err != nil {
			return w.syntax(err)
		}
		// ReadValue returns the exact input bytes, ending at InputOffset;
		// slice data rather than keeping v, which is only valid until the
		// next read.
		end := w.dec.InputOffset()
		start := end - int64(len(v))
		if start >= 0 && end <= int64(len(w.data)) && bytes.Equal(w.data[start:end], v) {
			w.raw = w.data[start:end:end]
		} else {
			w.raw = bytes.Clone(v) // defensive; not expected to happen
		}
		w.found = true
		return nil
	}
	depth := w.dec.StackDepth()
	_, length := w.dec.StackIndex(depth)
	if err := w.visit(i, &w.dec); err != nil {
		var ours *SyntaxError
		var se *jsontext.SyntacticError
		if !errors.As(err, &ours) && errors.As(err, &se) {
			return &SyntaxError{Offset: se.ByteOffset, Err: err}
		}
		return err
	}
	if d := w.dec.StackDepth(); d != depth {
		return fmt.Errorf("%w: visit for path %q (index %d) left the decoder at nesting depth %d, want %d",
			ErrVisitMisuse, w.paths[i].String(), i, d, depth)
	}
	if _, l := w.dec.StackIndex(depth); l != length+1 {
		return fmt.Errorf("%w: visit for path %q (index %d) consumed %d values, want 1",
			ErrVisitMisuse, w.paths[i].String(), i, l-length)
	}
	return nil
}

// syntax converts a decoder error into a *SyntaxError.
func (w *walker) syntax(err error) error {
	switch {
	case err == nil:
		return nil
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return &SyntaxError{Offset: int64(len(w.data)), Err: io.ErrUnexpectedEOF}
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return &SyntaxError{Offset: se.ByteOffset, Err: err}
	}
	return &SyntaxError{Offset: w.dec.InputOffset(), Err: err}
}
