package pagescan

import (
	"encoding/json"
	"testing"

	json2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// layoutFor is the layout of a page-number paginator (no cursor) or a
// cursor paginator, with kit's decoding options (encoding/json's
// semantics on the v2 engine).
func layoutFor(itemsKey, cursorKey string) (*Layout, error) {
	opts := json2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))
	return New(Keys{Items: itemsKey, Cursor: cursorKey}, opts)
}

func TestPageScanCursor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		body, key, want string
		wantErr         bool
	}{
		{`{"data":[],"next_cursor":"abc"}`, "next_cursor", "abc", false},
		{`{"data":[],"meta":{"next":12}}`, "meta.next", "12", false},
		{`{"data":[],"meta":{"next":null}}`, "meta.next", "", false},
		{`{"data":[],"meta":{}}`, "meta.next", "", false},
		{`{"data":[],"next_cursor":""}`, "next_cursor", "", false},
		{`{"data":[],"next_cursor":{"a":1}}`, "next_cursor", "", true},
		{`{"data":[],"next_cursor":"a\u00e9"}`, "next_cursor", "aé", false},
		{`{"data":{"next":"c"},"items":[1]}`, "data.next", "c", false},
	}
	for _, tt := range tests {
		l, err := layoutFor("", tt.key)
		if err != nil {
			t.Fatal(err)
		}
		var recs []jsontext.Value
		info, err := l.Scan([]byte(tt.body), &recs)
		if (err != nil) != tt.wantErr || info.Cursor != tt.want {
			t.Errorf("scan(%s) cursor = %q, %v; want %q, error %v", tt.body, info.Cursor, err, tt.want, tt.wantErr)
		}
	}
}

// FuzzPageScan checks the single-pass page reader against encoding/json:
// whenever both accept a page, they agree on how many records it holds.
func FuzzPageScan(f *testing.F) {
	for _, seed := range []string{
		`[{"id":1},{"id":2}]`,
		`{"data":[{"id":1}],"next_cursor":"x"}`,
		`{"results":[1,2,3],"data":null}`,
		`{"items":[],"meta":{"next_cursor":5}}`,
		`{"payload":{"records":[{"a":[1,{"b":2}]}]}}`,
		`{"data":{"x":1},"items":[{}]}`,
		` [ ] `,
		`{"data":[1],"data":[2]}`,
		`{"data":[1]} trailing`,
	} {
		f.Add([]byte(seed), "", "next_cursor")
	}
	f.Add([]byte(`{"payload":{"records":[1,2]},"meta":{"next":"a"}}`), "payload.records", "meta.next")
	f.Fuzz(func(t *testing.T, body []byte, itemsKey, cursorKey string) {
		l, err := layoutFor(itemsKey, cursorKey)
		if err != nil {
			return // not a valid dotted key
		}
		var recs []jsontext.Value
		info, err := l.Scan(body, &recs)
		if err != nil {
			return
		}
		if info.Records != len(recs) {
			t.Fatalf("records %d, decoded %d", info.Records, len(recs))
		}
		if itemsKey != "" || cursorKey != "next_cursor" {
			return
		}
		// Compare with encoding/json on the default layout.
		var top any
		if json.Unmarshal(body, &top) != nil {
			return
		}
		want := -1
		switch v := top.(type) {
		case []any:
			want = len(v)
		case map[string]any:
			for _, k := range DefaultItemKeys {
				if arr, ok := v[k].([]any); ok {
					want = len(arr)
					break
				}
				if val, ok := v[k]; ok && val == nil {
					want = 0
					break
				}
			}
		}
		if want >= 0 && want != len(recs) {
			t.Fatalf("scan found %d records, encoding/json %d, in %q", len(recs), want, body)
		}
	})
}

func TestPageLayoutOverlap(t *testing.T) {
	t.Parallel()
	if _, err := layoutFor("data", "data.next"); err == nil {
		t.Fatal("items key data and cursor key data.next: want an error")
	}
	l, err := layoutFor("", "data.next")
	if err != nil {
		t.Fatal(err)
	}
	var recs []jsontext.Value
	info, err := l.Scan([]byte(`{"data":{"next":"c"},"items":[1,2]}`), &recs)
	if err != nil || info.Records != 2 || info.Cursor != "c" {
		t.Fatalf("scan = %+v, %v; want 2 records and cursor c", info, err)
	}
}
