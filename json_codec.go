package kit

// MarshalJSON returns the JSON of v as kit encodes a request body: the
// `json` tags and semantics of encoding/json, on kit's codec
// (github.com/go-json-experiment/json), with what only the codec reads,
// such as a [UnknownFields] field tagged `json:",embed"`, whose members
// are written after the named ones. encoding/json would write that field
// as a member of its own: a model with one, encoded by a MarshalJSON
// method of its own or by a union holding it, goes through this function.
func MarshalJSON(v any) ([]byte, error) { return marshalJSON(v) }

// UnmarshalJSON decodes data into v as kit decodes a result, with the
// semantics of [MarshalJSON]: the members v's fields do not name go to
// its [UnknownFields] field, when it has one.
func UnmarshalJSON(data []byte, v any) error { return unmarshalJSON(data, v) }
