// Package frame splits a byte stream into records, one at a time, for kit's
// typed streams:
//
//   - [SSE]: the events of a text/event-stream, by the WHATWG HTML
//     standard's rules for parsing server-sent events (section 9.2.6);
//   - [Lines]: the lines of NDJSON and JSON Lines;
//   - [Seq]: the RS-separated records of an application/json-seq (RFC 7464);
//   - [Array]: the elements of one top-level JSON array.
//
// It does not decode JSON: each reader hands over a record's bytes (for an
// event, its data), which the caller decodes. The array and json-seq
// readers check the syntax around the values (brackets, commas and what
// follows the array; RS and whitespace between records) and find where
// each value ends, tracking strings and nesting; the syntax of a value
// itself is left to the caller's decoder.
//
// # Memory
//
// A reader holds the record being framed and one read's worth of input,
// never the stream: its buffer starts at 32 KiB and grows only for a record
// larger than that, up to the limit given to its constructor. A record (an
// NDJSON line, a json-seq value, an array element, an event's data, or any
// one line of an event stream) longer than the limit is [ErrTooLarge],
// reported as soon as the limit is passed, without reading the rest of it;
// the reader then returns it again if called.
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
	"strings"
)

// ErrTooLarge is returned for a record longer than the reader's limit.
var ErrTooLarge = errors.New("record too large")

// SyntaxError reports input that cannot be framed: an array body that is
// not one JSON array or that ends inside it, or a json-seq record cut
// short or followed by more than whitespace.
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
	stuck   error // an error that ended the framing (ErrTooLarge, a *SyntaxError); returned again
}

func (s *source) init(r io.Reader, max int) {
	s.r, s.max = r, max
	if s.buf == nil {
		s.buf = make([]byte, readSize)
	}
	s.start, s.pos, s.end, s.base, s.err, s.bomDone, s.stuck = 0, 0, 0, 0, nil, false, nil
}

// stick ends the framing with err: later calls return it again.
func (s *source) stick(err error) error {
	s.stuck = err
	s.err = err
	return err
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

// Lines frames the lines of NDJSON and JSON Lines.
type Lines struct {
	s     source
	limit int
}

// NewLines returns a reader of the lines of r (NDJSON, JSON Lines): a line
// ends with LF (a CR before it is whitespace), the last one may end with
// the input, and lines of whitespace only are skipped. A line longer than
// limit bytes is ErrTooLarge.
func NewLines(r io.Reader, limit int) *Lines {
	d := &Lines{limit: max(limit, 1)}
	d.s.init(r, d.limit+1)
	return d
}

// Next returns the next line without the whitespace around it, and its
// offset in the input. The bytes are valid until the next call. At the end
// of the input it returns io.EOF.
func (d *Lines) Next() ([]byte, int64, error) {
	s := &d.s
	if s.stuck != nil {
		return nil, s.offset(s.start), s.stuck
	}
	s.skipBOM()
	for {
		if i := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); i >= 0 {
			j := s.pos + i
			raw, off := s.buf[s.start:j], s.offset(s.start)
			s.start, s.pos = j+1, j+1
			if len(raw) > d.limit {
				return nil, off, s.stick(ErrTooLarge)
			}
			if rec, cut := trimSpace(raw); len(rec) > 0 {
				return rec, off + int64(cut), nil
			}
			continue
		}
		s.pos = s.end
		if s.end-s.start > d.limit {
			return nil, s.offset(s.start), s.stick(ErrTooLarge)
		}
		if err := s.fill(); err != nil {
			raw, off := s.buf[s.start:s.end], s.offset(s.start)
			s.start = s.end
			if err == io.EOF {
				if rec, cut := trimSpace(raw); len(rec) > 0 && len(raw) <= d.limit {
					return rec, off + int64(cut), nil
				}
			}
			return nil, s.offset(s.end), err
		}
	}
}

// valueScan finds where a JSON value ends, one read at a time, tracking
// strings and nesting. It does not check the value's syntax.
type valueScan struct {
	scalar bool // a number, literal or anything else not an object, array or string
	depth  int
	inStr  bool
	esc    bool
}

// rs is the record separator of application/json-seq.
const rs = 0x1E

// start begins the scan of a value whose first byte is c.
func (v *valueScan) start(c byte) {
	*v = valueScan{scalar: c != '{' && c != '[' && c != '"'}
}

// scan scans b from i, and returns the index just past the value's end and
// true, or len(b) and false when the value goes on past b. A scalar ends
// before whitespace, or a byte of stops; an object, array or string after
// its closing bracket or quote. With seq set an RS byte ends any value
// (returned as the end, and cut reports it).
func (v *valueScan) scan(b []byte, i int, stops string, seq bool) (end int, done, cut bool) {
	if v.scalar {
		for ; i < len(b); i++ {
			c := b[i]
			if isSpace(c) || strings.IndexByte(stops, c) >= 0 || (seq && c == rs) {
				return i, true, false
			}
		}
		return len(b), false, false
	}
	for i < len(b) {
		if v.inStr {
			if v.esc {
				v.esc = false
				i++
			}
			for i < len(b) && !stringSpecial[b[i]] {
				i++
			}
			if i == len(b) {
				break
			}
			switch b[i] {
			case '\\':
				v.esc = true
				i++
				continue
			case rs:
				if seq {
					return i, true, true
				}
				i++
				continue
			}
			v.inStr = false
			i++
			if v.depth == 0 {
				return i, true, false
			}
			continue
		}
		for i < len(b) && !structural[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		switch b[i] {
		case '"':
			v.inStr = true
		case '{', '[':
			v.depth++
		case '}', ']':
			v.depth--
			if v.depth <= 0 {
				return i + 1, true, false
			}
		case rs:
			if seq {
				return i, true, true
			}
		}
		i++
	}
	return len(b), false, false
}

// The bytes scan stops at, inside and outside strings (RS for json-seq).
var stringSpecial, structural [256]bool

func init() {
	stringSpecial['"'], stringSpecial['\\'], stringSpecial[rs] = true, true, true
	for _, c := range "\"{}[]\x1e" {
		structural[c] = true
	}
}

// Seq frames the records of an application/json-seq (RFC 7464).
type Seq struct {
	s     source
	limit int
	after bool // a record's value has been framed; whitespace or RS must follow
	n     int  // records framed
	v     valueScan
}

// NewSeq returns a reader of the records of an application/json-seq (RFC
// 7464): each record is an RS byte (0x1E), one JSON value and a LF. A
// record is framed as soon as its value is complete, without waiting for
// the LF or the next RS. Empty records (RS RS) are skipped, and a value
// before the first RS is a record too. A record cut short by an RS, or by
// the end of the input, or followed by anything but whitespace before the
// next RS, is a *SyntaxError. A record longer than limit bytes is
// ErrTooLarge.
func NewSeq(r io.Reader, limit int) *Seq {
	q := &Seq{limit: max(limit, 1)}
	q.s.init(r, q.limit+1)
	return q
}

// Next returns the bytes of the next record's value and their offset in
// the input; they are valid until the next call. At the end of the input it
// returns io.EOF.
func (q *Seq) Next() ([]byte, int64, error) {
	s := &q.s
	if s.stuck != nil {
		return nil, s.offset(s.start), s.stuck
	}
	s.skipBOM()
	for {
		// Between records: whitespace and RS bytes.
		for s.pos < s.end {
			c := s.buf[s.pos]
			if !isSpace(c) && c != rs {
				break
			}
			if c == rs {
				q.after = false
			}
			s.pos++
		}
		s.start = s.pos
		if s.pos == s.end {
			if err := s.fill(); err != nil {
				return nil, s.offset(s.pos), err
			}
			continue
		}
		if q.after {
			return nil, 0, q.fail(s.offset(s.pos), fmt.Sprintf("after record %d: want whitespace or RS, found %s", q.n, quoteByte(s.buf[s.pos])), nil)
		}
		q.v.start(s.buf[s.pos])
		for {
			end, done, cut := q.v.scan(s.buf[:s.end], s.pos, "", true)
			s.pos = end
			if done && !cut {
				rec, off := s.buf[s.start:end], s.offset(s.start)
				s.start = end
				q.after = true
				q.n++
				if len(rec) > q.limit {
					return nil, off, s.stick(ErrTooLarge)
				}
				return rec, off, nil
			}
			if cut {
				return nil, 0, q.fail(s.offset(end), fmt.Sprintf("record %d is cut short by an RS", q.n+1), nil)
			}
			if s.end-s.start > q.limit {
				return nil, s.offset(s.start), s.stick(ErrTooLarge)
			}
			if err := s.fill(); err != nil {
				if err == io.EOF && q.v.scalar {
					break // the value ends with the input: framed above next time round
				}
				if err == io.EOF {
					return nil, 0, q.fail(s.offset(s.end), fmt.Sprintf("the input ends inside record %d", q.n+1), io.ErrUnexpectedEOF)
				}
				if err == ErrTooLarge {
					return nil, s.offset(s.start), s.stick(err)
				}
				return nil, s.offset(s.end), err
			}
		}
		// A scalar that ends the input.
		rec, off := s.buf[s.start:s.end], s.offset(s.start)
		s.pos, s.start = s.end, s.end
		q.after = true
		q.n++
		if len(rec) > q.limit {
			return nil, off, s.stick(ErrTooLarge)
		}
		return rec, off, nil
	}
}

func (q *Seq) fail(off int64, msg string, err error) error {
	return q.s.stick(&SyntaxError{Offset: off, Msg: msg, Err: err})
}

// Array frames the elements of one top-level JSON array.
type Array struct {
	s     source
	limit int
	state uint8
	n     int // elements framed
	v     valueScan
}

const (
	arrayBefore  = iota // before the '['
	arrayFirst          // after the '[': an element or ']'
	arrayElement        // after a ',': an element
	arrayAfter          // after an element: ',' or ']'
	arrayDone           // after the ']': whitespace to the end
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
		if s.stuck != nil {
			return nil, s.offset(s.pos), s.stuck
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
	return a.s.stick(&SyntaxError{Offset: off, Msg: msg, Err: err})
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
	a.v.start(s.buf[s.pos])
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
		end, done, _ := a.v.scan(s.buf[:s.end], s.pos, ",]", false)
		s.pos = end
		if done {
			return emit(end)
		}
		if s.end-s.start > a.limit {
			return nil, s.offset(s.start), a.tooLarge()
		}
		if err := s.fill(); err != nil {
			switch {
			case err == io.EOF && a.v.scalar:
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

func (a *Array) tooLarge() error { return a.s.stick(ErrTooLarge) }

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}
