package kit

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/pagescan"
)

// FuzzPageShapes scans any page body for Stripe's shape: the records at
// "data", the cursor at the dotted recordKey of the last record, the
// has-more flag at hasMoreKey. It must never panic, and what it finds must
// agree with encoding/json reading the same document. Seed corpus:
// testdata/fuzz/FuzzPageShapes.
func FuzzPageShapes(f *testing.F) {
	f.Add([]byte(`{"data":[{"id":"cus_1"},{"id":"cus_2"}],"has_more":true}`), "id", "has_more")
	f.Add([]byte(`{"data":[{"meta":{"key":7}}],"paging":{"more":false}}`), "meta.key", "paging.more")
	f.Add([]byte(`[{"id":1},{"id":null}]`), "id", "has_more")
	f.Add([]byte(`{"data":[],"has_more":"yes"}`), "id", "has_more")
	f.Fuzz(func(t *testing.T, body []byte, recordKey, hasMoreKey string) {
		if recordKey == "" || hasMoreKey == "" || strings.HasPrefix(hasMoreKey, "data") {
			return
		}
		l, err := newPageLayout(Cursor{RecordKey: recordKey, HasMoreKey: hasMoreKey, ItemsKey: "data"})
		if err != nil {
			return // not a valid dotted key
		}
		var recs []jsontext.Value
		info, err := l.Scan(body, &recs)
		if err != nil {
			return
		}
		var top map[string]any
		d := json.NewDecoder(strings.NewReader(string(body)))
		d.UseNumber()
		if d.Decode(&top) != nil {
			return
		}
		arr, _ := top["data"].([]any)
		if info.Records != len(recs) || len(recs) != len(arr) {
			t.Fatalf("records %d, decoded %d, encoding/json %d", info.Records, len(recs), len(arr))
		}
		want, found := lookupDotted(top, hasMoreKey)
		switch b, isBool := want.(bool); {
		case !found || want == nil:
			if info.HasMore != pagescan.HasMoreAbsent || info.HasMoreErr != nil {
				t.Fatalf("has-more %d, %v; want absent", info.HasMore, info.HasMoreErr)
			}
		case isBool:
			if (info.HasMore == pagescan.HasMoreTrue) != b || info.HasMore == pagescan.HasMoreAbsent {
				t.Fatalf("has-more %d, want %v", info.HasMore, b)
			}
		default:
			if info.HasMoreErr == nil {
				t.Fatalf("has-more %v (%T) read without an error", want, want)
			}
		}
		if len(arr) == 0 {
			return
		}
		last, _ := arr[len(arr)-1].(map[string]any)
		v, found := lookupDotted(last, recordKey)
		switch v := v.(type) {
		case string:
			if v != "" && (info.Cursor != v || info.CursorErr != nil) {
				t.Fatalf("cursor %q (%v), want %q", info.Cursor, info.CursorErr, v)
			}
		case json.Number:
			if info.Cursor != v.String() || !info.CursorNum {
				if f1, err := strconv.ParseFloat(info.Cursor, 64); err != nil || f1 != mustFloat(v) {
					t.Fatalf("cursor %q, want the number %s", info.Cursor, v)
				}
			}
		default:
			if info.CursorErr == nil {
				t.Fatalf("cursor %q from a last record whose key is %v (found %v): want an error", info.Cursor, v, found)
			}
		}
	})
}

func mustFloat(n json.Number) float64 {
	f, _ := n.Float64()
	return f
}

// lookupDotted follows a dotted key through decoded JSON objects.
func lookupDotted(v any, key string) (any, bool) {
	for _, seg := range strings.Split(key, ".") {
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
