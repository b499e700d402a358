package kit

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/routing"
)

// FormStyle is how a form body writes a slice of scalars: the key
// repeated, with empty brackets, or with indexes. Nested values (maps,
// structs, slices of them) are written in the bracket convention of Rails,
// PHP and Stripe whatever the style: `k[key]=v`, `k[0][key]=v`.
type FormStyle int

// The form styles.
const (
	FormRepeat   FormStyle = iota // tags=a&tags=b (the default)
	FormBrackets                  // tags[]=a&tags[]=b (Rails, PHP)
	FormIndexed                   // tags[0]=a&tags[1]=b (Stripe)
)

// String returns the style's name: "kit.FormIndexed".
func (s FormStyle) String() string {
	switch s {
	case FormRepeat:
		return "kit.FormRepeat"
	case FormBrackets:
		return "kit.FormBrackets"
	case FormIndexed:
		return "kit.FormIndexed"
	}
	return "kit.FormStyle(" + strconv.Itoa(int(s)) + ")"
}

// FormBody declares an endpoint whose body model is sent as
// application/x-www-form-urlencoded (an OAuth2 token endpoint, an HTML
// form, Stripe's API) instead of JSON. The model's fields are the form
// fields, named as in their json tags (so one model serves both encodings;
// omitempty and omitzero are honoured, "-" leaves a field out), with
// values in the text forms of query parameters. The model is validated
// before anything is sent, as a JSON body is.
//
// Nested values are written in the bracket convention of Rails, PHP and
// Stripe, to any depth: a map or struct field k gives k[key]=v, a slice of
// structs or maps k[0][key]=v, and a slice of scalars is written in the
// style given (FormRepeat when none: tags=a&tags=b). A Nullable field that
// is null is an empty value; nil pointers, maps, slices and interfaces, and
// empty slices and maps, send nothing. A nested value whose type has its
// own JSON form (a json.Marshaler, such as a union kitgen generates) is
// written as that JSON is: objects in brackets, arrays at indexes, null as
// nothing; a union so sends the variant it holds. So
// FormBody(kit.FormIndexed) sends what Stripe expects:
//
//	metadata[order_id]=6735&expand[0]=customer&items[0][price]=price_1
//
// A value no form can express is a *DeclarationError at declaration (a map
// whose keys are not strings, a channel, a func, a kit.File: upload files
// with Multipart) or an error before anything is sent (a map key that is
// empty or holds a bracket, a value that contains itself, nesting deeper
// than 32 levels). Keys are written in sorted order. It is a declaration
// trait: an [EndpointOption] only.
func FormBody(style ...FormStyle) EndpointOption {
	o := bodyEncOption{enc: encForm}
	switch {
	case len(style) > 1:
		o.problem = fmt.Sprintf("FormBody takes one FormStyle, not %d", len(style))
	case len(style) == 1 && (style[0] < FormRepeat || style[0] > FormIndexed):
		o.problem = fmt.Sprintf("FormBody(%v): not a FormStyle", style[0])
	case len(style) == 1:
		o.style = style[0]
	}
	return o
}

// Private implementation past this point.
//
// A form body is encoded by walking the model with a plan per Go type
// (formNode, built once per type and cached): the field names and omit
// rules of structs, how each kind of value is written. Values of interface
// type are planned by their dynamic type when met. The walk keeps the
// pointers, maps and slices on its current path, so a value that contains
// itself is an error, never an endless loop.

// maxFormDepth bounds the nesting of a form value.
const maxFormDepth = 32

type formNodeKind uint8

const (
	fnScalar   formNodeKind = iota // one text value
	fnBytes                        // a []byte: its bytes as text
	fnNullable                     // a Nullable[T]: absent, null (""), or elem
	fnPointer                      // elem, unless nil
	fnDynamic                      // an interface: planned by the value it holds
	fnSlice                        // slice or array of elem
	fnMap                          // map with string keys, of elem
	fnStruct                       // fields
	fnJSON                         // a type with its own JSON form (a union): written as its JSON is
)

// formNode is how values of one Go type are written in a form.
type formNode struct {
	kind   formNodeKind
	typ    reflect.Type
	format formatter // fnScalar, fnBytes
	elem   *formNode // fnNullable, fnPointer, fnSlice, fnMap
	fields []formNodeField
}

type formNodeField struct {
	index  []int
	goName string
	name   string
	omit   omitRule
	node   *formNode // a form's: how its value is written in brackets

	// A multipart body's (see multipartPlanFor): the part it is.
	part  routing.FormKind
	class *typeClass
}

var formNodes sync.Map // reflect.Type -> *formNode or error

// formNodeFor returns the plan of type t, or why no form can express it.
func formNodeFor(t reflect.Type) (*formNode, error) {
	if n, ok := formNodes.Load(t); ok {
		if err, isErr := n.(error); isErr {
			return nil, err
		}
		return n.(*formNode), nil
	}
	n, err := buildFormNode(t, map[reflect.Type]*formNode{}, false)
	if err != nil {
		formNodes.Store(t, err)
		return nil, err
	}
	actual, _ := formNodes.LoadOrStore(t, n)
	if err, isErr := actual.(error); isErr {
		return nil, err
	}
	return actual.(*formNode), nil
}

var formModels sync.Map // reflect.Type -> *formNode or error

// formModelFor returns the plan of the form body model type t (a struct,
// or a pointer to one). The model's fields are the form's fields even when
// it has a JSON form of its own; its nested values with one are written as
// their JSON is.
func formModelFor(t reflect.Type) (*formNode, error) {
	st := t
	for st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	if !hasOwnJSON(st) {
		return formNodeFor(t)
	}
	if n, ok := formModels.Load(t); ok {
		if err, isErr := n.(error); isErr {
			return nil, err
		}
		return n.(*formNode), nil
	}
	n, err := buildFormNode(t, map[reflect.Type]*formNode{}, true)
	if err != nil {
		formModels.Store(t, err)
		return nil, err
	}
	formModels.Store(t, n)
	return n, nil
}

var (
	jsonMarshalerType   = reflect.TypeFor[interface{ MarshalJSON() ([]byte, error) }]()
	jsonMarshalerToType = reflect.TypeFor[interface {
		MarshalJSONTo(*jsontext.Encoder) error
	}]()
)

// hasOwnJSON reports whether values of t (not a pointer or interface)
// write their own JSON (json.Marshaler, by value or pointer): a union, a
// type with a custom form.
func hasOwnJSON(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface {
		return false
	}
	pt := reflect.PointerTo(t)
	return pt.Implements(jsonMarshalerType) || pt.Implements(jsonMarshalerToType)
}

// buildFormNode plans t; building holds the types being planned, so a
// recursive type (a tree) refers to its own node. model is set for the
// body model (and the pointers to it), whose fields are walked even when
// it has a JSON form of its own.
func buildFormNode(t reflect.Type, building map[reflect.Type]*formNode, model bool) (*formNode, error) {
	if n, ok := building[t]; ok {
		return n, nil
	}
	n := &formNode{typ: t}
	building[t] = n
	if isNullableType(t) {
		n.kind = fnNullable
		elem, err := buildFormNode(nullableInner(t), building, false)
		n.elem = elem
		return n, err
	}
	switch c := classify(t); c.Kind {
	case routing.File, routing.FileSlice:
		return nil, errors.New(routing.Tags.NestedFormFile(t.String()))
	case routing.Bytes:
		n.kind, n.format = fnBytes, c.format
		return n, nil
	case routing.Scalar:
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || !isModelType(t.Elem()) {
			n.kind, n.format = fnScalar, c.format
			return n, nil
		}
	}
	if !model && hasOwnJSON(t) {
		n.kind = fnJSON
		return n, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		n.kind = fnPointer
		elem, err := buildFormNode(t.Elem(), building, model)
		n.elem = elem
		return n, err
	case reflect.Interface:
		if t.NumMethod() > 0 {
			return nil, noFormOf(t)
		}
		n.kind = fnDynamic
		return n, nil
	case reflect.Slice, reflect.Array:
		n.kind = fnSlice
		elem, err := buildFormNode(t.Elem(), building, false)
		n.elem = elem
		return n, err
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, errors.New(routing.FormMapKey(t.String(), t.Key().String()))
		}
		n.kind = fnMap
		elem, err := buildFormNode(t.Elem(), building, false)
		n.elem = elem
		return n, err
	case reflect.Struct:
		n.kind = fnStruct
		var err error
		n.fields, err = formStructFields(t, func(sf reflect.StructField, f *formNodeField) error {
			if k := classify(sf.Type).Kind; k == routing.File || k == routing.FileSlice {
				return fmt.Errorf("field %s of %s is a kit.File: a form has text fields only; declare the endpoint with kit.Multipart() to upload files", sf.Name, t)
			}
			if why := routing.FormKeyProblem(f.name); why != "" {
				return fmt.Errorf("field %s of %s: %s", sf.Name, t, why)
			}
			node, err := buildFormNode(sf.Type, building, false)
			if err != nil {
				return fmt.Errorf("field %s of %s: %w", sf.Name, t, err)
			}
			f.node = node
			return nil
		})
		return n, err
	}
	return nil, noFormOf(t)
}

// formStructFields lists the fields of struct t that a form or a multipart
// body sends, named and left out as encoding/json names and leaves them
// out (the json tag's name, omitempty and omitzero; "-" and unexported
// fields are not sent; an embedded struct's fields are promoted). plan
// completes each field, in order: the node of a form's, the part of a
// multipart body's.
func formStructFields(t reflect.Type, plan func(sf reflect.StructField, f *formNodeField) error) ([]formNodeField, error) {
	var fields []formNodeField
	for _, sf := range reflect.VisibleFields(t) {
		name, promoted, skip := jsonFieldName(sf)
		if skip || promoted {
			continue
		}
		f := formNodeField{index: sf.Index, goName: sf.Name, name: name, omit: jsonOmitRule(sf.Tag)}
		if err := plan(sf, &f); err != nil {
			return nil, err
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// noFormOf says why no form can write a value of type t.
func noFormOf(t reflect.Type) error {
	if c := classify(t); c.Why != "" {
		return errors.New(routing.TypeProblem(t.String(), c.Why))
	}
	return fmt.Errorf("type %s cannot be sent in a form", t)
}

// jsonFieldName is a struct field's JSON name, as encoding/json names it:
// the json tag's name, else the Go name. promoted is set for an embedded
// struct without a name (its fields are promoted); skip for "-" and
// unexported fields.
func jsonFieldName(sf reflect.StructField) (name string, promoted, skip bool) {
	tag := sf.Tag.Get("json")
	if tag == "-" {
		return "", false, true
	}
	name, _, _ = strings.Cut(tag, ",")
	if sf.Anonymous && name == "" {
		st := sf.Type
		if st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		if st.Kind() == reflect.Struct {
			return "", true, false
		}
	}
	if !sf.IsExported() {
		return "", false, true
	}
	if name == "" {
		name = sf.Name
	}
	return name, false, false
}

// omitRule is what a json tag's omitempty and omitzero say.
type omitRule uint8

const (
	omitIfEmpty omitRule = 1 << iota // omitempty: false, 0, "", nil, empty slice or map
	omitIfZero                       // omitzero: the zero value, or IsZero() true
)

// jsonOmitRule reads omitempty and omitzero from a field's json tag.
func jsonOmitRule(tag reflect.StructTag) omitRule {
	_, opts, _ := strings.Cut(tag.Get("json"), ",")
	var r omitRule
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		switch o {
		case "omitempty":
			r |= omitIfEmpty
		case "omitzero":
			r |= omitIfZero
		}
	}
	return r
}

// isEmptyJSON is encoding/json's notion of empty, for omitempty.
func isEmptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

type isZeroer interface{ IsZero() bool }

// omits reports whether the rule leaves the value v out.
func (r omitRule) omits(v reflect.Value) bool {
	if r&omitIfEmpty != 0 && isEmptyJSON(v) {
		return true
	}
	if r&omitIfZero != 0 {
		if !v.CanInterface() { // reached through an unexported embedded struct
			return v.IsZero()
		}
		if z, ok := v.Interface().(isZeroer); ok && (v.Kind() != reflect.Pointer || !v.IsNil()) {
			return z.IsZero()
		}
		return v.IsZero()
	}
	return false
}

// formWriter writes the values of one form body (or query) into values.
type formWriter struct {
	style  FormStyle
	values url.Values
	path   []formRef // pointers, maps and slices being written: a repeat is a cycle
}

// encodeNestedForm encodes the body model v (a struct or a pointer to one)
// as application/x-www-form-urlencoded.
func encodeNestedForm(v reflect.Value, style FormStyle) ([]byte, error) {
	n, err := formModelFor(v.Type())
	if err != nil {
		return nil, err
	}
	w := formWriter{style: style, values: url.Values{}}
	if err := w.write("", v, n, 0); err != nil {
		return nil, err
	}
	return []byte(w.values.Encode()), nil
}

// subKey is key[name], or name at the top level.
func subKey(key, name string) string {
	if key == "" {
		return name
	}
	return key + "[" + name + "]"
}

// scalarNode reports whether values of n are written as one text value
// (so a slice of them follows the style), resolving pointers.
func scalarNode(n *formNode) bool {
	for n.kind == fnPointer || n.kind == fnNullable {
		n = n.elem
	}
	return n.kind == fnScalar || n.kind == fnBytes
}

// write writes v (planned by n) at key.
func (w *formWriter) write(key string, v reflect.Value, n *formNode, depth int) error {
	if depth > maxFormDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", keyName(key), maxFormDepth)
	}
	switch n.kind {
	case fnScalar, fnBytes:
		s, ok, err := n.format(v)
		if err != nil {
			return fmt.Errorf("%s: %w", keyName(key), err)
		}
		if ok {
			w.add(key, s)
		}
		return nil
	case fnNullable:
		inner, state := nullableParts(v)
		switch state {
		case nullAbsent:
			return nil
		case nullNull:
			w.add(key, "")
			return nil
		}
		return w.write(key, inner, n.elem, depth+1)
	case fnPointer:
		if v.IsNil() {
			return nil
		}
		return w.within(key, v, func() error { return w.write(key, v.Elem(), n.elem, depth+1) })
	case fnDynamic:
		if v.IsNil() {
			return nil
		}
		inner := v.Elem()
		dn, err := formNodeFor(inner.Type())
		if err != nil {
			return fmt.Errorf("%s: %w", keyName(key), err)
		}
		return w.write(key, inner, dn, depth+1)
	case fnSlice:
		if v.Kind() == reflect.Slice {
			if v.IsNil() || v.Len() == 0 {
				return nil
			}
			return w.within(key, v, func() error { return w.writeSlice(key, v, n, depth) })
		}
		return w.writeSlice(key, v, n, depth)
	case fnMap:
		if v.IsNil() || v.Len() == 0 {
			return nil
		}
		return w.within(key, v, func() error {
			it := v.MapRange()
			for it.Next() {
				k := it.Key().String()
				if k == "" || strings.ContainsAny(k, "[]") {
					return fmt.Errorf("%s: map key %q cannot be written in a bracketed form key", keyName(key), k)
				}
				if err := w.write(subKey(key, k), it.Value(), n.elem, depth+1); err != nil {
					return err
				}
			}
			return nil
		})
	case fnJSON:
		return w.writeJSON(key, v, depth)
	case fnStruct:
		for i := range n.fields {
			f := &n.fields[i]
			fv, err := v.FieldByIndexErr(f.index)
			if err != nil || (f.omit != 0 && f.omit.omits(fv)) {
				continue
			}
			if err := w.write(subKey(key, f.name), fv, f.node, depth+1); err != nil {
				if key == "" {
					return fmt.Errorf("field %s: %w", f.goName, err)
				}
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: cannot be written in a form", keyName(key))
}

// writeSlice writes the elements of a slice or array: scalars in the
// writer's style, anything else at an index.
func (w *formWriter) writeSlice(key string, v reflect.Value, n *formNode, depth int) error {
	if n.elem.kind == fnDynamic && w.style != FormIndexed {
		if err := checkUniform(key, v, w.style); err != nil {
			return err
		}
	}
	for i := 0; i < v.Len(); i++ {
		ev, en := v.Index(i), n.elem
		if en.kind == fnDynamic {
			if ev.IsNil() {
				continue
			}
			ev = ev.Elem()
			var err error
			if en, err = formNodeFor(ev.Type()); err != nil {
				return fmt.Errorf("%s: element %d: %w", keyName(key), i, err)
			}
		}
		k := key + "[" + strconv.Itoa(i) + "]"
		if scalarNode(en) {
			switch w.style {
			case FormRepeat:
				k = key
			case FormBrackets:
				k = key + "[]"
			}
		}
		if err := w.write(k, ev, en, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// formRef is a pointer, map or slice on a formWriter's path: its address
// and type (a struct and its first field share an address).
type formRef struct {
	p uintptr
	t reflect.Type
}

// checkUniform refuses a slice of interfaces that holds both scalars and
// nested values in a style without indexes: tags=a&tags[1][k]=v cannot be
// read back.
func checkUniform(key string, v reflect.Value, style FormStyle) error {
	scalars, nested := false, false
	for i := 0; i < v.Len(); i++ {
		ev := v.Index(i)
		if ev.IsNil() {
			continue
		}
		n, err := formNodeFor(ev.Elem().Type())
		if err != nil {
			return fmt.Errorf("%s: element %d: %w", keyName(key), i, err)
		}
		if scalarNode(n) {
			scalars = true
		} else {
			nested = true
		}
	}
	if scalars && nested {
		return fmt.Errorf("%s: a slice that holds both scalars and nested values cannot be written in %v; use kit.FormIndexed", keyName(key), style)
	}
	return nil
}

// within runs fn with v (a pointer, map or slice) on the writer's path; v
// already on it is a cycle.
func (w *formWriter) within(key string, v reflect.Value, fn func() error) error {
	p := formRef{v.Pointer(), v.Type()}
	for _, q := range w.path {
		if q == p {
			return fmt.Errorf("%s: %w", keyName(key), errFormCycle)
		}
	}
	w.path = append(w.path, p)
	err := fn()
	w.path = w.path[:len(w.path)-1]
	return err
}

var errFormCycle = errors.New("the value contains itself (a cycle), which a form cannot express")

func (w *formWriter) add(key, s string) {
	w.values[key] = append(w.values[key], s)
}

// keyName names a form key in an error.
func keyName(key string) string {
	if key == "" {
		return "the body"
	}
	return "key " + strconv.Quote(key)
}

// writeJSON writes v, of a type with its own JSON form, as that JSON is:
// an object's members in brackets (key[name]=v), an array's elements at
// indexes (scalars in the writer's style), a string, number or boolean as
// its text; null writes nothing. A union is so written as the variant it
// holds.
func (w *formWriter) writeJSON(key string, v reflect.Value, depth int) error {
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		return nil
	}
	if !v.CanInterface() {
		return fmt.Errorf("%s: a value with its own JSON form, reached through an unexported embedded struct, cannot be read", keyName(key))
	}
	b, err := marshalJSON(addressable(v).Addr().Interface())
	if err != nil {
		return fmt.Errorf("%s: %w", keyName(key), err)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	return w.writeJSONValue(key, dec, depth)
}

// writeJSONValue writes the next JSON value of dec at key.
func (w *formWriter) writeJSONValue(key string, dec *jsontext.Decoder, depth int) error {
	if depth > maxFormDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", keyName(key), maxFormDepth)
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return fmt.Errorf("%s: reading its JSON: %w", keyName(key), err)
	}
	switch tok.Kind() {
	case 'n':
		return nil
	case 't', 'f':
		w.add(key, strconv.FormatBool(tok.Bool()))
		return nil
	case '"':
		if key == "" {
			return errors.New("the body: its JSON is not an object")
		}
		w.add(key, tok.String())
		return nil
	case '0':
		if key == "" {
			return errors.New("the body: its JSON is not an object")
		}
		w.add(key, tok.String())
		return nil
	case '{':
		for dec.PeekKind() != '}' {
			name, err := dec.ReadToken()
			if err != nil {
				return fmt.Errorf("%s: reading its JSON: %w", keyName(key), err)
			}
			k := name.String()
			if k == "" || strings.ContainsAny(k, "[]") {
				return fmt.Errorf("%s: member %q cannot be written in a bracketed form key", keyName(key), k)
			}
			if err := w.writeJSONValue(subKey(key, k), dec, depth+1); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	case '[':
		if key == "" {
			return errors.New("the body: its JSON is not an object")
		}
		for i := 0; dec.PeekKind() != ']'; i++ {
			k := key + "[" + strconv.Itoa(i) + "]"
			switch kind := dec.PeekKind(); {
			case kind == '{' || kind == '[' || w.style == FormIndexed:
			case w.style == FormBrackets:
				k = key + "[]"
			default:
				k = key
			}
			if err := w.writeJSONValue(k, dec, depth+1); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	return fmt.Errorf("%s: unexpected JSON %v", keyName(key), tok.Kind())
}
