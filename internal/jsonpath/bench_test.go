package jsonpath

import (
	stdjson "encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// benchRecord is a typical 10-field record. The json tags match the
// document exactly, as json/v2 matches names case-sensitively by default.
type benchRecord struct {
	ID        int64   `json:"id"`
	Name      string  `json:"name"`
	Email     string  `json:"email"`
	Active    bool    `json:"active"`
	Score     float64 `json:"score"`
	Age       int     `json:"age"`
	Country   string  `json:"country"`
	Role      string  `json:"role"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
}

// benchPage returns a page body with n records, a meta object holding the
// cursor and a links object, shaped like common paginated APIs.
func benchPage(n int) string {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"User %d","email":"user%d@example.com","active":%t,"score":%d.25,`+
			`"age":%d,"country":"DE","role":"member","created_at":"2024-01-%02dT10:00:00Z","updated_at":"2024-02-%02dT11:30:00Z"}`,
			i, i, i, i%2 == 0, i*3, 20+i%50, 1+i%28, 1+i%28)
	}
	b.WriteString(`],"meta":{"total":12345,"per_page":100,"next_cursor":"eyJpZCI6MTIzNDV9"},`)
	b.WriteString(`"links":{"self":"https://api.example.com/v1/users?cursor=abc","next":"https://api.example.com/v1/users?cursor=eyJpZCI6MTIzNDV9"}}`)
	return b.String()
}

var benchPaths = []Path{{"data"}, {"meta", "next_cursor"}}

// BenchmarkWalkDecode locates "data" and "meta.next_cursor" in one pass and
// decodes the records straight into []benchRecord.
func BenchmarkWalkDecode(b *testing.B) {
	data := []byte(benchPage(100))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var records []benchRecord
	var cursor string
	for b.Loop() {
		records = records[:0]
		err := Walk(data, benchPaths, func(i int, dec *jsontext.Decoder) error {
			if i == 0 {
				return json.UnmarshalDecode(dec, &records)
			}
			return json.UnmarshalDecode(dec, &cursor)
		})
		if err != nil || len(records) != 100 || cursor == "" {
			b.Fatal(err, len(records), cursor)
		}
	}
}

// BenchmarkWalkDecodeFresh is BenchmarkWalkDecode without reusing the
// records slice between iterations, as a paginator handing out pages would.
func BenchmarkWalkDecodeFresh(b *testing.B) {
	data := []byte(benchPage(100))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var records []benchRecord
		var cursor string
		err := Walk(data, benchPaths, func(i int, dec *jsontext.Decoder) error {
			if i == 0 {
				return json.UnmarshalDecode(dec, &records)
			}
			return json.UnmarshalDecode(dec, &cursor)
		})
		if err != nil || len(records) != 100 || cursor == "" {
			b.Fatal(err, len(records), cursor)
		}
	}
}

type benchEnvelope struct {
	Data []benchRecord `json:"data"`
	Meta struct {
		NextCursor string `json:"next_cursor"`
	} `json:"meta"`
}

// BenchmarkStdlibUnmarshal decodes the same page with encoding/json into a
// struct naming the envelope's fields.
func BenchmarkStdlibUnmarshal(b *testing.B) {
	data := []byte(benchPage(100))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var env benchEnvelope
		if err := stdjson.Unmarshal(data, &env); err != nil || len(env.Data) != 100 {
			b.Fatal(err)
		}
	}
}

// BenchmarkV2Unmarshal decodes the same page with json/v2 into the envelope
// struct, for reference.
func BenchmarkV2Unmarshal(b *testing.B) {
	data := []byte(benchPage(100))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var env benchEnvelope
		if err := json.Unmarshal(data, &env); err != nil || len(env.Data) != 100 {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdlibMapAny decodes the page into map[string]any, which is what
// a generic dotted-key lookup without this package would do.
func BenchmarkStdlibMapAny(b *testing.B) {
	data := []byte(benchPage(100))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var m map[string]any
		if err := stdjson.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookupCursor reads only the cursor; the rest is validated and
// skipped.
func BenchmarkLookupCursor(b *testing.B) {
	data := []byte(benchPage(100))
	p := Path{"meta", "next_cursor"}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, found, err := Lookup(data, p); err != nil || !found {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdlibValid is encoding/json's validator on the same page, as a
// lower bound for any approach that validates the whole document.
func BenchmarkStdlibValid(b *testing.B) {
	data := []byte(benchPage(100))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if !stdjson.Valid(data) {
			b.Fatal("invalid")
		}
	}
}
