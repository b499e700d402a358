package kit

import (
	"encoding/json"
	"errors"
)

// Private implementation past this point.
//
// Every JSON encode and decode in kit goes through these functions, so the
// codec is chosen in one place.

func marshalJSON(v any) ([]byte, error) { return json.Marshal(v) }

func unmarshalJSON(data []byte, v any) error { return json.Unmarshal(data, v) }

// jsonErrorOffset returns the byte offset a decoding error points at, or -1.
func jsonErrorOffset(err error) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Offset
	}
	return -1
}
