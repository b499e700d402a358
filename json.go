package kit

import (
	"errors"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/kithttp/kit/internal/jsonpath"
)

// Private implementation past this point.
//
// Every JSON encode and decode in kit goes through this file, so the codec
// is chosen in one place. kit uses github.com/go-json-experiment/json, the
// implementation behind Go's encoding/json/v2 proposal, with the options
// that reproduce encoding/json (v1) semantics for struct tags, omitempty,
// case-insensitive field matching and nil slices: users' `json` tags behave
// exactly as they do with encoding/json, at the v2 engine's speed. Its
// jsontext decoder also lets a page be read in one pass (see page.go).

// jsonOpts are encoding/json's semantics on the v2 engine, except for
// legacy error reporting: that option makes the decoder validate a whole
// value before decoding it, reading every body twice (measured 1.2-1.5x
// slower on a 100-record page). Errors are the v2 types instead, which
// carry the byte offset kit reports in DecodeError.
var jsonOpts = json.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

func marshalJSON(v any) ([]byte, error) { return json.Marshal(v, jsonOpts) }

func unmarshalJSON(data []byte, v any) error { return json.Unmarshal(data, v, jsonOpts) }

// unmarshalDecode decodes the next value of dec into v.
func unmarshalDecode(dec *jsontext.Decoder, v any) error {
	return json.UnmarshalDecode(dec, v, jsonOpts)
}

// jsonErrorOffset returns the byte offset a decoding error points at, or -1.
func jsonErrorOffset(err error) int64 {
	var pe *jsonpath.SyntaxError
	if errors.As(err, &pe) {
		return pe.Offset
	}
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return se.ByteOffset
	}
	var me *json.SemanticError
	if errors.As(err, &me) {
		return me.ByteOffset
	}
	var v1se *jsonv1.SyntaxError
	if errors.As(err, &v1se) {
		return v1se.Offset
	}
	var v1te *jsonv1.UnmarshalTypeError
	if errors.As(err, &v1te) {
		return v1te.Offset
	}
	return -1
}
