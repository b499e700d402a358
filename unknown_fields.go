package kit

import "github.com/go-json-experiment/json/jsontext"

// UnknownFields holds the members of a JSON object that its model's fields
// do not name, each as its raw JSON value. A model keeps them with a field
// of this type tagged `json:",embed"` (the codec's embedded fallback):
//
//	type Pet struct {
//		Name  string             `json:"name"`
//		Extra kit.UnknownFields `json:",embed"`
//	}
//
// Decoding a response (a result, a page's records, an error model) puts
// in Extra every member other than "name", and encoding a request body
// writes them back after the named ones: a model read, changed and sent
// again loses nothing the server added after the model was written. It
// is nil when the object has no other member. A model has at most one
// such field; a field of type [jsontext.Value] tagged the same way keeps
// them as one object instead. Without the tag, the field is a member
// named "Extra" like any other.
//
// It is a map: a value read concurrently must not be changed.
type UnknownFields map[string]jsontext.Value
