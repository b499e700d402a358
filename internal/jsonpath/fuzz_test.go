package jsonpath

import (
	"bytes"
	stdjson "encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// fuzzPath turns a fuzzer string into a Path: "" is the top-level value,
// otherwise the string is split on "." without rejecting empty segments, so
// that empty member names are exercised too.
func fuzzPath(t *testing.T, key string) Path {
	if key == "" {
		return Path{}
	}
	p := Path(strings.Split(key, "."))
	if q, err := Parse(key); err == nil && !reflect.DeepEqual(p, q) {
		t.Fatalf("Parse(%q) = %q, want %q", key, q, p)
	}
	return p
}

// follow looks p up in a document decoded by encoding/json.
func follow(v any, p Path) (any, bool) {
	for _, seg := range p {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return v, true
}

// aliases reports whether sub is a subslice of data.
func aliases(data, sub []byte) bool {
	if len(sub) == 0 {
		return false
	}
	for i := range data {
		if &data[i] == &sub[0] {
			return i+len(sub) <= len(data)
		}
	}
	return false
}

// checkSyntaxError checks that err is a *SyntaxError with a sane offset.
func checkSyntaxError(t *testing.T, data []byte, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("invalid document %q gave %v (%T), want a *SyntaxError", data, err, err)
	}
	if se.Offset < 0 || se.Offset > int64(len(data)) {
		t.Fatalf("offset %d out of range for %d bytes", se.Offset, len(data))
	}
}

var fuzzDocs = []string{
	`{"data":[{"id":1,"name":"a"}],"meta":{"next_cursor":"c2","total":3}}`,
	`{"data":{"records":[1,2,3]},"meta":{"next":null}}`,
	`[{"data":1},{"data":2}]`,
	`{"d\u0061ta":"\u00e9\ud83d\ude00","":{"":0}}`,
	`{"a":1,"a":2}`,
	"{\"a\":\"\xff\"}",
	`{"a":{"b":{"c":[true,false,null,1e400,-0.5]}}} x`,
	`{"a":[1,}`,
	"  \n",
	`"top"`,
}

func FuzzLookup(f *testing.F) {
	for i, doc := range fuzzDocs {
		f.Add([]byte(doc), []string{"data", "meta.next_cursor", "data.records", "data", "", "a", "a.b.c", "a", "", "top"}[i])
	}
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		p := fuzzPath(t, key)
		orig := bytes.Clone(data)
		raw, found, err := Lookup(data, p)
		if !bytes.Equal(data, orig) {
			t.Fatalf("Lookup modified its input")
		}
		valid := jsontext.Value(data).IsValid()
		if err != nil {
			if valid {
				t.Fatalf("Lookup(%q, %q) on a valid document: %v", data, p, err)
			}
			checkSyntaxError(t, data, err)
			if found || raw != nil {
				t.Fatalf("Lookup returned a value together with error %v", err)
			}
			return
		}
		if !valid {
			t.Fatalf("Lookup(%q, %q) accepted an invalid document", data, p)
		}
		if found {
			if !jsontext.Value(raw).IsValid() {
				t.Fatalf("Lookup(%q, %q) = %q, not a valid JSON value", data, p, raw)
			}
			if !aliases(data, raw) || cap(raw) != len(raw) {
				t.Fatalf("Lookup(%q, %q) = %q does not alias data with limited capacity", data, p, raw)
			}
		} else if raw != nil {
			t.Fatalf("Lookup returned a value that was not found")
		}

		// Compare with encoding/json on the whole document, when it accepts
		// it (it rejects, for example, numbers beyond float64). Duplicate
		// names and invalid UTF-8 were already rejected above.
		var whole any
		if stdjson.Unmarshal(data, &whole) != nil {
			return
		}
		want, wantFound := follow(whole, p)
		if found != wantFound {
			t.Fatalf("Lookup(%q, %q) found=%v, encoding/json found=%v", data, p, found, wantFound)
		}
		if found {
			var got any
			if err := stdjson.Unmarshal(raw, &got); err != nil {
				t.Fatalf("encoding/json rejects the value %q: %v", raw, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Lookup(%q, %q) = %q = %#v, encoding/json gives %#v", data, p, raw, got, want)
			}
		}
	})
}

func FuzzWalk(f *testing.F) {
	for i, doc := range fuzzDocs {
		f.Add([]byte(doc), "data", "meta.next_cursor", uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, k1, k2 string, mode uint8) {
		paths := []Path{fuzzPath(t, k1), fuzzPath(t, k2)}
		overlap := paths[0].hasPrefix(paths[1]) || paths[1].hasPrefix(paths[0])

		type visited struct {
			i      int
			offset int64
			raw    []byte // nil unless the value was read raw
		}
		var visits []visited
		var visitErr error
		orig := bytes.Clone(data)
		err := Walk(data, paths, func(i int, dec *jsontext.Decoder) error {
			v := visited{i: i, offset: dec.InputOffset()}
			var err error
			switch mode % 4 {
			case 0:
				var raw jsontext.Value
				if raw, err = dec.ReadValue(); err == nil {
					v.raw = bytes.Clone(raw)
				}
			case 1:
				err = dec.SkipValue()
			case 2:
				var x any
				err = json.UnmarshalDecode(dec, &x)
			case 3:
				var raw jsontext.Value
				if err = json.UnmarshalDecode(dec, &raw); err == nil {
					v.raw = raw
				}
			}
			visits = append(visits, v)
			visitErr = err
			return err
		})
		if !bytes.Equal(data, orig) {
			t.Fatalf("Walk modified its input")
		}
		if overlap {
			if !errors.Is(err, ErrOverlappingPaths) || len(visits) > 0 {
				t.Fatalf("overlapping paths %q: err=%v, %d visits", paths, err, len(visits))
			}
			return
		}

		// Visits are in document order, each path at most once.
		for k := 1; k < len(visits); k++ {
			if visits[k].offset <= visits[k-1].offset || visits[k].i == visits[k-1].i {
				t.Fatalf("visits out of order or repeated: %+v", visits)
			}
		}

		valid := jsontext.Value(data).IsValid()
		var se *SyntaxError
		switch {
		case err == nil:
			if !valid {
				t.Fatalf("Walk accepted the invalid document %q", data)
			}
		case errors.As(err, &se):
			if valid {
				t.Fatalf("Walk rejected the valid document %q: %v", data, err)
			}
			checkSyntaxError(t, data, err)
			return
		case visitErr != nil && errors.Is(err, visitErr):
			return // a semantic error from UnmarshalDecode, e.g. 1e400 into any
		default:
			t.Fatalf("Walk(%q, %q) returned an unexpected error %v (%T)", data, paths, err, err)
		}

		// On success, the visits are exactly what Lookup finds.
		seen := make([]*visited, len(paths))
		for k := range visits {
			seen[visits[k].i] = &visits[k]
		}
		for i, p := range paths {
			raw, found, err := Lookup(data, p)
			if err != nil {
				t.Fatalf("Lookup after a successful Walk: %v", err)
			}
			if found != (seen[i] != nil) {
				t.Fatalf("path %q: Lookup found=%v, Walk visited=%v", p, found, seen[i] != nil)
			}
			if found && seen[i].raw != nil && !bytes.Equal(seen[i].raw, raw) {
				t.Fatalf("path %q: Walk read %q, Lookup returned %q", p, seen[i].raw, raw)
			}
		}
	})
}
