package frame

import (
	"bytes"
	"io"
	"math"
	"time"
)

// SSE reads the events of a text/event-stream, following the WHATWG rules
// for interpreting an event stream:
//
//   - lines end with CRLF, LF or CR; one leading byte order mark is skipped;
//   - an empty line dispatches the event; a line starting with ':' is a
//     comment; otherwise the field name runs to the first ':' (or the end of
//     the line), and one space after the ':' is not part of the value;
//   - "data" appends its value and a LF to the data buffer; "event" sets the
//     event type; "id" sets the last event ID buffer, unless the value
//     contains a NUL; "retry" sets the reconnection time when its value is
//     ASCII digits only (milliseconds); other fields are ignored;
//   - on dispatch the last event ID becomes the buffer's value (also for an
//     event that is skipped), and an event whose data buffer is empty is
//     skipped; otherwise its data is the buffer without its last LF;
//   - an event that the input ends in the middle of is discarded.
//
// Beyond those rules, an event whose data is empty (a lone "data:" line) is
// skipped too, as it holds no JSON to decode, and an event whose data is
// exactly "[DONE]" ends the stream (the convention of streaming completion
// APIs): Next returns io.EOF and Done reports true.
type SSE struct {
	s      source
	limit  int
	skipLF bool   // the last line ended with CR: a LF right after it is part of that line end
	data   []byte // the data buffer
	typ    []byte // the event type buffer
	idBuf  string // the last event ID buffer
	lastID string // the last event ID string, set on dispatch
	retry  time.Duration
	hasRT  bool          // a retry field has set retry
	newRT  time.Duration // a retry field since the last event returned
	typStr string        // the last event type returned, to reuse its string
	start  int64         // input offset of the first line of the event; -1 before it
	done   bool
}

// Event is one event of an event stream.
type Event struct {
	ID     string        // the last event ID when the event was dispatched
	Type   string        // the "event" field; "" when absent
	Data   []byte        // the data lines joined with LF; valid until the next call of Next
	Retry  time.Duration // the last "retry" field since the previous event returned; 0 when none
	Offset int64         // input offset of the event's first line that is not a comment
}

// NewSSE returns a reader of the events of r. A line longer than limit
// bytes (beyond its field name), or an event whose data is longer, is
// ErrTooLarge.
func NewSSE(r io.Reader, limit int) *SSE {
	p := &SSE{limit: max(limit, 1), start: -1}
	p.s.init(r, p.limit+sseLineSlack)
	return p
}

// sseLineSlack is how much longer than the limit a line may be: room for a
// field name before a value at the limit.
const sseLineSlack = 64

// Reset makes p read the events of a new connection, r, as an event source
// does when it reconnects: the parsing state starts over, while the last
// event ID and the reconnection time are kept. The last event ID buffer
// starts as the last event ID, as in browsers' EventSource (the standard's
// buffer belongs to the event source, not to one connection): a blank line
// on the new connection before any id field (after a ": ping" heartbeat)
// dispatches nothing and leaves the last event ID as it was; only an id
// field the new connection sends changes it. The buffers are reused.
func (p *SSE) Reset(r io.Reader) {
	p.s.init(r, p.limit+sseLineSlack)
	p.skipLF, p.done = false, false
	p.data, p.typ = p.data[:0], p.typ[:0]
	p.idBuf, p.newRT, p.start = p.lastID, 0, -1
}

// LastEventID returns the last event ID: the one to send as Last-Event-ID
// when reconnecting.
func (p *SSE) LastEventID() string { return p.lastID }

// ReconnectionTime returns the reconnection time a retry field set, and
// whether one did.
func (p *SSE) ReconnectionTime() (time.Duration, bool) { return p.retry, p.hasRT }

// Done reports whether a "[DONE]" event ended the stream.
func (p *SSE) Done() bool { return p.done }

// Next returns the next event. At the end of the input, or after a
// "[DONE]" event, it returns io.EOF.
func (p *SSE) Next() (Event, error) {
	if p.done {
		return Event{}, io.EOF
	}
	if p.s.stuck != nil {
		return Event{}, p.s.stuck
	}
	p.s.skipBOM()
	for {
		line, off, err := p.line()
		if err != nil {
			if err == ErrTooLarge {
				p.s.stick(err)
			}
			return Event{}, err
		}
		if len(line) == 0 {
			ev, ok := p.dispatch()
			if p.done {
				return Event{}, io.EOF
			}
			if ok {
				return ev, nil
			}
			continue
		}
		if err := p.field(line, off); err != nil {
			return Event{}, p.s.stick(err)
		}
	}
}

// line returns the next line without its end, and its input offset. A line
// the input ends in the middle of is not returned.
func (p *SSE) line() ([]byte, int64, error) {
	s := &p.s
	for {
		if p.skipLF && s.pos < s.end {
			if s.buf[s.pos] == '\n' {
				s.pos++
				s.start = s.pos
			}
			p.skipLF = false
		}
		for i := s.pos; i < s.end; i++ {
			if c := s.buf[i]; c == '\n' || c == '\r' {
				line, off := s.buf[s.start:i], s.offset(s.start)
				if len(line) > p.limit+sseLineSlack {
					return nil, off, ErrTooLarge
				}
				s.pos, s.start = i+1, i+1
				p.skipLF = c == '\r'
				return line, off, nil
			}
		}
		s.pos = s.end
		if s.end-s.start > p.limit+sseLineSlack {
			return nil, s.offset(s.start), ErrTooLarge
		}
		if err := s.fill(); err != nil {
			return nil, s.offset(s.start), err
		}
	}
}

// field processes one line that is not empty, found at input offset off.
func (p *SSE) field(line []byte, off int64) error {
	if line[0] == ':' {
		return nil // a comment
	}
	if p.start < 0 {
		p.start = off
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(p.data)+len(value) > p.limit {
			return ErrTooLarge
		}
		p.data = append(p.data, value...)
		p.data = append(p.data, '\n')
	case "event":
		p.typ = append(p.typ[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != p.idBuf {
			p.idBuf = string(value)
		}
	case "retry":
		if ms, ok := parseMillis(value); ok {
			p.retry, p.hasRT, p.newRT = ms, true, ms
		}
	}
	return nil
}

// dispatch ends the event being read: it returns it, or false when it is
// skipped.
func (p *SSE) dispatch() (Event, bool) {
	p.lastID = p.idBuf
	start := p.start
	p.start = -1
	if len(p.data) == 0 {
		p.typ = p.typ[:0]
		return Event{}, false
	}
	data := p.data[:len(p.data)-1] // without the last LF
	p.data = p.data[:0]            // the next event overwrites data: valid until the next call
	typ := p.typ
	p.typ = p.typ[:0]
	if len(data) == 0 {
		return Event{}, false
	}
	if string(data) == "[DONE]" {
		p.done = true
		return Event{}, false
	}
	if string(typ) != p.typStr {
		p.typStr = string(typ)
	}
	ev := Event{ID: p.lastID, Type: p.typStr, Data: data, Retry: p.newRT, Offset: start}
	p.newRT = 0
	return ev, true
}

// parseMillis parses a retry value: ASCII digits only, at least one, in
// milliseconds. A value too large for a Duration is the largest one.
func parseMillis(v []byte) (time.Duration, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const maxMS = math.MaxInt64 / int64(time.Millisecond)
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if ms <= maxMS {
			ms = ms*10 + int64(c-'0')
		}
	}
	if ms > maxMS {
		ms = maxMS
	}
	return time.Duration(ms) * time.Millisecond, true
}
