package kit

// MarshalJSON returns the JSON of v as kit encodes a request body: the
// `json` tags and semantics of encoding/json, on kit's codec
// (github.com/go-json-experiment/json), including what only that codec
// reads, such as an [UnknownFields] field tagged `json:",embed"`, whose
// members are written after the named ones.
//
// Use it, not encoding/json, to encode a model that has such a field
// (every model kitgen openapi generates for an open schema does):
// encoding/json writes the field as a member named after it.
func MarshalJSON(v any) ([]byte, error) { return marshalJSON(v) }

// UnmarshalJSON decodes data into v as kit decodes a result, with the
// semantics of [MarshalJSON]: the members v's fields do not name go to
// its [UnknownFields] field, when it has one.
func UnmarshalJSON(data []byte, v any) error { return unmarshalJSON(data, v) }
