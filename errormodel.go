package kit

import (
	"bytes"
	"fmt"
	"reflect"
)

// WithErrorModel declares the API's error model: the JSON body of every
// non-2xx response is decoded into a new E and kept, as a *E, in
// HTTPError.Model (nil when the body is empty or does not decode into E).
// When *E implements error, errors.As finds it through the [*HTTPError]:
//
//	var apiErr *APIError // *APIError implements error
//	if errors.As(err, &apiErr) { ... apiErr.Code ... }
//
// It is both an [Option] (the model of every request of the client: endpoint
// calls, resource operations, the pages of walks) and an [EndpointOption]
// (that endpoint's model, which wins over the client's). The body is read
// once, within [MaxErrorBodySize], and decoded once, whatever the number of
// interceptors that look at the error.
func WithErrorModel[E any]() ClientEndpointOption {
	return errorModelOption{&errorModel{typ: reflect.TypeFor[E](), decode: func(body []byte) any {
		v := new(E)
		if unmarshalJSON(body, v) != nil {
			return nil
		}
		return v
	}}}
}

// Private implementation past this point.

// errorModel decodes error bodies into one type.
type errorModel struct {
	typ    reflect.Type
	decode func(body []byte) any // a *E, or nil when body is not that JSON
}

// model decodes body, or returns nil.
func (m *errorModel) model(body []byte) any {
	if m == nil {
		return nil
	}
	b := bytes.TrimSpace(body)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	return m.decode(b)
}

// errorModelOption is WithErrorModel. It holds a pointer, so it stays
// comparable.
type errorModelOption struct{ m *errorModel }

func (o errorModelOption) applyClient(c *clientConfig) error {
	c.errorModel = o.m
	return nil
}

func (o errorModelOption) applyEndpoint(c *endpointConfig) { c.errorModel = o.m }

func (o errorModelOption) String() string { return fmt.Sprintf("kit.WithErrorModel[%s]()", o.m.typ) }
