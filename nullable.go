package kit

import (
	"reflect"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Nullable is an optional field with three states: absent (the zero
// value), null, or a value. It is what a PATCH needs to send
// "nickname": null (clear it), "active": false and "limit": 0 next to
// fields it leaves alone, and what a result needs to tell a missing key
// from a null one.
//
// In JSON bodies and results, tag the field `json:",omitzero"`: an absent
// field is left out, a null one is written null, and a value as T is
// written. Decoding gives absent for a missing key, null for null, and the
// value otherwise (an absent field tagged without omitzero is written
// null, as JSON has no other way to say nothing). In forms and queries an
// absent field is left out and a null one is sent as an empty value
// ("nickname="); headers likewise.
//
// Validation tags on a Nullable field apply to its value when there is
// one; absent and null are nil to the validator, as a nil pointer is: tag
// the field `validate:"omitempty,min=3"` to let them pass, or "required"
// to demand a value.
//
// Nullable implements the JSON interfaces of both encoding/json and kit's
// codec (github.com/go-json-experiment/json), so a model that uses it
// works with either.
type Nullable[T any] struct {
	v     T
	state nullState
}

// Value returns a Nullable holding v.
func Value[T any](v T) Nullable[T] { return Nullable[T]{v: v, state: nullValue} }

// Null returns a Nullable that is null.
func Null[T any]() Nullable[T] { return Nullable[T]{state: nullNull} }

// Get returns the value, and whether there is one (false for absent and
// null).
func (n Nullable[T]) Get() (T, bool) { return n.v, n.state == nullValue }

// IsNull reports whether n is null.
func (n Nullable[T]) IsNull() bool { return n.state == nullNull }

// IsZero reports whether n is absent: a field tagged omitzero is then left
// out of JSON.
func (n Nullable[T]) IsZero() bool { return n.state == nullAbsent }

// String returns the value formatted as by fmt's %v, "null", or "absent".
func (n Nullable[T]) String() string {
	switch n.state {
	case nullNull:
		return "null"
	case nullValue:
		b, err := json.Marshal(n.v, jsonOpts)
		if err != nil {
			return "<" + err.Error() + ">"
		}
		return string(b)
	}
	return "absent"
}

// MarshalJSONTo writes null, or the value with the encoder's options
// (kit's codec).
func (n Nullable[T]) MarshalJSONTo(enc *jsontext.Encoder) error {
	if n.state != nullValue {
		return enc.WriteToken(jsontext.Null)
	}
	return json.MarshalEncode(enc, n.v)
}

// UnmarshalJSONFrom reads null, or a value of T (kit's codec).
func (n *Nullable[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == 'n' {
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		*n = Nullable[T]{state: nullNull}
		return nil
	}
	var v T
	if err := json.UnmarshalDecode(dec, &v); err != nil {
		return err
	}
	*n = Nullable[T]{v: v, state: nullValue}
	return nil
}

// MarshalJSON is MarshalJSONTo for encoding/json.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != nullValue {
		return []byte("null"), nil
	}
	return json.Marshal(n.v, jsonOpts)
}

// UnmarshalJSON is UnmarshalJSONFrom for encoding/json.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Nullable[T]{state: nullNull}
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v, jsonOpts); err != nil {
		return err
	}
	*n = Nullable[T]{v: v, state: nullValue}
	return nil
}

// Private implementation past this point.

type nullState uint8

const (
	nullAbsent nullState = iota
	nullNull
	nullValue
)

// nullable marks every Nullable[T] for kit's routing, forms and
// validation, and names its T.
type nullable interface {
	nullableType() reflect.Type
	nullableAny() (v any, state nullState)
}

func (n Nullable[T]) nullableAny() (any, nullState) {
	if n.state != nullValue {
		return nil, n.state
	}
	return n.v, n.state
}

// nullableParts returns the value (when there is one) and the state of v,
// a Nullable[T], by its fields: v may have been reached through an
// unexported embedded struct, where Interface is not allowed.
func nullableParts(v reflect.Value) (reflect.Value, nullState) {
	if v.CanInterface() {
		inner, state := v.Interface().(nullable).nullableAny()
		if state != nullValue {
			return reflect.Value{}, state
		}
		// A value of T itself (T may be an interface type), addressable.
		out := reflect.New(v.Type().Field(0).Type).Elem()
		if inner != nil {
			out.Set(reflect.ValueOf(inner))
		}
		return out, state
	}
	state := nullState(v.Field(1).Uint())
	if state != nullValue {
		return reflect.Value{}, state
	}
	return v.Field(0), state
}

func (Nullable[T]) nullableType() reflect.Type { return reflect.TypeFor[T]() }

var nullableIface = reflect.TypeFor[nullable]()

// isNullableType reports whether t is a Nullable[T].
func isNullableType(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.Implements(nullableIface)
}

// nullableInner returns the T of the Nullable[T] type t.
func nullableInner(t reflect.Type) reflect.Type {
	return reflect.Zero(t).Interface().(nullable).nullableType()
}

// nullableValidated is the value go-playground/validator sees of a
// Nullable field: its value, or nil for absent and null.
func nullableValidated(v reflect.Value) any {
	inner, state := v.Interface().(nullable).nullableAny()
	if state != nullValue {
		return nil
	}
	return inner
}

// nullableFormatter formats a Nullable[T] parameter (query, header,
// path), which the routing rules class as Scalar when T is one: absent is
// left out, null is an empty value, and a value is formatted as T is.
func nullableFormatter(t reflect.Type) formatter {
	format := classify(nullableInner(t)).format
	return func(v reflect.Value) (string, bool, error) {
		val, state := nullableParts(v)
		switch state {
		case nullAbsent:
			return "", false, nil
		case nullNull:
			return "", true, nil
		}
		return format(val)
	}
}
