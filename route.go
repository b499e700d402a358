package kit

import (
	"encoding"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kithttp/kit/internal/structtag"
)

// NoParams is the parameter type of an endpoint that takes no parameters.
type NoParams struct{}

// Private implementation past this point.
//
// Parameter routing follows the spec's table, decided once per declaration:
//
//	`kit:",url"` (string or *url.URL) -> the whole URL of the call
//	field named like a {placeholder}  -> URL path, one escaped segment
//	`kit:"Name,header"`              -> request header
//	`kit:",query"` struct             -> its fields, as query parameters
//	kit.File                          -> the raw request body (at most one body)
//	data model (struct, *struct, or a slice of them) -> the body (at most one)
//	map                               -> one query parameter per entry
//	anything else, when not nil       -> query parameter; slices repeat the key
//
// Fields of interface type are routed by the type of the value they hold, at
// call time, with the same rules. Types with no text form that are not a
// body (channels, funcs, io.Reader and other interfaces with methods) and
// []byte (never put into a URL) are refused at declaration.

type route uint8

const (
	routeQuery route = iota
	routePath
	routeHeader
	routeBody
	routeMap
	routeDynamic
	routeFile        // a kit.File: the raw request body
	routeQueryStruct // `kit:",query"`: a struct's fields as query parameters
	routeURL         // `kit:",url"`: the whole URL
)

// typeClass is what kit knows about a Go type for routing, cached per type.
type typeClass struct {
	kind     classKind
	format   formatter // scalar (and pointer-to-scalar) formatting
	elem     formatter // classSlice: formatting of each element
	mapKey   formatter // classMap: key formatting
	mapValue *typeClass
	why      string // classInvalid: why the type cannot be sent, when known
}

type classKind uint8

const (
	classScalar     classKind = iota
	classSlice                // slice or array of scalars: the key repeats
	classModel                // struct or *struct: a JSON body
	classModelSlice           // slice or array of models: a JSON array body
	classMap
	classInterface // decided at call time
	classInvalid
	classFile      // kit.File or *kit.File: a raw body, or a multipart file part
	classFileSlice // a slice of kit.File: multipart file parts only
	classBytes     // []byte or [N]byte: never in the URL; a header, a form value
)

// formatter renders a value as text. ok is false for a nil pointer or
// interface (the parameter is dropped).
type formatter func(v reflect.Value) (s string, ok bool, err error)

var (
	timeType          = reflect.TypeFor[time.Time]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	stringerType      = reflect.TypeFor[fmt.Stringer]()
	noParamsType      = reflect.TypeFor[NoParams]()
	urlValuesType     = reflect.TypeFor[url.Values]()
	fileType          = reflect.TypeFor[File]()
	readerType        = reflect.TypeFor[io.Reader]()
	urlPtrType        = reflect.TypeFor[*url.URL]()
)

// Why some types cannot be parameters, for declaration errors.
const (
	whyBytes  = "a []byte is never sent in the URL; send it as the request body with kit.FileFromBytes, or as a string"
	whyReader = "an io.Reader has no text form and is not a request body; send a body as a kit.File (kit.FileFromBytes, kit.OpenFile, or a File with an Open function)"
	whyNoText = "has no text form and is not a request body"
)

var classCache sync.Map // reflect.Type -> *typeClass

// classify returns how values of type t are routed.
func classify(t reflect.Type) *typeClass {
	if c, ok := classCache.Load(t); ok {
		return c.(*typeClass)
	}
	c := classifyUncached(t, 0)
	actual, _ := classCache.LoadOrStore(t, c)
	return actual.(*typeClass)
}

func classifyUncached(t reflect.Type, depth int) *typeClass {
	if depth > 4 {
		return &typeClass{kind: classInvalid}
	}
	if t == fileType || (t.Kind() == reflect.Pointer && t.Elem() == fileType) {
		return &typeClass{kind: classFile}
	}
	if isReader(t) && !t.Implements(textMarshalerType) && !reflect.PointerTo(t).Implements(textMarshalerType) {
		return &typeClass{kind: classInvalid, why: whyReader}
	}
	if isNullableType(t) {
		return nullableClass(t, depth)
	}
	if isModelType(t) {
		// A struct is a data model even when it has a String method (for
		// logs, as protobuf messages do); that text only fills a placeholder.
		return &typeClass{kind: classModel, format: textFormatter(t)}
	}
	if f := textFormatter(t); f != nil {
		return &typeClass{kind: classScalar, format: f}
	}
	switch t.Kind() {
	case reflect.Pointer:
		inner := classifyUncached(t.Elem(), depth+1)
		if inner.kind != classScalar {
			return &typeClass{kind: classInvalid}
		}
		elemFormat := inner.format
		return &typeClass{kind: classScalar, format: func(v reflect.Value) (string, bool, error) {
			if v.IsNil() {
				return "", false, nil
			}
			return elemFormat(v.Elem())
		}}
	case reflect.Interface:
		if t.NumMethod() > 0 {
			// Its values are routed by their dynamic type at call time,
			// but an interface with methods (io.Reader, error, ...) says
			// what they are for, and it is not a parameter.
			return &typeClass{kind: classInvalid, why: whyNoText + " (an interface with methods)"}
		}
		return &typeClass{kind: classInterface}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &typeClass{kind: classBytes, format: formatBytes, why: whyBytes}
		}
		if t.Elem() == fileType || (t.Elem().Kind() == reflect.Pointer && t.Elem().Elem() == fileType) {
			return &typeClass{kind: classFileSlice, why: "a []kit.File is sent only as file parts of a Multipart() body model"}
		}
		if isModelType(t.Elem()) {
			return &typeClass{kind: classModelSlice}
		}
		inner := classifyUncached(t.Elem(), depth+1)
		switch inner.kind {
		case classScalar:
			return &typeClass{kind: classSlice, elem: inner.format}
		case classInterface:
			return &typeClass{kind: classSlice, elem: formatDynamic}
		}
		return &typeClass{kind: classInvalid, why: inner.why}
	case reflect.Map:
		key := classifyUncached(t.Key(), depth+1)
		if key.kind != classScalar {
			return &typeClass{kind: classInvalid}
		}
		val := classifyUncached(t.Elem(), depth+1)
		switch val.kind {
		case classScalar, classSlice, classInterface:
		case classMap: // a map-valued entry: k[key]=v (deepObject)
			if t.Elem().Key().Kind() != reflect.String {
				return &typeClass{kind: classInvalid, why: "a map-valued entry is sent as k[key]=v, and its keys must be strings"}
			}
		default:
			return &typeClass{kind: classInvalid}
		}
		return &typeClass{kind: classMap, mapKey: key.format, mapValue: val}
	}
	if f := kindFormatter(t.Kind()); f != nil {
		return &typeClass{kind: classScalar, format: f}
	}
	switch t.Kind() {
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return &typeClass{kind: classInvalid, why: whyNoText}
	}
	return &typeClass{kind: classInvalid}
}

// isReader reports whether t (or a pointer to it) is an io.Reader.
func isReader(t reflect.Type) bool {
	if t.Kind() == reflect.Interface {
		return t.Implements(readerType)
	}
	return t.Implements(readerType) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(readerType))
}

// isModelType reports whether t is a data model: a struct or a pointer to
// one, other than time.Time and types that marshal themselves as text (a
// fmt.Stringer struct is a model: API.md excludes only time.Time and
// encoding.TextMarshaler).
func isModelType(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t != timeType && t != fileType && !isNullableType(t) &&
		!reflect.PointerTo(t).Implements(textMarshalerType) && !reflect.PointerTo(t).Implements(readerType)
}

// textFormatter returns a formatter for types with their own text form:
// time.Time (RFC 3339), encoding.TextMarshaler, fmt.Stringer.
func textFormatter(t reflect.Type) formatter {
	switch {
	case t == timeType:
		return func(v reflect.Value) (string, bool, error) {
			return v.Interface().(time.Time).Format(time.RFC3339Nano), true, nil
		}
	case t.Implements(textMarshalerType):
		return nilSafe(t, func(v reflect.Value) (string, bool, error) {
			b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
			return string(b), true, err
		})
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(textMarshalerType):
		return func(v reflect.Value) (string, bool, error) {
			b, err := addressable(v).Addr().Interface().(encoding.TextMarshaler).MarshalText()
			return string(b), true, err
		}
	case t.Implements(stringerType):
		return nilSafe(t, func(v reflect.Value) (string, bool, error) {
			return v.Interface().(fmt.Stringer).String(), true, nil
		})
	case t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(stringerType):
		return func(v reflect.Value) (string, bool, error) {
			return addressable(v).Addr().Interface().(fmt.Stringer).String(), true, nil
		}
	}
	return nil
}

// nilSafe drops nil pointers (and nil interfaces) instead of calling their
// methods.
func nilSafe(t reflect.Type, f formatter) formatter {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface:
		return func(v reflect.Value) (string, bool, error) {
			if v.IsNil() {
				return "", false, nil
			}
			return f(v)
		}
	}
	return f
}

func addressable(v reflect.Value) reflect.Value {
	if v.CanAddr() {
		return v
	}
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}

func kindFormatter(k reflect.Kind) formatter {
	switch k {
	case reflect.String:
		return func(v reflect.Value) (string, bool, error) { return v.String(), true, nil }
	case reflect.Bool:
		return func(v reflect.Value) (string, bool, error) { return strconv.FormatBool(v.Bool()), true, nil }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(v reflect.Value) (string, bool, error) { return strconv.FormatInt(v.Int(), 10), true, nil }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(v reflect.Value) (string, bool, error) { return strconv.FormatUint(v.Uint(), 10), true, nil }
	case reflect.Float32:
		return func(v reflect.Value) (string, bool, error) { return formatFloat(v.Float(), 32) }
	case reflect.Float64:
		return func(v reflect.Value) (string, bool, error) { return formatFloat(v.Float(), 64) }
	}
	return nil
}

// formatFloat writes the shortest text that round-trips, without an
// exponent in the usual range (like encoding/json). NaN and infinities have
// no portable text form and are an error.
func formatFloat(f float64, bits int) (string, bool, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", false, fmt.Errorf("cannot send %v as a parameter", f)
	}
	abs := math.Abs(f)
	fmtByte := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		fmtByte = 'e'
	}
	return strconv.FormatFloat(f, fmtByte, -1, bits), true, nil
}

func formatBytes(v reflect.Value) (string, bool, error) {
	if v.Kind() == reflect.Slice && v.IsNil() {
		return "", false, nil
	}
	if v.Kind() == reflect.Array {
		v = addressable(v).Slice(0, v.Len())
	}
	return string(v.Bytes()), true, nil
}

// formatDynamic formats the value held by an interface by its dynamic type.
func formatDynamic(v reflect.Value) (string, bool, error) {
	for v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "", false, nil
		}
		v = v.Elem()
	}
	c := classify(v.Type())
	if c.kind != classScalar {
		if c.why != "" {
			return "", false, fmt.Errorf("value of %s", typeProblem(v.Type(), c.why))
		}
		return "", false, fmt.Errorf("value of type %s cannot be sent as text", v.Type())
	}
	return c.format(v)
}

// paramField is one field of a parameter struct and where it goes.
type paramField struct {
	index     []int
	goName    string
	name      string
	route     route
	omitEmpty bool // kit omitempty: the zero value is not sent
	omitJSON  omitRule
	class     *typeClass
	sub       *paramPlan // routeQueryStruct: the struct's own plan
}

// paramPlan is how one parameter type is routed, worked out once per
// endpoint declaration (and cached per type for resource queries).
type paramPlan struct {
	isMap    bool // P is a map: every entry is a query parameter
	mapClass *typeClass
	typ      reflect.Type // P
	fields   []paramField
	body     int  // index into fields of the body field, -1 when none
	dynamic  bool // some field is routed by the type it holds, at call time
}

// bodyField returns the body field, or nil.
func (pl *paramPlan) bodyField() *paramField {
	if pl == nil || pl.body < 0 {
		return nil
	}
	return &pl.fields[pl.body]
}

// newParamPlan analyses P for a path with the given placeholders.
func newParamPlan(t reflect.Type, placeholders []string) (*paramPlan, error) {
	pl := &paramPlan{body: -1, typ: t}
	if t == nil {
		return nil, errors.New("parameter type is an interface; use a struct, a map or kit.NoParams")
	}
	switch t.Kind() {
	case reflect.Map:
		c := classify(t)
		if c.kind != classMap {
			return nil, fmt.Errorf("parameter type %s: map keys must be text and values text or slices of text", t)
		}
		pl.isMap, pl.mapClass = true, c
		return pl, nil
	case reflect.Struct:
	default:
		return nil, fmt.Errorf("parameter type %s is not a struct, a map or kit.NoParams", t)
	}
	isPlaceholder := make(map[string]bool, len(placeholders))
	for _, p := range placeholders {
		isPlaceholder[p] = true
	}
	seen := map[string]string{}
	for _, sf := range reflect.VisibleFields(t) {
		if !sf.IsExported() || (sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("kit") == "") {
			continue // unexported, or an embedded struct whose fields are promoted
		}
		if sf.Anonymous && sf.Type.Kind() == reflect.Pointer && sf.Tag.Get("kit") == "" {
			return nil, fmt.Errorf("field %s: embedded pointers are not supported; embed the struct", sf.Name)
		}
		tag := structtag.Parse(sf.Tag.Get("kit"))
		if tag.Skip {
			continue
		}
		if tag.Unknown != "" {
			return nil, fmt.Errorf("field %s: unknown kit tag option %q", sf.Name, tag.Unknown)
		}
		f := paramField{index: sf.Index, goName: sf.Name, name: tag.Name, omitEmpty: tag.OmitEmpty, omitJSON: jsonOmitRule(sf.Tag), class: classify(sf.Type)}
		if f.name == "" {
			f.name = structtag.SnakeCase(sf.Name)
		}
		if tag.Header && (tag.Query || tag.URL) || tag.Query && tag.URL {
			return nil, fmt.Errorf("field %s: the kit tag options header, query and url exclude each other", sf.Name)
		}
		if f.class.kind == classInvalid && !tag.URL {
			if f.class.why != "" {
				return nil, fmt.Errorf("field %s: %s", sf.Name, typeProblem(sf.Type, f.class.why))
			}
			return nil, fmt.Errorf("field %s: type %s cannot be sent as a parameter", sf.Name, sf.Type)
		}
		switch {
		case tag.URL:
			if sf.Type.Kind() != reflect.String && sf.Type != urlPtrType {
				return nil, fmt.Errorf("field %s: a `kit:\",url\"` field is a string or a *url.URL, not %s", sf.Name, sf.Type)
			}
			if pl.hasRoute(routeURL) {
				return nil, fmt.Errorf("field %s: a second `kit:\",url\"` field", sf.Name)
			}
			f.route = routeURL
		case tag.Query:
			switch f.class.kind {
			case classModel:
				st := sf.Type
				if st.Kind() == reflect.Pointer {
					st = st.Elem()
				}
				sub, err := newParamPlan(st, nil)
				if err != nil {
					return nil, fmt.Errorf("field %s (`kit:\",query\"`): %w", sf.Name, err)
				}
				for _, g := range sub.fields {
					switch g.route {
					case routeQuery, routeMap, routeQueryStruct:
					default:
						return nil, fmt.Errorf("field %s (`kit:\",query\"`): its field %s would not be a query parameter; a query has only parameters", sf.Name, g.goName)
					}
					if g.route == routeQuery {
						if prev, dup := seen[g.name]; dup {
							return nil, fmt.Errorf("fields %s and %s.%s both send %q", prev, sf.Name, g.goName, g.name)
						}
						seen[g.name] = sf.Name + "." + g.goName
					}
				}
				f.route, f.sub = routeQueryStruct, sub
			case classMap:
				f.route = routeMap
			case classScalar, classSlice:
				f.route = routeQuery
			default:
				return nil, fmt.Errorf("field %s: `kit:\",query\"` takes a struct, a map or a value with a text form, not %s", sf.Name, sf.Type)
			}
		case tag.Header:
			if f.class.format == nil && f.class.kind != classSlice && f.class.kind != classInterface {
				return nil, fmt.Errorf("field %s: a header must be text or a slice of text, not %s", sf.Name, sf.Type)
			}
			f.route = routeHeader
		case isPlaceholder[f.name]:
			if f.class.kind == classBytes {
				return nil, fmt.Errorf("field %s fills {%s}: %s", sf.Name, f.name, whyBytes)
			}
			if f.class.format == nil && f.class.kind != classInterface {
				return nil, fmt.Errorf("field %s fills {%s}: type %s has no single text form", sf.Name, f.name, sf.Type)
			}
			f.route = routePath
			if f.class.kind == classInterface {
				f.route = routeDynamic // formatted by the type it holds, at call time
			}
		case f.class.kind == classModel || f.class.kind == classModelSlice || f.class.kind == classFile:
			if pl.body >= 0 {
				return nil, fmt.Errorf("two body fields, %s and %s: a request has one body", pl.fields[pl.body].goName, sf.Name)
			}
			f.route = routeBody
			if f.class.kind == classFile {
				f.route = routeFile
			}
			pl.body = len(pl.fields)
		case f.class.kind == classBytes || f.class.kind == classFileSlice:
			return nil, fmt.Errorf("field %s: %s", sf.Name, typeProblem(sf.Type, f.class.why))
		case f.class.kind == classMap:
			f.route = routeMap
		case f.class.kind == classInterface:
			f.route = routeDynamic
		default:
			f.route = routeQuery
		}
		if f.route == routeDynamic {
			pl.dynamic = true
		}
		switch f.route {
		case routeBody, routeMap, routeDynamic, routeFile, routeQueryStruct, routeURL:
		default:
			key := f.name
			if f.route == routeHeader {
				key = "header " + http.CanonicalHeaderKey(f.name)
			}
			if prev, dup := seen[key]; dup {
				return nil, fmt.Errorf("fields %s and %s both send %q", prev, sf.Name, f.name)
			}
			seen[key] = sf.Name
		}
		pl.fields = append(pl.fields, f)
	}
	for _, p := range placeholders {
		found := false
		for _, f := range pl.fields {
			if f.name == p && (f.route == routePath || f.route == routeDynamic) {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("placeholder {%s} has no field named %q in %s", p, p, t)
		}
	}
	return pl, nil
}

// fieldType returns the Go type of field f of the plan.
func (pl *paramPlan) fieldType(f *paramField) reflect.Type {
	return pl.typ.FieldByIndex(f.index).Type
}

// hasRoute reports whether a field of the plan has route rt.
func (pl *paramPlan) hasRoute(rt route) bool {
	for _, f := range pl.fields {
		if f.route == rt {
			return true
		}
	}
	return false
}

// routed is what one call's parameters produce.
type routed struct {
	names  []string // the path's placeholders
	vals   []string // their raw (unescaped) values, by position in names
	filled []bool
	query  url.Values
	header http.Header
	body   reflect.Value // invalid when there is no body
	file   *File         // a raw File body; nil when there is none
	target *url.URL      // a `kit:",url"` value: the whole URL; nil when unset
}

// setTarget routes a `kit:",url"` value: a string or a *url.URL. An empty
// string or a nil *url.URL leaves the declared URL.
func (r *routed) setTarget(v reflect.Value) error {
	if v.Kind() == reflect.String {
		s := v.String()
		if s == "" {
			return nil
		}
		u, err := url.Parse(s)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // its text repeats the URL, which may hold a secret
			}
			return fmt.Errorf("the URL: %w", err)
		}
		r.target = u
		return nil
	}
	if v.IsNil() {
		return nil
	}
	u := *v.Interface().(*url.URL)
	if u.User != nil {
		uu := *u.User
		u.User = &uu
	}
	r.target = &u
	return nil
}

func (r *routed) fill(name, value string) {
	if i := slices.Index(r.names, name); i >= 0 {
		r.vals[i], r.filled[i] = value, true
	}
}

// apply routes the parameter value v (of the plan's type) into r.
func (pl *paramPlan) apply(v reflect.Value, r *routed) error {
	if pl.isMap {
		return addMapQuery(r, v, pl.mapClass, true)
	}
	for i := range pl.fields {
		f := &pl.fields[i]
		fv, err := v.FieldByIndexErr(f.index)
		if err != nil {
			continue // behind a nil embedded pointer
		}
		if (f.omitEmpty && fv.IsZero()) || (f.omitJSON != 0 && f.omitJSON.omits(fv)) {
			continue
		}
		switch f.route {
		case routeQueryStruct:
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			err = f.sub.apply(fv, r)
		case routeURL:
			err = r.setTarget(fv)
		default:
			err = routeValue(r, f.route, f.name, fv, f.class)
		}
		if err != nil {
			return fmt.Errorf("parameter %s: %w", f.goName, err)
		}
	}
	return nil
}

func routeValue(r *routed, rt route, name string, v reflect.Value, c *typeClass) error {
	switch rt {
	case routeDynamic:
		for v.Kind() == reflect.Interface {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		c = classify(v.Type())
		switch {
		case slices.Index(r.names, name) >= 0:
			rt = routePath
		case c.kind == classFile:
			rt = routeFile
		case c.kind == classModel || c.kind == classModelSlice:
			rt = routeBody
		case c.kind == classMap:
			rt = routeMap
		case c.kind == classInvalid || c.kind == classBytes || c.kind == classFileSlice:
			if c.why != "" {
				return fmt.Errorf("a value of %s", typeProblem(v.Type(), c.why))
			}
			return fmt.Errorf("a value of type %s cannot be sent", v.Type())
		default:
			rt = routeQuery
		}
		if rt == routePath && c.format == nil {
			return fmt.Errorf("fills {%s}: type %s has no single text form", name, v.Type())
		}
	}
	switch rt {
	case routePath:
		s, ok, err := c.format(v)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("fills {%s} but is nil", name)
		}
		r.fill(name, s)
	case routeBody:
		if isNilValue(v) {
			return nil
		}
		if r.body.IsValid() || r.file != nil {
			return errors.New("a second request body")
		}
		r.body = v
	case routeFile:
		if isNilValue(v) {
			return nil
		}
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if r.body.IsValid() || r.file != nil {
			return errors.New("a second request body")
		}
		f := v.Interface().(File)
		if f.Open == nil {
			return fmt.Errorf("kit.File %q has no Open function", f.Name)
		}
		r.file = &f
	case routeMap:
		return addMapQuery(r, v, c, false)
	case routeHeader:
		return addText(v, c, func(s string) {
			if r.header == nil {
				r.header = make(http.Header)
			}
			r.header.Add(name, s)
		})
	default:
		return addText(v, c, func(s string) {
			if r.query == nil {
				r.query = make(url.Values)
			}
			r.query.Add(name, s)
		})
	}
	return nil
}

// addText formats a scalar (once) or a slice (once per element).
func addText(v reflect.Value, c *typeClass, add func(string)) error {
	switch c.kind {
	case classSlice:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			s, ok, err := c.elem(v.Index(i))
			if err != nil {
				return fmt.Errorf("element %d: %w", i, err)
			}
			if ok {
				add(s)
			}
		}
		return nil
	case classInterface:
		if v.IsNil() {
			return nil
		}
		inner := v.Elem()
		ic := classify(inner.Type())
		if ic.kind != classScalar && ic.kind != classSlice {
			return fmt.Errorf("a value of type %s cannot be sent as text", inner.Type())
		}
		return addText(inner, ic, add)
	}
	s, ok, err := c.format(v)
	if err != nil || !ok {
		return err
	}
	add(s)
	return nil
}

// addMapQuery adds each map entry as a query parameter. When fillPath is
// set (P itself is a map), entries named like a placeholder fill the path.
func addMapQuery(r *routed, v reflect.Value, c *typeClass, fillPath bool) error {
	if v.IsNil() {
		return nil
	}
	iter := v.MapRange()
	for iter.Next() {
		k, ok, err := c.mapKey(iter.Key())
		if err != nil {
			return fmt.Errorf("map key: %w", err)
		}
		if !ok {
			continue
		}
		val := iter.Value()
		if isDeepQueryValue(val, c.mapValue) {
			if r.query == nil {
				r.query = make(url.Values)
			}
			if err := writeDeepQuery(r.query, k, val); err != nil {
				return fmt.Errorf("map entry %q: %w", k, err)
			}
			continue
		}
		if fillPath && slices.Index(r.names, k) >= 0 {
			s, ok, err := formatForPath(val, c.mapValue)
			if err != nil {
				return fmt.Errorf("map entry %q: %w", k, err)
			}
			if ok {
				r.fill(k, s)
			}
			continue
		}
		err = addText(val, c.mapValue, func(s string) {
			if r.query == nil {
				r.query = make(url.Values)
			}
			r.query.Add(k, s)
		})
		if err != nil {
			return fmt.Errorf("map entry %q: %w", k, err)
		}
	}
	return nil
}

func formatForPath(v reflect.Value, c *typeClass) (string, bool, error) {
	switch c.kind {
	case classInterface:
		return formatDynamic(v)
	case classSlice: // url.Values: one value fills a placeholder
		if v.Len() != 1 {
			return "", false, fmt.Errorf("fills a path placeholder but has %d values, want 1", v.Len())
		}
		return c.elem(v.Index(0))
	}
	if c.format == nil {
		return "", false, errors.New("fills a path placeholder but has no single text form")
	}
	return c.format(v)
}

func isNilValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return v.IsNil()
	}
	return false
}

// queryFrom routes a query given as any (nil, a map, url.Values, or a
// struct routed with the query rules) into a fresh url.Values. The caller's
// value is never modified.
func queryFrom(query any) (url.Values, error) {
	switch q := query.(type) {
	case nil:
		return url.Values{}, nil
	case url.Values:
		out := make(url.Values, len(q))
		for k, vs := range q {
			out[k] = append([]string(nil), vs...)
		}
		return out, nil
	case map[string]string:
		out := make(url.Values, len(q))
		for k, v := range q {
			out.Set(k, v)
		}
		return out, nil
	}
	v := reflect.ValueOf(query)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return url.Values{}, nil
		}
		v = v.Elem()
	}
	pl, err := queryPlan(v.Type())
	if err != nil {
		return nil, err
	}
	var r routed
	if err := pl.apply(v, &r); err != nil {
		return nil, err
	}
	if r.body.IsValid() || r.file != nil || r.target != nil || r.header != nil {
		return nil, fmt.Errorf("query of type %T routes fields to a body, headers or the URL; a query has only parameters", query)
	}
	if r.query == nil {
		r.query = url.Values{}
	}
	return r.query, nil
}

var queryPlans sync.Map // reflect.Type -> *paramPlan or error

func queryPlan(t reflect.Type) (*paramPlan, error) {
	if p, ok := queryPlans.Load(t); ok {
		if err, isErr := p.(error); isErr {
			return nil, err
		}
		return p.(*paramPlan), nil
	}
	pl, err := newParamPlan(t, nil)
	if err != nil {
		err = fmt.Errorf("kit: query of type %s: %w", t, err)
		queryPlans.Store(t, err)
		return nil, err
	}
	queryPlans.Store(t, pl)
	return pl, nil
}

// typeProblem says what is wrong with sending a value of type t: "type
// chan int has no text form ...", "type []uint8: a []byte is never ...".
func typeProblem(t reflect.Type, why string) string {
	if strings.HasPrefix(why, "has ") {
		return fmt.Sprintf("type %s %s", t, why)
	}
	return fmt.Sprintf("type %s: %s", t, why)
}
