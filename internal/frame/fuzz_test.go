package frame

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// The fuzz targets compare each reader with a reference written straight
// from its specification over the whole input at once, and feed the input
// in reads of every size from 1 byte up (chunk), so that a record, a line
// end (a CR at the end of one read and its LF at the start of the next) or
// a byte order mark split across reads is framed as when it arrives in one
// piece. Seed corpora are in testdata/fuzz/<Name>/.

// FuzzSSE checks the event stream parser against refSSE: the same events,
// IDs, types, retries and [DONE], whatever the reads; with a small limit,
// the events before ErrTooLarge are a prefix of the reference's, and the
// input does have a line or an event's data over the limit.
func FuzzSSE(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8, limit uint8) {
		want, wantDone, wantID := refSSE(string(in))
		p := NewSSE(chunked(string(in), int(chunk)), 1<<20)
		got, err := collectSSE(p)
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		if !eventsEqual(got, want) || p.Done() != wantDone {
			t.Fatalf("events differ from the reference:\n got %+v done=%v\nwant %+v done=%v", got, p.Done(), want, wantDone)
		}
		if !wantDone && p.LastEventID() != wantID {
			t.Fatalf("LastEventID %q, want %q", p.LastEventID(), wantID)
		}
		for _, e := range got {
			if e.Offset < 0 || e.Offset >= int64(len(in)) {
				t.Fatalf("offset %d outside the input", e.Offset)
			}
		}

		// A small limit: a prefix of the same events, then ErrTooLarge
		// only if something is over the limit.
		lim := int(limit) + 1
		small, err := collectSSE(NewSSE(chunked(string(in), int(chunk)), lim))
		if len(small) > len(want) || !eventsEqual(small, want[:len(small)]) {
			t.Fatalf("with limit %d: events %+v are not a prefix of %+v", lim, small, want)
		}
		switch {
		case errors.Is(err, ErrTooLarge):
			if !refOverLimit(string(in), lim) {
				t.Fatalf("ErrTooLarge with limit %d, but no line or data is over it", lim)
			}
		case err != nil:
			t.Fatalf("with limit %d: %v", lim, err)
		case len(small) != len(want):
			t.Fatalf("with limit %d: %d events, want %d", lim, len(small), len(want))
		}
	})
}

func collectSSE(p *SSE) ([]Event, error) {
	var evs []Event
	for {
		e, err := p.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		e.Data = bytes.Clone(e.Data)
		evs = append(evs, e)
	}
}

// refLines splits an event stream into its complete lines (CRLF, LF or CR),
// after one byte order mark; a last line without an end is dropped.
func refLines(in string) []string {
	in = strings.TrimPrefix(in, "\xEF\xBB\xBF")
	var lines []string
	for {
		i := strings.IndexAny(in, "\r\n")
		if i < 0 {
			return lines
		}
		lines = append(lines, in[:i])
		if strings.HasPrefix(in[i:], "\r\n") {
			i++
		}
		in = in[i+1:]
	}
}

// refSSE interprets an event stream as the WHATWG standard describes it,
// with kit's two additions (empty data skipped, [DONE] ends), returning the
// events, whether [DONE] ended it, and the last event ID.
func refSSE(in string) (evs []Event, done bool, lastID string) {
	var data, typ, idBuf string
	var retry time.Duration
	for _, line := range refLines(in) {
		if line == "" {
			lastID = idBuf
			if data == "" {
				typ = ""
				continue
			}
			d := strings.TrimSuffix(data, "\n")
			data = ""
			t := typ
			typ = ""
			if d == "" {
				continue
			}
			if d == "[DONE]" {
				return evs, true, lastID
			}
			evs = append(evs, Event{ID: lastID, Type: t, Data: []byte(d), Retry: retry})
			retry = 0
			continue
		}
		if line[0] == ':' {
			continue
		}
		name, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "data":
			data += value + "\n"
		case "event":
			typ = value
		case "id":
			if !strings.Contains(value, "\x00") {
				idBuf = value
			}
		case "retry":
			if ms, ok := parseMillis([]byte(value)); ok {
				retry = ms
			}
		}
	}
	return evs, false, lastID
}

// refOverLimit reports whether a line of the stream is longer than the
// limit allows, or an event's data (with its LFs) is.
func refOverLimit(in string, limit int) bool {
	in = strings.TrimPrefix(in, "\xEF\xBB\xBF")
	data := 0
	// Lines without an end count too: the parser fails before the end
	// arrives.
	for len(in) > 0 {
		i := strings.IndexAny(in, "\r\n")
		line := in
		if i >= 0 {
			line = in[:i]
		}
		if len(line) > limit+sseLineSlack {
			return true
		}
		if i < 0 {
			return false
		}
		switch name, value, found := strings.Cut(line, ":"); {
		case line == "":
			data = 0
		case name == "data":
			if found {
				value = strings.TrimPrefix(value, " ")
			}
			if data+len(value) > limit {
				return true
			}
			data += len(value) + 1
		}
		if strings.HasPrefix(in[i:], "\r\n") {
			i++
		}
		in = in[i+1:]
	}
	return false
}

// FuzzLines checks the NDJSON reader against a split of the whole input on
// LF, whatever the reads and limits.
func FuzzLines(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8, limit uint8) {
		var want []string
		var wantOffs []int64
		body := string(in)
		off := 0
		if strings.HasPrefix(body, "\xEF\xBB\xBF") {
			off = 3
		}
		for _, part := range strings.Split(body[off:], "\n") {
			rec, cut := trimSpace([]byte(part))
			if len(rec) > 0 {
				want = append(want, string(rec))
				wantOffs = append(wantOffs, int64(off+cut))
			}
			off += len(part) + 1
		}
		d := NewLines(chunked(body, int(chunk)), 1<<20)
		for i := 0; ; i++ {
			rec, off, err := d.Next()
			if err == io.EOF {
				if i != len(want) {
					t.Fatalf("%d records, want %d", i, len(want))
				}
				break
			}
			if err != nil {
				t.Fatalf("record %d: %v", i, err)
			}
			if i >= len(want) || string(rec) != want[i] || off != wantOffs[i] {
				t.Fatalf("record %d = %q at %d, want %q at %d", i, rec, off, want[i], wantOffs[i])
			}
		}

		// With a small limit, records in order until ErrTooLarge, which
		// comes only for a line (with its surrounding whitespace) over the
		// limit.
		lim := int(limit) + 1
		d = NewLines(chunked(body, int(chunk)), lim)
		for i := 0; ; i++ {
			rec, _, err := d.Next()
			if err == io.EOF {
				break
			}
			if errors.Is(err, ErrTooLarge) {
				over := false
				for _, part := range strings.Split(strings.TrimPrefix(body, "\xEF\xBB\xBF"), "\n") {
					over = over || len(part) > lim
				}
				if !over {
					t.Fatalf("ErrTooLarge with limit %d, but no record is over it", lim)
				}
				break
			}
			if err != nil || i >= len(want) || string(rec) != want[i] {
				t.Fatalf("limit %d: record %d = %q, %v", lim, i, rec, err)
			}
		}
	})
}

// FuzzSeq checks the json-seq reader against a split of the whole input on
// RS: when every record is a valid JSON value, the reader frames exactly
// those values; when the reader frames every record without an error and
// each is valid JSON, so is every RS-separated part; and reads of any size
// give the same records as one.
func FuzzSeq(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		var parts []string
		allValid := true
		for _, part := range strings.Split(strings.TrimPrefix(string(in), "\xEF\xBB\xBF"), "\x1e") {
			rec, _ := trimSpace([]byte(part))
			if len(rec) > 0 {
				parts = append(parts, string(rec))
				allValid = allValid && json.Valid(rec)
			}
		}
		read := func(n int) ([]string, error) {
			q := NewSeq(chunked(string(in), n), 1<<20)
			var recs []string
			for {
				rec, off, err := q.Next()
				if err != nil {
					return recs, err
				}
				if off < 0 || off+int64(len(rec)) > int64(len(in)) || string(in[off:off+int64(len(rec))]) != string(rec) {
					t.Fatalf("record %q at %d is not the input's bytes there", rec, off)
				}
				recs = append(recs, string(rec))
			}
		}
		got, err := read(int(chunk))
		whole, wholeErr := read(1 << 20)
		if !slices.Equal(got, whole) || (err == nil) != (wholeErr == nil) || err != nil && err.Error() != wholeErr.Error() {
			t.Fatalf("reads of %d bytes: %q, %v; one read: %q, %v", chunk, got, err, whole, wholeErr)
		}
		if allValid && (err != io.EOF || !slices.Equal(got, parts)) {
			t.Fatalf("valid records %q: framed %q, %v", parts, got, err)
		}
		framedValid := err == io.EOF
		for _, r := range got {
			framedValid = framedValid && json.Valid([]byte(r))
		}
		if framedValid && (!allValid || !slices.Equal(got, parts)) {
			t.Fatalf("framed %q without an error, each valid, but the records are %q", got, parts)
		}
		var se *SyntaxError
		if err != io.EOF && !errors.As(err, &se) {
			t.Fatalf("error %v is neither io.EOF nor a *SyntaxError", err)
		}
	})
}

// FuzzArray checks the array reader against encoding/json: a valid JSON
// array gives exactly the elements encoding/json finds; and when the reader
// frames every element and reaches the end without an error and each
// element is valid JSON, the whole input is a valid JSON array, so nothing
// malformed passes between the elements.
func FuzzArray(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8, limit uint8) {
		body := bytes.TrimPrefix(in, []byte("\xEF\xBB\xBF"))
		trimmed, _ := trimSpace(body)
		valid := json.Valid(body) && len(trimmed) > 0 && trimmed[0] == '['
		var want []json.RawMessage
		if valid {
			if err := json.Unmarshal(body, &want); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
		}
		a := NewArray(chunked(string(in), int(chunk)), 1<<20)
		var got [][]byte
		allValid := true
		var err error
		for {
			var rec []byte
			var off int64
			rec, off, err = a.Next()
			if err != nil {
				break
			}
			if off < 0 || off+int64(len(rec)) > int64(len(in)) || !bytes.Equal(in[off:off+int64(len(rec))], rec) {
				t.Fatalf("element %q at %d is not the input's bytes there", rec, off)
			}
			got = append(got, bytes.Clone(rec))
			allValid = allValid && json.Valid(rec)
		}
		if err == io.EOF && allValid && !valid {
			t.Fatalf("framed %q without an error, each element valid, but the input is not a valid JSON array", got)
		}
		if valid {
			if err != io.EOF {
				t.Fatalf("valid array: %v", err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d elements, encoding/json finds %d", len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("element %d = %q, encoding/json finds %q", i, got[i], want[i])
				}
			}
		}
		var se *SyntaxError
		if err != io.EOF && !errors.As(err, &se) {
			t.Fatalf("error %v is neither io.EOF nor a *SyntaxError", err)
		}

		// With a small limit: the same elements until ErrTooLarge, which
		// comes only for an element over the limit.
		lim := int(limit) + 1
		a = NewArray(chunked(string(in), int(chunk)), lim)
		for i := 0; ; i++ {
			rec, _, err := a.Next()
			if err == nil {
				if i >= len(got) || !bytes.Equal(rec, got[i]) {
					t.Fatalf("limit %d: element %d = %q", lim, i, rec)
				}
				continue
			}
			if errors.Is(err, ErrTooLarge) && valid {
				over := false
				for _, w := range want {
					over = over || len(w) > lim
				}
				if !over {
					t.Fatalf("ErrTooLarge with limit %d, but no element is over it", lim)
				}
			}
			break
		}
	})
}
