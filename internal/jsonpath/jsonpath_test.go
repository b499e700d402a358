package jsonpath

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// mustParse parses a dotted key for tests; "" gives the top-level path.
func mustParse(t testing.TB, dotted string) Path {
	t.Helper()
	if dotted == "" {
		return Path{}
	}
	p, err := Parse(dotted)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Path
		wantErr bool
	}{
		{in: "data", want: Path{"data"}},
		{in: "meta.next_cursor", want: Path{"meta", "next_cursor"}},
		{in: "a.b.c.d", want: Path{"a", "b", "c", "d"}},
		{in: " a . b ", want: Path{" a ", " b "}},
		{in: "Ünïcode.ключ", want: Path{"Ünïcode", "ключ"}},
		{in: "", wantErr: true},
		{in: ".", wantErr: true},
		{in: "a..b", wantErr: true},
		{in: ".a", wantErr: true},
		{in: "a.", wantErr: true},
		{in: "a.\xff", wantErr: true},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.wantErr {
			if err == nil || !errors.Is(err, ErrInvalidPath) {
				t.Errorf("Parse(%q) = %q, %v; want error wrapping ErrInvalidPath", tt.in, got, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if s := got.String(); s != tt.in {
			t.Errorf("Parse(%q).String() = %q", tt.in, s)
		}
	}
	if s := (Path{}).String(); s != "" {
		t.Errorf("Path{}.String() = %q, want empty", s)
	}
}

type visit struct {
	I   int
	Raw string
}

func TestWalk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		doc    string
		paths  []string // dotted; "" is the top-level value
		want   []visit
		errIs  error // wrapped cause expected in a *SyntaxError, or nil
		offset int64 // expected SyntaxError offset when errIs != nil; -1: any
	}{
		{name: "top-level array, empty path", doc: ` [1, 2] `, paths: []string{""}, want: []visit{{0, "[1, 2]"}}},
		{name: "top-level null, empty path", doc: `null`, paths: []string{""}, want: []visit{{0, "null"}}},
		{name: "top-level string, key path", doc: `"data"`, paths: []string{"data"}},
		{name: "top-level array, key path", doc: `[{"data":1}]`, paths: []string{"data"}},
		{name: "single key", doc: `{"data":[{"id":1}],"x":2}`, paths: []string{"data"}, want: []visit{{0, `[{"id":1}]`}}},
		{
			name:  "nested key",
			doc:   `{"meta":{"total":3,"next_cursor":"abc"},"data":[]}`,
			paths: []string{"meta.next_cursor"},
			want:  []visit{{0, `"abc"`}},
		},
		{name: "deep", doc: `{"a":{"b":{"c":{"d":true}}}}`, paths: []string{"a.b.c.d"}, want: []visit{{0, "true"}}},
		{name: "missing key", doc: `{"meta":{"total":3}}`, paths: []string{"meta.next_cursor", "data"}},
		{name: "missing intermediate", doc: `{"data":[]}`, paths: []string{"meta.next"}},
		{name: "array intermediate", doc: `{"meta":[{"next":1}]}`, paths: []string{"meta.next"}},
		{name: "string intermediate", doc: `{"meta":"next"}`, paths: []string{"meta.next"}},
		{name: "null intermediate", doc: `{"meta":null}`, paths: []string{"meta.next"}},
		{name: "null value", doc: `{"meta":{"next":null}}`, paths: []string{"meta.next"}, want: []visit{{0, "null"}}},
		{
			name:  "several paths visited in document order",
			doc:   `{"meta":{"next":"c2"},"links":{"next":"x"},"data":[1,2]}`,
			paths: []string{"data", "meta.next"},
			want:  []visit{{1, `"c2"`}, {0, "[1,2]"}},
		},
		{
			name:  "sibling paths under one object",
			doc:   `{"a":{"c":2,"x":{"b":0},"b":1}}`,
			paths: []string{"a.b", "a.c"},
			want:  []visit{{1, "2"}, {0, "1"}},
		},
		{
			name:  "first present of several candidates",
			doc:   `{"items":[3],"results":[4]}`,
			paths: []string{"data", "items", "results"},
			want:  []visit{{1, "[3]"}, {2, "[4]"}},
		},
		{name: "case-sensitive", doc: `{"Data":1,"DATA":2}`, paths: []string{"data"}},
		{name: "escaped member name", doc: `{"d\u0061ta":1}`, paths: []string{"data"}, want: []visit{{0, "1"}}},
		{name: "escaped non-matching name", doc: `{"d\u0061t":1,"data":2}`, paths: []string{"data"}, want: []visit{{0, "2"}}},
		{name: "unicode name", doc: `{"ключ":{"é":1}}`, paths: []string{"ключ.é"}, want: []visit{{0, "1"}}},
		{
			name:  "whitespace is stripped from values",
			doc:   "{ \"a\" :\n\t{ \"b\" : [ 1 , 2 ] } }\n",
			paths: []string{"a.b"},
			want:  []visit{{0, "[ 1 , 2 ]"}},
		},
		{name: "no paths validates only", doc: `{"a":[1,{"b":null}]}`},

		// Invalid documents.
		{name: "empty document", doc: ``, paths: []string{""}, errIs: io.ErrUnexpectedEOF, offset: 0},
		{name: "whitespace only", doc: "  \n", paths: []string{"a"}, errIs: io.ErrUnexpectedEOF, offset: 3},
		{name: "truncated", doc: `{"data":[1,2`, paths: []string{"meta"}, errIs: io.ErrUnexpectedEOF, offset: 12},
		{name: "trailing comma", doc: `{"a":1,}`, paths: []string{"a"}, want: []visit{{0, "1"}}, offset: 6, errIs: new(jsontext.SyntacticError)},
		{name: "missing value", doc: `{"a":}`, paths: []string{"a"}, offset: 5, errIs: new(jsontext.SyntacticError)},
		{name: "bad literal", doc: `{"x":nul,"a":1}`, paths: []string{"a"}, offset: -1, errIs: new(jsontext.SyntacticError)},
		{name: "non-string name", doc: `{1:2}`, paths: []string{"a"}, offset: 1, errIs: jsontext.ErrNonStringName},
		{name: "trailing garbage", doc: `{"a":1} x`, paths: []string{"a"}, want: []visit{{0, "1"}}, errIs: ErrTrailingData, offset: 8},
		{name: "trailing close brace", doc: `{"a":1}}`, paths: []string{"b"}, errIs: ErrTrailingData, offset: 7},
		{name: "second top-level value", doc: "{}\n{}", errIs: ErrTrailingData, offset: 3},
		{name: "trailing whitespace is fine", doc: "{\"a\":1} \r\n\t", paths: []string{"a"}, want: []visit{{0, "1"}}},
		{name: "invalid JSON after the target", doc: `{"a":1,"b":[}`, paths: []string{"a"}, want: []visit{{0, "1"}}, offset: -1, errIs: new(jsontext.SyntacticError)},
		{name: "invalid JSON inside the target", doc: `{"a":[1,}`, paths: []string{"a"}, offset: -1, errIs: new(jsontext.SyntacticError)},

		// Duplicate names are rejected everywhere.
		{name: "duplicate at target", doc: `{"a":1,"a":2}`, paths: []string{"a"}, want: []visit{{0, "1"}}, errIs: jsontext.ErrDuplicateName, offset: 7},
		{name: "duplicate in skipped object", doc: `{"x":{"k":1,"k":2},"a":1}`, paths: []string{"a"}, errIs: jsontext.ErrDuplicateName, offset: 12},
		{name: "duplicate via escape", doc: `{"a":1,"\u0061":2}`, errIs: jsontext.ErrDuplicateName, offset: 7},

		// Invalid UTF-8 is rejected everywhere.
		{name: "invalid UTF-8 in skipped value", doc: "{\"x\":\"\xff\",\"a\":1}", paths: []string{"a"}, errIs: new(jsontext.SyntacticError), offset: 6},
		{name: "invalid UTF-8 in name", doc: "{\"\xff\":1}", paths: []string{"a"}, errIs: new(jsontext.SyntacticError), offset: 2},
		{name: "lone surrogate escape", doc: `{"x":"\ud800"}`, errIs: new(jsontext.SyntacticError), offset: 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			paths := make([]Path, len(tt.paths))
			for i, d := range tt.paths {
				paths[i] = mustParse(t, d)
			}
			var got []visit
			err := Walk([]byte(tt.doc), paths, func(i int, dec *jsontext.Decoder) error {
				v, err := dec.ReadValue()
				if err != nil {
					return err
				}
				got = append(got, visit{i, string(v)})
				return nil
			})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("visits = %v, want %v", got, tt.want)
			}
			checkErr(t, err, tt.errIs, tt.offset)
		})
	}
}

// checkErr checks that err is nil when errIs is nil, and otherwise a
// *SyntaxError at offset (unless offset is -1) whose cause matches errIs
// (errors.Is for sentinels, errors.As for a *jsontext.SyntacticError).
func checkErr(t *testing.T, err, errIs error, offset int64) {
	t.Helper()
	if errIs == nil {
		if err != nil {
			t.Errorf("err = %v, want nil", err)
		}
		return
	}
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v (%T), want *SyntaxError", err, err)
	}
	if offset >= 0 && se.Offset != offset {
		t.Errorf("offset = %d, want %d (err: %v)", se.Offset, offset, err)
	}
	if _, ok := errIs.(*jsontext.SyntacticError); ok {
		var jse *jsontext.SyntacticError
		if !errors.As(err, &jse) {
			t.Errorf("err = %v, want it to wrap a *jsontext.SyntacticError", err)
		}
	} else if !errors.Is(err, errIs) {
		t.Errorf("err = %v, want it to wrap %v", err, errIs)
	}
	if !strings.Contains(err.Error(), "offset") {
		t.Errorf("error message %q does not mention the offset", err)
	}
}

func TestWalkVisitError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	doc := []byte(`{"a":1,"b":2,"c":3}`)
	var calls []int
	err := Walk(doc, []Path{{"c"}, {"b"}, {"a"}}, func(i int, dec *jsontext.Decoder) error {
		calls = append(calls, i)
		if i == 1 {
			return boom
		}
		return dec.SkipValue()
	})
	if err != boom {
		t.Errorf("err = %v, want boom unchanged", err)
	}
	if want := []int{2, 1}; !reflect.DeepEqual(calls, want) {
		t.Errorf("visited %v, want %v (Walk must stop at the first error)", calls, want)
	}
}

func TestWalkUnmarshalDecode(t *testing.T) {
	t.Parallel()
	type record struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	doc := []byte(`{"data":{"records":[{"id":1,"name":"a"},{"id":2,"name":"b","extra":[1]}]},
		"meta":{"next_cursor":"c3"},"links":{"self":"x"}}`)
	var (
		records []record
		cursor  string
	)
	err := Walk(doc, []Path{mustParse(t, "data.records"), mustParse(t, "meta.next_cursor")},
		func(i int, dec *jsontext.Decoder) error {
			switch i {
			case 0:
				return json.UnmarshalDecode(dec, &records)
			default:
				return json.UnmarshalDecode(dec, &cursor)
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	if want := []record{{1, "a"}, {2, "b"}}; !reflect.DeepEqual(records, want) {
		t.Errorf("records = %+v, want %+v", records, want)
	}
	if cursor != "c3" {
		t.Errorf("cursor = %q, want c3", cursor)
	}

	// A semantic error from visit is returned unchanged.
	err = Walk([]byte(`{"data":{"records":"nope"}}`), []Path{{"data", "records"}},
		func(_ int, dec *jsontext.Decoder) error { return json.UnmarshalDecode(dec, &records) })
	var semErr *json.SemanticError
	if !errors.As(err, &semErr) {
		t.Errorf("err = %v (%T), want a *json.SemanticError", err, err)
	}
	var synErr *SyntaxError
	if errors.As(err, &synErr) {
		t.Errorf("semantic error %v reported as a *SyntaxError", err)
	}

	// A syntax error met by UnmarshalDecode is reported as a *SyntaxError.
	err = Walk([]byte(`{"data":{"records":[{"id":1,}]}}`), []Path{{"data", "records"}},
		func(_ int, dec *jsontext.Decoder) error { return json.UnmarshalDecode(dec, &records) })
	if !errors.As(err, &synErr) {
		t.Errorf("err = %v (%T), want a *SyntaxError", err, err)
	}
}

func TestWalkVisitMisuse(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"a":{"x":1},"b":2}`)
	tests := []struct {
		name  string
		path  Path
		visit func(*jsontext.Decoder) error
	}{
		{"consumes nothing", Path{"a"}, func(*jsontext.Decoder) error { return nil }},
		{"consumes a begin token only", Path{"a"}, func(dec *jsontext.Decoder) error {
			_, err := dec.ReadToken()
			return err
		}},
		{"consumes the value and the next name", Path{"a"}, func(dec *jsontext.Decoder) error {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			_, err := dec.ReadToken()
			return err
		}},
		{"consumes the value and the end of its object", Path{"b"}, func(dec *jsontext.Decoder) error {
			if err := dec.SkipValue(); err != nil {
				return err
			}
			_, err := dec.ReadToken()
			return err
		}},
		{"top level consumes nothing", Path{}, func(*jsontext.Decoder) error { return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := Walk(doc, []Path{tt.path}, func(_ int, dec *jsontext.Decoder) error { return tt.visit(dec) })
			if !errors.Is(err, ErrVisitMisuse) {
				t.Errorf("err = %v, want ErrVisitMisuse", err)
			}
		})
	}
}

func TestWalkOverlappingPaths(t *testing.T) {
	t.Parallel()
	tests := [][]Path{
		{{"a"}, {"a"}},
		{{"a"}, {"a", "b"}},
		{{"x"}, {"a", "b"}, {"a"}},
		{{}, {"a"}},
		{{}, {}},
	}
	for _, paths := range tests {
		called := false
		err := Walk([]byte(`{"a":{"b":1}}`), paths, func(_ int, dec *jsontext.Decoder) error {
			called = true
			return dec.SkipValue()
		})
		if !errors.Is(err, ErrOverlappingPaths) || called {
			t.Errorf("Walk(%q) = %v, called=%v; want ErrOverlappingPaths without visits", paths, err, called)
		}
	}
	// Paths that merely share a prefix do not overlap.
	if err := Walk([]byte(`{"a":{"b":1,"bc":2}}`), []Path{{"a", "b"}, {"a", "bc"}},
		func(_ int, dec *jsontext.Decoder) error { return dec.SkipValue() }); err != nil {
		t.Errorf("sibling paths: %v", err)
	}
}

func TestWalkNested(t *testing.T) {
	t.Parallel()
	// visit may itself call Walk (for example on a raw value it read).
	doc := []byte(`{"outer":{"inner":{"v":42}}}`)
	var got string
	err := Walk(doc, []Path{{"outer"}}, func(_ int, dec *jsontext.Decoder) error {
		raw, err := dec.ReadValue()
		if err != nil {
			return err
		}
		v, found, err := Lookup(raw, Path{"inner", "v"})
		if err != nil || !found {
			return errors.New("inner lookup failed")
		}
		got = string(v)
		return nil
	})
	if err != nil || got != "42" {
		t.Errorf("got %q, %v; want 42, nil", got, err)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	doc := `{"data":[{"id":1}], "meta" : { "next_cursor" : "abc" , "n": null }, "s":"x"}`
	tests := []struct {
		doc       string
		path      string
		want      string
		wantFound bool
		wantErr   bool
	}{
		{doc: doc, path: "data", want: `[{"id":1}]`, wantFound: true},
		{doc: doc, path: "meta.next_cursor", want: `"abc"`, wantFound: true},
		{doc: doc, path: "meta.n", want: `null`, wantFound: true},
		{doc: doc, path: "meta", want: `{ "next_cursor" : "abc" , "n": null }`, wantFound: true},
		{doc: doc, path: "", want: doc, wantFound: true},
		{doc: doc, path: "meta.missing"},
		{doc: doc, path: "s.x"},
		{doc: doc, path: "data.id"},
		{doc: `[1]`, path: "data"},
		{doc: doc + `x`, path: "data", wantErr: true},
		{doc: `{"data":1,"data":2}`, path: "data", wantErr: true},
		{doc: `{"data":[1,]}`, path: "data", wantErr: true},
		{doc: ``, path: "", wantErr: true},
	}
	for _, tt := range tests {
		data := []byte(tt.doc)
		p := mustParse(t, tt.path)
		raw, found, err := Lookup(data, p)
		if (err != nil) != tt.wantErr || found != tt.wantFound || string(raw) != tt.want {
			t.Errorf("Lookup(%q, %q) = %q, %v, %v; want %q, %v, err=%v",
				tt.doc, tt.path, raw, found, err, tt.want, tt.wantFound, tt.wantErr)
			continue
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("Lookup(%q, %q) error %v is not a *SyntaxError", tt.doc, tt.path, err)
			}
			if raw != nil {
				t.Errorf("Lookup(%q, %q) returned a value with an error", tt.doc, tt.path)
			}
			continue
		}
		if !found {
			if raw != nil {
				t.Errorf("Lookup(%q, %q) returned a value that was not found", tt.doc, tt.path)
			}
			continue
		}
		// raw aliases data, with capacity limited to its length.
		start := strings.Index(tt.doc, tt.want)
		if &raw[0] != &data[start] {
			t.Errorf("Lookup(%q, %q) did not return a subslice of data", tt.doc, tt.path)
		}
		if cap(raw) != len(raw) {
			t.Errorf("Lookup(%q, %q): cap(raw) = %d, want %d", tt.doc, tt.path, cap(raw), len(raw))
		}
	}
}

func TestDataNotModified(t *testing.T) {
	t.Parallel()
	doc := `{"a\u0062":"\u00e9\n","data":[{"k":"\"v\""}],"m":{"c":"x"}}`
	data := []byte(doc)
	err := Walk(data, []Path{{"data"}, {"m", "c"}, {"ab"}}, func(_ int, dec *jsontext.Decoder) error {
		var v any
		return json.UnmarshalDecode(dec, &v)
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != doc {
		t.Errorf("Walk modified its input:\n got %s\nwant %s", data, doc)
	}
}

func TestLookupAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	data := []byte(benchPage(100))
	p := Path{"meta", "next_cursor"}
	if _, found, err := Lookup(data, p); err != nil || !found {
		t.Fatalf("Lookup: %v, %v", found, err)
	}
	allocs := testing.AllocsPerRun(50, func() {
		if _, _, err := Lookup(data, p); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("Lookup allocated %v times per run, want 0", allocs)
	}
	paths := []Path{{"data"}, {"meta", "next_cursor"}}
	visit := func(_ int, dec *jsontext.Decoder) error { return dec.SkipValue() }
	allocs = testing.AllocsPerRun(50, func() {
		if err := Walk(data, paths, visit); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("Walk allocated %v times per run, want 0", allocs)
	}
}

func TestWalkNilVisit(t *testing.T) {
	t.Parallel()
	if err := Walk([]byte(`{"a":1}`), []Path{{"a"}}, nil); err == nil {
		t.Error("Walk with a nil visit and a path succeeded, want an error")
	}
	if err := Walk([]byte(`{"a":1}`), nil, nil); err != nil {
		t.Errorf("Walk with no paths and a nil visit: %v", err)
	}
}
