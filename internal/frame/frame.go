// Package frame splits a byte stream into records, one at a time, for kit's
// typed streams:
//
//   - [SSE]: the events of a text/event-stream, by the WHATWG HTML
//     standard's rules for parsing server-sent events (section 9.2.6);
//   - [Delimited]: the lines of NDJSON and JSON Lines ([NewLines]), or the
//     RS-separated records of an application/json-seq ([NewSeq], RFC 7464);
//   - [Array]: the elements of one top-level JSON array.
//
// It does not decode JSON: each reader hands over a record's bytes (for an
// event, its data), which the caller decodes. The array reader checks the
// array's own syntax (brackets, commas, what follows the array) and finds
// where each element ends, tracking strings and nesting; the syntax of an
// element itself is left to the caller's decoder.
//
// # Memory
//
// A reader holds the record being framed and one read's worth of input,
// never the stream: its buffer starts at 32 KiB and grows only for a record
// larger than that, up to the limit given to its constructor. A record (an
// NDJSON line, an array element, an event's data, or any one line of an
// event stream) longer than the limit is [ErrTooLarge], reported as soon as
// the limit is passed, without reading the rest of it.
//
// # Input
//
// A reader reads as soon as it needs bytes and frames a record as soon as
// its last byte has arrived: it never waits for more input than the record
// needs, so records come out while the server is still sending. One UTF-8
// byte order mark at the start of the input is skipped. A read error other
// than io.EOF is returned as it is, so the caller can tell a dropped
// connection from malformed input ([*SyntaxError]) and from [ErrTooLarge];
// a reader returns the same error again if called after it.
//
// Readers are not safe for concurrent use.
package frame

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrTooLarge is returned for a record longer than the reader's limit.
var ErrTooLarge = errors.New("record too large")

// SyntaxError reports input that cannot be framed: an array body that is
// not one JSON array, or a stream that ends inside an array.
type SyntaxError struct {
	Offset int64  // byte offset in the input where the problem was found
	Msg    string // what is wrong
	Err    error  // io.ErrUnexpectedEOF for input that ends too early; else nil
}

// Error returns Msg.
func (e *SyntaxError) Error() string { return e.Msg }

// Unwrap returns Err.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Private implementation past this point.

// readSize is the initial buffer size, and how much room a read gets at
// least.
const readSize = 32 << 10

var bom = []byte("\xEF\xBB\xBF")

// source is a buffered reader that keeps the bytes of the record being
// framed (buf[start:end]) and drops those before it when it needs room.
type source struct {
	r       io.Reader
	buf     []byte
	start   int   // first byte of the record being framed; earlier ones are consumed
	pos     int   // next byte to examine
	end     int   // end of the bytes read
	base    int64 // input offset of buf[0]
	err     error // what the last read ended with; sticky
	max     int   // the most bytes of one record buf may hold
	bomDone bool
}

func (s *source) init(r io.Reader, max int) {
	s.r, s.max = r, max
	if s.buf == nil {
		s.buf = make([]byte, readSize)
	}
	s.start, s.pos, s.end, s.base, s.err, s.bomDone = 0, 0, 0, 0, nil, false
}

// offset is the input offset of buf[i].
func (s *source) offset(i int) int64 { return s.base + int64(i) }

// fill reads more input after buf[end], making room first by dropping the
// consumed bytes before start, then by growing buf (ErrTooLarge when the
// record being framed already holds max bytes). It returns nil when it read
// something, else the error that ended the input.
func (s *source) fill() error {
	if s.err != nil {
		return s.err
	}
	if s.start == s.end {
		// Nothing kept: start over at the front, for free.
		s.base += int64(s.end)
		s.start, s.pos, s.end = 0, s.pos-s.end, 0
	}
	if len(s.buf)-s.end < readSize/4 {
		if s.start > 0 {
			n := copy(s.buf, s.buf[s.start:s.end])
			s.base += int64(s.start)
			s.pos -= s.start
			s.start, s.end = 0, n
		}
		if len(s.buf)-s.end < readSize/4 {
			if s.end > s.max {
				return ErrTooLarge
			}
			nb := make([]byte, max(2*len(s.buf), s.end+readSize))
			copy(nb, s.buf[:s.end])
			s.buf = nb
		}
	}
	for range 100 {
		n, err := s.r.Read(s.buf[s.end:])
		if n < 0 || n > len(s.buf)-s.end {
			s.err = fmt.Errorf("frame: reader returned %d bytes for a buffer of %d", n, len(s.buf)-s.end)
			return s.err
		}
		s.end += n
		if err != nil {
			s.err = err
			if n > 0 {
				return nil
			}
			return err
		}
		if n > 0 {
			return nil
		}
	}
	s.err = io.ErrNoProgress
	return s.err
}

// skipBOM skips a byte order mark at the start of the input. It reads only
// while the bytes so far could be the start of one.
func (s *source) skipBOM() {
	for !s.bomDone {
		avail := s.buf[s.start:s.end]
		if len(avail) >= len(bom) || !bytes.HasPrefix(bom, avail) {
			if bytes.HasPrefix(avail, bom) {
				s.start += len(bom)
				s.pos = max(s.pos, s.start)
			}
			s.bomDone = true
			return
		}
		if s.fill() != nil {
			s.bomDone = true // the error comes back from the next fill
			return
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimSpace returns b without JSON whitespace around it, and how many bytes
// were cut from its front.
func trimSpace(b []byte) ([]byte, int) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	j := len(b)
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return b[i:j], i
}

// Delimited frames records separated by one byte: the lines of NDJSON and
// JSON Lines, or the RS-separated records of an application/json-seq.
type Delimited struct {
	s     source
	sep   byte
	limit int
}

// NewLines returns a reader of the lines of r (NDJSON, JSON Lines): a line
// ends with LF (a CR before it is whitespace), the last one may end with
// the input, and lines of whitespace only are skipped. A line longer than
// limit bytes is ErrTooLarge.
func NewLines(r io.Reader, limit int) *Delimited { return newDelimited(r, '\n', limit) }

// NewSeq returns a reader of the records of an application/json-seq (RFC
// 7464): each record starts with an RS byte (0x1E) and runs to the next;
// whitespace around a record (its closing LF) is removed, and empty records
// are skipped. Bytes before the first RS are a record too. A record longer
// than limit bytes is ErrTooLarge.
func NewSeq(r io.Reader, limit int) *Delimited { return newDelimited(r, 0x1E, limit) }

func newDelimited(r io.Reader, sep byte, limit int) *Delimited {
	d := &Delimited{sep: sep, limit: max(limit, 1)}
	d.s.init(r, d.limit+1)
	return d
}

// Next returns the next record without the whitespace around it, and its
// offset in the input. The bytes are valid until the next call. At the end
// of the input it returns io.EOF.
func (d *Delimited) Next() ([]byte, int64, error) {
	s := &d.s
	s.skipBOM()
	for {
		if i := bytes.IndexByte(s.buf[s.pos:s.end], d.sep); i >= 0 {
			j := s.pos + i
			raw, off := s.buf[s.start:j], s.offset(s.start)
			s.start, s.pos = j+1, j+1
			if len(raw) > d.limit {
				return nil, off, ErrTooLarge
			}
			if rec, cut := trimSpace(raw); len(rec) > 0 {
				return rec, off + int64(cut), nil
			}
			continue
		}
		s.pos = s.end
		if s.end-s.start > d.limit {
			return nil, s.offset(s.start), ErrTooLarge
		}
		if err := s.fill(); err != nil {
			if err == ErrTooLarge {
				return nil, s.offset(s.start), err
			}
			raw, off := s.buf[s.start:s.end], s.offset(s.start)
			s.start = s.end
			if err == io.EOF {
				if rec, cut := trimSpace(raw); len(rec) > 0 {
					return rec, off + int64(cut), nil
				}
			}
			return nil, s.offset(s.end), err
		}
	}
}

// Array frames the elements of one top-level JSON array.
type Array struct {
	s     source
	limit int
	state uint8
	n     int // elements framed

	// The scan of the element being framed, kept across reads.
	depth int
	inStr bool
	esc   bool
}

const (
	arrayBefore    = iota // before the '['
	arrayFirst            // after the '[': an element or ']'
	arrayElement          // after a ',': an element
	arrayAfter            // after an element: ',' or ']'
	arrayDone             // after the ']': whitespace to the end
	arrayCorrupted        // after an error
)

// NewArray returns a reader of the elements of the JSON array that r holds.
// An element longer than limit bytes is ErrTooLarge.
func NewArray(r io.Reader, limit int) *Array {
	a := &Array{limit: max(limit, 1)}
	a.s.init(r, a.limit+1)
	return a
}

// Next returns the bytes of the next element and their offset in the
// input; they are valid until the next call. After the last element and
// the closing bracket, with nothing but whitespace after it, it returns
// io.EOF. Input that is not one JSON array is a *SyntaxError.
func (a *Array) Next() ([]byte, int64, error) {
	s := &a.s
	s.skipBOM()
	for {
		if a.state == arrayCorrupted {
			return nil, s.offset(s.pos), a.s.err
		}
		c, err := a.peek()
		if err != nil {
			if err == io.EOF {
				switch a.state {
				case arrayDone:
					return nil, s.offset(s.pos), io.EOF
				case arrayBefore:
					return nil, 0, a.fail(0, "the body is empty, not a JSON array", io.ErrUnexpectedEOF)
				}
				return nil, 0, a.fail(s.offset(s.pos), fmt.Sprintf("the array ends early, after %d elements", a.n), io.ErrUnexpectedEOF)
			}
			return nil, s.offset(s.pos), err
		}
		switch a.state {
		case arrayBefore:
			if c != '[' {
				return nil, 0, a.fail(s.offset(s.pos), fmt.Sprintf("not a JSON array: the body starts with %s", quoteByte(c)), nil)
			}
			s.pos++
			s.start = s.pos
			a.state = arrayFirst
		case arrayFirst, arrayElement:
			if c == ']' {
				if a.state == arrayElement {
					return nil, 0, a.fail(s.offset(s.pos), fmt.Sprintf("a ',' after element %d is followed by ']'", a.n), nil)
				}
				s.pos++
				s.start = s.pos
				a.state = arrayDone
				continue
			}
			return a.element()
		case arrayAfter:
			switch c {
			case ',':
				a.state = arrayElement
			case ']':
				a.state = arrayDone
			default:
				return nil, 0, a.fail(s.offset(s.pos), fmt.Sprintf("after element %d: want ',' or ']', found %s", a.n, quoteByte(c)), nil)
			}
			s.pos++
			s.start = s.pos
		case arrayDone:
			return nil, 0, a.fail(s.offset(s.pos), fmt.Sprintf("%s after the end of the array", quoteByte(c)), nil)
		}
	}
}

// fail ends the reader with a *SyntaxError.
func (a *Array) fail(off int64, msg string, err error) error {
	a.state = arrayCorrupted
	a.s.err = &SyntaxError{Offset: off, Msg: msg, Err: err}
	return a.s.err
}

// peek skips whitespace, consuming it, and returns the next byte unread.
func (a *Array) peek() (byte, error) {
	s := &a.s
	for {
		for s.pos < s.end {
			if c := s.buf[s.pos]; !isSpace(c) {
				return c, nil
			}
			s.pos++
		}
		s.start = s.pos
		if err := s.fill(); err != nil {
			return 0, err
		}
	}
}

// element frames the element that starts at buf[pos].
func (a *Array) element() ([]byte, int64, error) {
	s := &a.s
	s.start = s.pos
	first := s.buf[s.pos]
	scalar := first != '{' && first != '[' && first != '"'
	a.depth, a.inStr, a.esc = 0, false, false
	emit := func(end int) ([]byte, int64, error) {
		rec, off := s.buf[s.start:end], s.offset(s.start)
		s.pos, s.start = end, end
		a.state = arrayAfter
		a.n++
		if len(rec) > a.limit {
			return nil, off, a.tooLarge()
		}
		return rec, off, nil
	}
	for {
		var end int
		var done bool
		if scalar {
			end, done = a.scanScalar()
		} else {
			end, done = a.scanValue()
		}
		if done {
			return emit(end)
		}
		if s.end-s.start > a.limit {
			return nil, s.offset(s.start), a.tooLarge()
		}
		if err := s.fill(); err != nil {
			switch {
			case err == io.EOF && scalar:
				// A number (say) that ends the input; the next call
				// reports that the array ends early.
				return emit(s.end)
			case err == io.EOF:
				return nil, 0, a.fail(s.offset(s.end), fmt.Sprintf("the array ends early, inside element %d", a.n+1), io.ErrUnexpectedEOF)
			case err == ErrTooLarge:
				return nil, s.offset(s.start), a.tooLarge()
			}
			return nil, s.offset(s.end), err
		}
	}
}

func (a *Array) tooLarge() error {
	a.state = arrayCorrupted
	a.s.err = ErrTooLarge
	return ErrTooLarge
}

// scanScalar scans a number or literal (or whatever else is not an object,
// array or string): it ends before whitespace, ',' or ']'.
func (a *Array) scanScalar() (int, bool) {
	s := &a.s
	for i := s.pos; i < s.end; i++ {
		switch s.buf[i] {
		case ',', ']', ' ', '\t', '\n', '\r':
			s.pos = i
			return i, true
		}
	}
	s.pos = s.end
	return 0, false
}

// scanValue scans an object, array or string, resuming where the last call
// stopped: it ends after the bracket or quote that closes it.
func (a *Array) scanValue() (int, bool) {
	s := &a.s
	b := s.buf[:s.end]
	i := s.pos
	for i < len(b) {
		if a.inStr {
			if a.esc {
				a.esc = false
				i++
				continue
			}
			j := indexQuoteOrEscape(b[i:])
			if j < 0 {
				i = len(b)
				break
			}
			i += j
			if b[i] == '\\' {
				a.esc = true
				i++
				continue
			}
			a.inStr = false
			i++
			if a.depth == 0 {
				s.pos = i
				return i, true
			}
			continue
		}
		switch b[i] {
		case '"':
			a.inStr = true
		case '{', '[':
			a.depth++
		case '}', ']':
			a.depth--
			if a.depth <= 0 {
				s.pos = i + 1
				return i + 1, true
			}
		}
		i++
	}
	s.pos = i
	return 0, false
}

// indexQuoteOrEscape returns the index of the first '"' or '\\' in b, or -1.
func indexQuoteOrEscape(b []byte) int {
	for i, c := range b {
		if c == '"' || c == '\\' {
			return i
		}
	}
	return -1
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
