package httpsyntax

import (
	"strconv"
	"testing"
)

func TestParseContentRange(t *testing.T) {
	for _, tc := range []struct {
		in                    string
		first, last, complete int64
		ok                    bool
	}{
		{"bytes 0-499/1234", 0, 499, 1234, true},
		{"bytes 500-1233/1234", 500, 1233, 1234, true},
		{"BYTES 7-7/8", 7, 7, 8, true},
		{" bytes  42-99/* ", 42, 99, -1, true},
		{"bytes 0-0/1", 0, 0, 1, true},
		{"bytes */1234", 0, 0, 0, false},        // unsatisfied
		{"bytes 500-1234/1234", 0, 0, 0, false}, // last past the length
		{"bytes 9-8/100", 0, 0, 0, false},
		{"bytes -1-5/10", 0, 0, 0, false},
		{"bytes +1-5/10", 0, 0, 0, false},
		{"bytes 1-5/+10", 0, 0, 0, false},
		{"items 0-4/10", 0, 0, 0, false},
		{"bytes 0-4", 0, 0, 0, false},
		{"bytes 0/10", 0, 0, 0, false},
		{"bytes 0-99999999999999999999/*", 0, 0, 0, false},
		{"", 0, 0, 0, false},
		{"bytes", 0, 0, 0, false},
	} {
		first, last, complete, ok := ParseContentRange(tc.in)
		if ok != tc.ok || ok && (first != tc.first || last != tc.last || complete != tc.complete) {
			t.Errorf("ParseContentRange(%q) = %d, %d, %d, %v; want %d, %d, %d, %v", tc.in, first, last, complete, ok, tc.first, tc.last, tc.complete, tc.ok)
		}
	}
}

// FuzzParseContentRange: a Content-Range is a server's input; what is
// accepted is a well-ordered range that prints back to an equal one.
func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-499/1234", "bytes 42-99/*", "bytes */10", "bytes 9-8/100", "items 1-2/3", "bytes 0-9223372036854775807/*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, complete, ok := ParseContentRange(s)
		if !ok {
			return
		}
		if first < 0 || last < first || complete != -1 && complete <= last {
			t.Fatalf("ParseContentRange(%q) = %d, %d, %d: out of order", s, first, last, complete)
		}
		c := "*"
		if complete >= 0 {
			c = strconv.FormatInt(complete, 10)
		}
		again := "bytes " + strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(last, 10) + "/" + c
		f2, l2, c2, ok2 := ParseContentRange(again)
		if !ok2 || f2 != first || l2 != last || c2 != complete {
			t.Fatalf("%q parsed to %q, which parses to %d, %d, %d, %v", s, again, f2, l2, c2, ok2)
		}
	})
}
