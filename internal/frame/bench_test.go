package frame

import (
	"io"
	"strings"
	"testing"
)

// benchRecord is a record like kittest's generated ones.
const benchRecord = `{"id":123456,"name":"record-123456","email":"record-123456@example.com","team_id":2,"score":37,"active":true,"tags":["t0","t3"],"created_at":"2024-01-02T10:17:36Z"}`

// BenchmarkFrame measures framing alone, without decoding, over 100,000
// records: NDJSON, a JSON array and server-sent events.
func BenchmarkFrame(b *testing.B) {
	const n = 100_000
	var lines, array, sse strings.Builder
	array.WriteString("[")
	for i := range n {
		lines.WriteString(benchRecord + "\n")
		if i > 0 {
			array.WriteString(",")
		}
		array.WriteString(benchRecord)
		sse.WriteString("id: 123456\nevent: record\ndata: " + benchRecord + "\n\n")
	}
	array.WriteString("]")
	for _, tc := range []struct {
		name string
		in   string
		next func(r io.Reader) func() error
	}{
		{"lines", lines.String(), func(r io.Reader) func() error {
			d := NewLines(r, 1<<20)
			return func() error { _, _, err := d.Next(); return err }
		}},
		{"array", array.String(), func(r io.Reader) func() error {
			a := NewArray(r, 1<<20)
			return func() error { _, _, err := a.Next(); return err }
		}},
		{"sse", sse.String(), func(r io.Reader) func() error {
			p := NewSSE(r, 1<<20)
			return func() error { _, err := p.Next(); return err }
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.in)))
			b.ReportAllocs()
			for b.Loop() {
				next := tc.next(strings.NewReader(tc.in))
				got := 0
				for next() == nil {
					got++
				}
				if got != n {
					b.Fatalf("%d records", got)
				}
			}
		})
	}
}
