package bench

import (
	"bytes"
	"io"
	"reflect"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
)

func TestLibsAgree(t *testing.T) {
	for _, l := range Libs {
		var o Obj
		if err := l.Unmarshal(objJSON, &o); err != nil {
			t.Fatalf("%s: %v", l.Name, err)
		}
		if !reflect.DeepEqual(o, objValue) || !o.CreatedAt.Equal(objValue.CreatedAt) {
			t.Errorf("%s: got %+v", l.Name, o)
		}
		var p Page
		if err := l.Unmarshal(pageJSON, &p); err != nil || len(p.Data) != 100 || p.NextCursor != "abc" {
			t.Errorf("%s page: %v %d %q", l.Name, err, len(p.Data), p.NextCursor)
		}
		var o2 Obj
		if err := l.Decode(bytes.NewReader(objJSON), &o2); err != nil || !reflect.DeepEqual(o2, objValue) {
			t.Errorf("%s decode: %v", l.Name, err)
		}
		if _, err := l.Marshal(&objValue); err != nil {
			t.Errorf("%s marshal: %v", l.Name, err)
		}
	}
	var p Page
	if err := StreamPage(bytes.NewReader(pageJSON), &p); err != nil || len(p.Data) != 100 || p.NextCursor != "abc" {
		t.Fatalf("stream: %v", err)
	}
	var p2 Page
	Libs[0].Unmarshal(pageJSON, &p2)
	if !reflect.DeepEqual(p, p2) {
		t.Fatal("stream mismatch")
	}
	t.Logf("obj %d bytes, page %d bytes", len(objJSON), len(pageJSON))
}

func BenchmarkUnmarshal(b *testing.B) {
	for _, l := range Libs {
		b.Run("lib="+l.Name, func(b *testing.B) {
			b.SetBytes(int64(len(objJSON)))
			b.ReportAllocs()
			for b.Loop() {
				var o Obj
				if err := l.Unmarshal(objJSON, &o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchReader(b *testing.B, data []byte, dec func(io.Reader, any) error, mk func() any) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	r := new(body)
	for b.Loop() {
		r.r.Reset(data)
		if err := dec(r, mk()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalReader(b *testing.B) {
	mk := func() any { return new(Obj) }
	for _, l := range Libs {
		b.Run("lib="+l.Name+"/how="+l.DecodeName, func(b *testing.B) { benchReader(b, objJSON, l.Decode, mk) })
		b.Run("lib="+l.Name+"/how=ReadAll", func(b *testing.B) { benchReader(b, objJSON, readAllUnmarshal(l.Unmarshal), mk) })
	}
}

func BenchmarkMarshal(b *testing.B) {
	for _, l := range Libs {
		b.Run("lib="+l.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.Marshal(&objValue); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPage(b *testing.B) {
	for _, l := range Libs {
		b.Run("lib="+l.Name, func(b *testing.B) {
			b.SetBytes(int64(len(pageJSON)))
			b.ReportAllocs()
			for b.Loop() {
				var p Page
				if err := l.Unmarshal(pageJSON, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPageV2: go-json-experiment only, []byte vs reader vs one-pass jsontext streaming.
func BenchmarkPageV2(b *testing.B) {
	mk := func() any { return new(Page) }
	for _, c := range []struct {
		name string
		opts []jsonv2.Options
	}{{"v2", nil}, {"kit", []jsonv2.Options{optsKit}}, {"v2v1opts", []jsonv2.Options{optsV1}}} {
		b.Run("lib="+c.name+"/how=UnmarshalRead", func(b *testing.B) {
			benchReader(b, pageJSON, func(r io.Reader, v any) error { return jsonv2.UnmarshalRead(r, v, c.opts...) }, mk)
		})
		b.Run("lib="+c.name+"/how=Stream", func(b *testing.B) {
			benchReader(b, pageJSON, func(r io.Reader, v any) error { return StreamPage(r, v.(*Page), c.opts...) }, mk)
		})
	}
	b.Run("lib=std/how=NewDecoder", func(b *testing.B) { benchReader(b, pageJSON, Libs[0].Decode, mk) })
}
