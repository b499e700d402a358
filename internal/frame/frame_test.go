package frame

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// chunked returns a reader of s that returns at most n bytes a read.
func chunked(s string, n int) io.Reader {
	return &chunkReader{data: []byte(s), n: max(n, 1)}
}

type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), c.n, len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// sseAll reads every event of r.
func sseAll(r io.Reader, limit int) ([]Event, bool, error) {
	p := NewSSE(r, limit)
	var evs []Event
	for {
		ev, err := p.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return evs, p.Done(), err
		}
		ev.Data = bytes.Clone(ev.Data)
		evs = append(evs, ev)
	}
}

func ev(id, typ, data string) Event { return Event{ID: id, Type: typ, Data: []byte(data)} }

func TestSSE(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Event
		done bool
	}{
		{"one event", "data: {\"a\":1}\n\n", []Event{ev("", "", `{"a":1}`)}, false},
		{"data lines joined with LF", "data: {\"a\":\ndata: 1}\n\n", []Event{ev("", "", "{\"a\":\n1}")}, false},
		{"no space after the colon", "data:1\n\n", []Event{ev("", "", "1")}, false},
		{"only one space is dropped", "data:  1\n\n", []Event{ev("", "", " 1")}, false},
		{"CRLF", "data: 1\r\n\r\ndata: 2\r\n\r\n", []Event{ev("", "", "1"), ev("", "", "2")}, false},
		{"CR", "data: 1\r\rdata: 2\r\r", []Event{ev("", "", "1"), ev("", "", "2")}, false},
		{"mixed line ends", "data: 1\r\n\ndata: 2\r\rdata: 3\n\r\n", []Event{ev("", "", "1"), ev("", "", "2"), ev("", "", "3")}, false},
		{"BOM", "\xEF\xBB\xBFdata: 1\n\n", []Event{ev("", "", "1")}, false},
		{"only one BOM", "\xEF\xBB\xBF\xEF\xBB\xBFdata: 1\n\ndata: 2\n\n", []Event{ev("", "", "2")}, false},
		{"comments", ": hello\n:\ndata: 1\n: between\n\n", []Event{ev("", "", "1")}, false},
		{"id and event", "id: 7\nevent: tick\ndata: 1\n\n", []Event{ev("7", "tick", "1")}, false},
		{"id carries over", "id: 7\ndata: 1\n\ndata: 2\n\nid\ndata: 3\n\n", []Event{ev("7", "", "1"), ev("7", "", "2"), ev("", "", "3")}, false},
		{"id set by a skipped event", "id: 5\n\ndata: 1\n\n", []Event{ev("5", "", "1")}, false},
		{"id with NUL ignored", "id: 1\ndata: a\n\nid: x\x00y\ndata: b\n\n", []Event{ev("1", "", "a"), ev("1", "", "b")}, false},
		{"event type resets", "event: a\ndata: 1\n\ndata: 2\n\n", []Event{ev("", "a", "1"), ev("", "", "2")}, false},
		{"event without data skipped", "event: ping\n\ndata: 1\n\n", []Event{ev("", "", "1")}, false},
		{"empty data skipped", "data:\n\ndata: 1\n\n", []Event{ev("", "", "1")}, false},
		{"two empty data lines are a LF", "data\ndata\n\n", []Event{ev("", "", "\n")}, false},
		{"field without colon", "data\n\n", nil, false},
		{"unknown fields ignored", "foo: bar\ndata: 1\nDATA: 2\n\n", []Event{ev("", "", "1")}, false},
		{"incomplete event discarded", "data: 1\n\ndata: 2\n", []Event{ev("", "", "1")}, false},
		{"last line without end discarded", "data: 1\n\ndata: 2", []Event{ev("", "", "1")}, false},
		{"DONE ends the stream", "data: 1\n\ndata: [DONE]\n\ndata: 2\n\n", []Event{ev("", "", "1")}, true},
		{"DONE with other fields", "id: 9\nevent: end\ndata: [DONE]\n\n", nil, true},
		{"[DONE] inside JSON is data", "data: \"[DONE]\"\n\n", []Event{ev("", "", `"[DONE]"`)}, false},
		{"empty input", "", nil, false},
		{"colon in value", "data: a:b\n\n", []Event{ev("", "", "a:b")}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 7, 1 << 20} {
				got, done, err := sseAll(chunked(tc.in, n), 1<<20)
				if err != nil {
					t.Fatalf("chunks of %d: %v", n, err)
				}
				for i := range got {
					got[i].Offset = 0
				}
				if !eventsEqual(got, tc.want) || done != tc.done {
					t.Fatalf("chunks of %d:\n got %+v, done %v\nwant %+v, done %v", n, got, done, tc.want, tc.done)
				}
			}
		})
	}
}

func eventsEqual(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Type != b[i].Type || !bytes.Equal(a[i].Data, b[i].Data) || a[i].Retry != b[i].Retry {
			return false
		}
	}
	return true
}

func TestSSERetry(t *testing.T) {
	p := NewSSE(strings.NewReader("retry: 1500\n\ndata: 1\n\nretry: x\ndata: 2\n\nretry: 99999999999999999999\ndata: 3\n\nretry:\ndata: 4\n\n"), 1<<10)
	var got []time.Duration
	for {
		e, err := p.Next()
		if err != nil {
			break
		}
		got = append(got, e.Retry)
	}
	huge := time.Duration(1<<63-1) / time.Millisecond * time.Millisecond
	want := []time.Duration{1500 * time.Millisecond, 0, huge, 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Retry = %v, want %v", got, want)
	}
	if rt, ok := p.ReconnectionTime(); !ok || rt != huge {
		t.Errorf("ReconnectionTime = %v, %v", rt, ok)
	}
}

func TestSSEOffsets(t *testing.T) {
	in := ": c\ndata: 1\n\nid: 2\ndata: 2\n\n"
	evs, _, err := sseAll(strings.NewReader(in), 100)
	if err != nil || len(evs) != 2 {
		t.Fatal(evs, err)
	}
	if evs[0].Offset != 4 || evs[1].Offset != int64(strings.Index(in, "id:")) {
		t.Errorf("offsets %d, %d", evs[0].Offset, evs[1].Offset)
	}
}

func TestSSEResetKeepsIDAndRetry(t *testing.T) {
	p := NewSSE(strings.NewReader("retry: 20\nid: 3\ndata: 1\n\nid: 4\ndata: 2\n"), 100)
	if _, err := p.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Next(); err != io.EOF {
		t.Fatalf("Next = %v, want EOF: the second event is incomplete", err)
	}
	if p.LastEventID() != "3" {
		t.Fatalf("LastEventID = %q, want 3 (event 4 was not dispatched)", p.LastEventID())
	}
	// A heartbeat (a comment and a blank line) dispatches nothing and
	// keeps the ID, and so does an event without an id field: the ID
	// buffer starts as the last event ID, as in browsers (issue 22).
	p.Reset(strings.NewReader("\xEF\xBB\xBF: ping\n\ndata: 2\n\nid: 5\ndata: 3\n\n"))
	e, err := p.Next()
	if err != nil || string(e.Data) != "2" || e.ID != "3" || p.LastEventID() != "3" {
		t.Fatalf("after Reset: %+v, %v, LastEventID %q; want data 2 with the ID kept (3)", e, err, p.LastEventID())
	}
	if rt, ok := p.ReconnectionTime(); !ok || rt != 20*time.Millisecond {
		t.Errorf("ReconnectionTime after Reset = %v, %v", rt, ok)
	}
	e, _ = p.Next()
	if e.ID != "5" || p.LastEventID() != "5" {
		t.Errorf("event %+v, LastEventID %q", e, p.LastEventID())
	}
}

func TestSSELimits(t *testing.T) {
	big := strings.Repeat("x", 200)
	for _, in := range []string{
		"data: " + big + "\n\n",
		"data: " + big[:60] + "\ndata: " + big[:60] + "\n\n",
		":" + big + "\n",
		"data: " + big, // no line end yet: too large before it arrives
	} {
		_, _, err := sseAll(chunked(in, 5), 100)
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%.20q...: err = %v, want ErrTooLarge", in, err)
		}
	}
	if evs, _, err := sseAll(strings.NewReader("data: "+big[:100]+"\n\n"), 100); err != nil || len(evs) != 1 {
		t.Errorf("data at the limit: %d events, %v", len(evs), err)
	}
}

func TestSSEReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n"), iotest.ErrReader(boom))
	p := NewSSE(r, 100)
	if e, err := p.Next(); err != nil || string(e.Data) != "1" {
		t.Fatal(e, err)
	}
	for range 2 {
		if _, err := p.Next(); err != boom {
			t.Fatalf("Next = %v, want the read error as it is", err)
		}
	}
}

// A record is framed as soon as its last byte is read: the reader never
// asks for more input than the record needs.
func TestNoReadAhead(t *testing.T) {
	for _, tc := range []struct {
		name string
		next func(r io.Reader) (string, error)
		in   string
		want string
	}{
		{"sse", func(r io.Reader) (string, error) { e, err := NewSSE(r, 100).Next(); return string(e.Data), err }, "data: 1\r\r", "1"},
		{"lines", func(r io.Reader) (string, error) { b, _, err := NewLines(r, 100).Next(); return string(b), err }, "1\n", "1"},
		{"seq", func(r io.Reader) (string, error) { b, _, err := NewSeq(r, 100).Next(); return string(b), err }, "\x1e1\n\x1e", "1"},
		{"array", func(r io.Reader) (string, error) { b, _, err := NewArray(r, 100).Next(); return string(b), err }, "[{\"a\":1}", `{"a":1}`},
		{"array of numbers", func(r io.Reader) (string, error) { b, _, err := NewArray(r, 100).Next(); return string(b), err }, "[12,", "12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The reader fails the test if read past the input.
			got, err := tc.next(&stallReader{t: t, data: []byte(tc.in)})
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

type stallReader struct {
	t    *testing.T
	data []byte
}

func (s *stallReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		s.t.Fatal("read past what the record needs: a server still sending would stall it")
	}
	n := copy(p, s.data[:1])
	s.data = s.data[n:]
	return n, nil
}

func linesAll(d interface{ Next() ([]byte, int64, error) }) ([]string, error) {
	var out []string
	for {
		b, _, err := d.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		out = append(out, string(b))
	}
}

func TestLines(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"{\"a\":1}\n{\"a\":2}\n", []string{`{"a":1}`, `{"a":2}`}},
		{"1\r\n2\r\n", []string{"1", "2"}},
		{"1\n\n  \n\t2", []string{"1", "2"}},
		{"\xEF\xBB\xBF1\n2\n", []string{"1", "2"}},
		{"", nil},
		{"\n\n", nil},
		{"  {\"a\": 1}  \n", []string{`{"a": 1}`}},
	}
	for _, tc := range tests {
		for _, n := range []int{1, 3, 1 << 20} {
			got, err := linesAll(NewLines(chunked(tc.in, n), 100))
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NewLines(%q), chunks of %d = %q, %v; want %q", tc.in, n, got, err, tc.want)
			}
		}
	}
}

func TestSeq(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"\x1e{\"a\":1}\n\x1e{\"a\":2}\n", []string{`{"a":1}`, `{"a":2}`}},
		{"\x1e1\n\x1e\n\x1e2", []string{"1", "2"}},
		{"1\n\x1e2\n", []string{"1", "2"}},
		{"\x1e{\"a\":\n1}\n", []string{"{\"a\":\n1}"}},
		{"\x1e\x1e \x1e[1,\"\\\"]\"]\n\x1e\"s\"\x1etrue\x1enull", []string{`[1,"\"]"]`, `"s"`, "true", "null"}},
		{"\xEF\xBB\xBF\x1e12.5e3\n", []string{"12.5e3"}},
	}
	for _, tc := range tests {
		for _, n := range []int{1, 2, 1 << 20} {
			got, err := linesAll(NewSeq(chunked(tc.in, n), 100))
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NewSeq(%q), chunks of %d = %q, %v; want %q", tc.in, n, got, err, tc.want)
			}
		}
	}
}

func TestSeqSyntaxErrors(t *testing.T) {
	tests := []struct {
		in     string
		n      int
		msg    string
		offset int64
		eof    bool
	}{
		{"\x1e{\"a\":1\x1e{\"b\":2}\n", 0, "record 1 is cut short by an RS", 7, false},
		{"\x1e1\n\x1e\"ab\x1e\"\n", 1, "record 2 is cut short by an RS", 7, false},
		{"\x1e1 2\n", 1, "after record 1: want whitespace or RS, found '2'", 3, false},
		{"\x1e{\"a\":1}}\n", 1, "after record 1: want whitespace or RS, found '}'", 8, false},
		{"\x1e{\"a\":", 0, "the input ends inside record 1", 6, true},
	}
	for _, tc := range tests {
		for _, n := range []int{1, 1 << 20} {
			q := NewSeq(chunked(tc.in, n), 100)
			got, err := linesAll(q)
			var se *SyntaxError
			if !errors.As(err, &se) || se.Msg != tc.msg || se.Offset != tc.offset || len(got) != tc.n || errors.Is(err, io.ErrUnexpectedEOF) != tc.eof {
				t.Errorf("%q, chunks of %d: %q, err %v (%#v); want %d records, %q at %d", tc.in, n, got, err, se, tc.n, tc.msg, tc.offset)
				continue
			}
			if _, _, again := q.Next(); again != err {
				t.Errorf("%q: Next after the error = %v, want the same error", tc.in, again)
			}
		}
	}
}

func TestLinesLimitAndOffsets(t *testing.T) {
	d := NewLines(strings.NewReader("12\n  345\n"+strings.Repeat("x", 50)+"\n6\n"), 10)
	var offs []int64
	for {
		_, off, err := d.Next()
		if err != nil {
			if !errors.Is(err, ErrTooLarge) || off != 9 {
				t.Errorf("err = %v at %d, want ErrTooLarge at 9", err, off)
			}
			break
		}
		offs = append(offs, off)
	}
	if !reflect.DeepEqual(offs, []int64{0, 5}) {
		t.Errorf("offsets %v, want [0 5]", offs)
	}
	// A line over the limit fails before its end arrives.
	endless := io.MultiReader(strings.NewReader(strings.Repeat("y", 1<<20)), &stallReader{t: t})
	if _, _, err := NewLines(endless, 100).Next(); !errors.Is(err, ErrTooLarge) {
		t.Errorf("endless line: %v", err)
	}
}

func arrayAll(a *Array) ([]string, error) {
	var out []string
	for {
		b, _, err := a.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		out = append(out, string(b))
	}
}

func TestArray(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`[]`, nil},
		{" [ ] \n", nil},
		{`[1,2,3]`, []string{"1", "2", "3"}},
		{`[{"a":"]}\""},[1,[2]],"x\\",null,true,-1.5e3]`, []string{`{"a":"]}\""}`, `[1,[2]]`, `"x\\"`, "null", "true", "-1.5e3"}},
		{"\xEF\xBB\xBF[ {\"a\" : 1} ,\n {} ]", []string{`{"a" : 1}`, `{}`}},
		{`[{"a":{"b":[{"c":"}"}]}}]`, []string{`{"a":{"b":[{"c":"}"}]}}`}},
	}
	for _, tc := range tests {
		for _, n := range []int{1, 2, 5, 1 << 20} {
			got, err := arrayAll(NewArray(chunked(tc.in, n), 100))
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("NewArray(%q), chunks of %d = %q, %v; want %q", tc.in, n, got, err, tc.want)
			}
		}
	}
}

func TestArraySyntaxErrors(t *testing.T) {
	tests := []struct {
		in     string
		n      int // elements before the error
		msg    string
		offset int64
		eof    bool
	}{
		{``, 0, "the body is empty, not a JSON array", 0, true},
		{`{"a":1}`, 0, `not a JSON array: the body starts with '{'`, 0, false},
		{`[1,]`, 1, `a ',' after element 1 is followed by ']'`, 3, false},
		{`[1 2]`, 1, `after element 1: want ',' or ']', found '2'`, 3, false},
		{`[1]x`, 1, `'x' after the end of the array`, 3, false},
		{`[1,2`, 2, "the array ends early, after 2 elements", 4, true},
		{`[{"a":1}`, 1, "the array ends early, after 1 elements", 8, true},
		{`[{"a":"1}]`, 0, "the array ends early, inside element 1", 10, true},
		{"[1]\n[2]", 1, `'[' after the end of the array`, 4, false},
	}
	for _, tc := range tests {
		a := NewArray(strings.NewReader(tc.in), 100)
		got, err := arrayAll(a)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Msg != tc.msg || se.Offset != tc.offset || len(got) != tc.n || errors.Is(err, io.ErrUnexpectedEOF) != tc.eof {
			t.Errorf("%q: %d elements, err %v (%#v); want %d, %q at %d", tc.in, len(got), err, se, tc.n, tc.msg, tc.offset)
			continue
		}
		if _, _, again := a.Next(); again != err {
			t.Errorf("%q: Next after the error = %v, want the same error", tc.in, again)
		}
	}
}

func TestArrayLimit(t *testing.T) {
	in := `[1,"` + strings.Repeat("x", 200) + `",2]`
	a := NewArray(chunked(in, 7), 100)
	if b, _, err := a.Next(); err != nil || string(b) != "1" {
		t.Fatal(b, err)
	}
	if _, off, err := a.Next(); !errors.Is(err, ErrTooLarge) || off != 3 {
		t.Errorf("err = %v at %d, want ErrTooLarge at 3", err, off)
	}
	// Elements far larger than the buffer, each within the limit.
	var b strings.Builder
	b.WriteString("[")
	for i := range 5 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"s":"` + strings.Repeat("z", 100<<10) + `"}`)
	}
	b.WriteString("]")
	got, err := arrayAll(NewArray(strings.NewReader(b.String()), 200<<10))
	if err != nil || len(got) != 5 || len(got[4]) != 100<<10+8 {
		t.Errorf("%d big elements, %v", len(got), err)
	}
}

// The buffer stays small however long the stream is.
func TestBufferStaysSmall(t *testing.T) {
	line := `{"id":1,"name":"abcdefghij"}` + "\n"
	r := io.LimitReader(&repeatReader{s: line}, 64<<20)
	d := NewLines(r, 1<<20)
	n := 0
	for {
		if _, _, err := d.Next(); err != nil {
			break
		}
		n++
	}
	if n != (64<<20+len(line)-1)/len(line) || len(d.s.buf) != readSize {
		t.Errorf("%d records, buffer %d bytes", n, len(d.s.buf))
	}
}

// repeatReader repeats s without end.
type repeatReader struct {
	s   string
	off int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.s[r.off:])
		n += c
		r.off = (r.off + c) % len(r.s)
	}
	return n, nil
}
