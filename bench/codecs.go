// Package bench compares JSON codecs on the work an API client does, to
// justify the codec kit uses. It is its own module so that kit's users do
// not download the codecs compared here. Run:
//
//	cd bench && go test -run '^$' -bench . -benchmem -count 6 | tee new.txt
package bench

import (
	"bytes"
	stdjson "encoding/json"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	gojson "github.com/goccy/go-json"
)

var (
	// optsKit is what kit uses (see kit's json.go): encoding/json semantics
	// on the v2 engine, without legacy error reporting.
	optsKit = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))
	// optsV1 is the full v1 compatibility set, legacy errors included.
	optsV1 = jsonv1.DefaultOptionsV1()
)

// Lib is one JSON implementation and configuration under test.
type Lib struct {
	Name      string
	Marshal   func(v any) ([]byte, error)
	Unmarshal func(b []byte, v any) error
	// Decode is the idiomatic streaming decode from an io.Reader.
	Decode     func(r io.Reader, v any) error
	DecodeName string
}

func readAllUnmarshal(u func([]byte, any) error) func(io.Reader, any) error {
	return func(r io.Reader, v any) error {
		b, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		return u(b, v)
	}
}

func v2Lib(name string, opts ...jsonv2.Options) Lib {
	return Lib{
		Name:       name,
		Marshal:    func(v any) ([]byte, error) { return jsonv2.Marshal(v, opts...) },
		Unmarshal:  func(b []byte, v any) error { return jsonv2.Unmarshal(b, v, opts...) },
		Decode:     func(r io.Reader, v any) error { return jsonv2.UnmarshalRead(r, v, opts...) },
		DecodeName: "UnmarshalRead",
	}
}

// Libs are the codecs compared. bytedance/sonic, segmentio/encoding and
// json-iterator were measured once too (see kit's closing notes on the
// codec choice) but are left out here: sonic's native path is tied to each
// Go release, json-iterator is unmaintained.
var Libs = []Lib{
	{Name: "std", Marshal: stdjson.Marshal, Unmarshal: stdjson.Unmarshal,
		Decode: func(r io.Reader, v any) error { return stdjson.NewDecoder(r).Decode(v) }, DecodeName: "NewDecoder"},
	v2Lib("kit", optsKit),
	v2Lib("v2v1opts", optsV1),
	v2Lib("v2"),
	{Name: "goccy", Marshal: gojson.Marshal, Unmarshal: gojson.Unmarshal,
		Decode: func(r io.Reader, v any) error { return gojson.NewDecoder(r).Decode(v) }, DecodeName: "NewDecoder"},
}

// body hides the concrete reader type, like an http.Response.Body.
type body struct{ r bytes.Reader }

func (b *body) Read(p []byte) (int, error) { return b.r.Read(p) }
