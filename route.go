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
	"sync"
	"time"

	"github.com/kithttp/kit/internal/routing"
	"github.com/kithttp/kit/internal/structtag"
)

// NoParams is the parameter type of an endpoint that takes no parameters.
type NoParams struct{}

// Private implementation past this point.
//
// Parameter routing is decided once per declaration by the table in
// internal/routing, which kitgen applies too: kit only inspects the types
// (reflectType) and formats the values.
//
// Fields of interface type are routed by the type of the value they hold, at
// call time, with the same rules.

// typeClass is what kit knows about a Go type for routing, cached per type:
// the routing class and the formatters of its values.
type typeClass struct {
	routing.Class
	format   formatter // Scalar, Bytes, a Model with a text form: formatting
	elem     formatter // Slice: formatting of each element
	mapKey   formatter // Map: key formatting
	mapValue *typeClass
}

// formatter renders a value as text. ok is false for a nil pointer or
// interface (the parameter is dropped).
type formatter func(v reflect.Value) (s string, ok bool, err error)

var (
	timeType          = reflect.TypeFor[time.Time]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	stringerType      = reflect.TypeFor[fmt.Stringer]()
	noParamsType      = reflect.TypeFor[NoParams]()
	fileType          = reflect.TypeFor[File]()
	readerType        = reflect.TypeFor[io.Reader]()
	urlPtrType        = reflect.TypeFor[*url.URL]()
)

var classCache sync.Map // reflect.Type -> *typeClass

// classify returns how values of type t are routed.
func classify(t reflect.Type) *typeClass {
	if c, ok := classCache.Load(t); ok {
		return c.(*typeClass)
	}
	c := newTypeClass(t)
	actual, _ := classCache.LoadOrStore(t, c)
	return actual.(*typeClass)
}

// newTypeClass asks the routing rules how t is routed, and makes the
// formatters its values need.
func newTypeClass(t reflect.Type) *typeClass {
	c := &typeClass{Class: routing.Classify(reflectType{t})}
	switch c.Kind {
	case routing.Scalar:
		c.format = scalarFormatter(t)
		if isNullableType(t) {
			c.format = nullableFormatter(t)
		}
	case routing.Model:
		c.format = textFormatter(t) // a String method fills a placeholder
	case routing.Bytes:
		c.format = formatBytes
	case routing.Slice:
		c.elem = formatDynamic
		if classify(t.Elem()).Kind == routing.Scalar {
			c.elem = scalarFormatter(t.Elem())
		}
	case routing.Map:
		c.mapKey = scalarFormatter(t.Key())
		c.mapValue = classify(t.Elem())
	}
	return c
}

// scalarFormatter formats a type the rules class as Scalar: by its own text
// form, through a pointer, or by its kind.
func scalarFormatter(t reflect.Type) formatter {
	if f := textFormatter(t); f != nil {
		return f
	}
	if t.Kind() == reflect.Pointer {
		elemFormat := scalarFormatter(t.Elem())
		return func(v reflect.Value) (string, bool, error) {
			if v.IsNil() {
				return "", false, nil
			}
			return elemFormat(v.Elem())
		}
	}
	return kindFormatter(t.Kind())
}

// isModelType reports whether t is a data model (see routing.IsModel).
func isModelType(t reflect.Type) bool { return routing.IsModel(reflectType{t}) }

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
	if c.Kind != routing.Scalar {
		if c.Why != "" {
			return "", false, fmt.Errorf("value of %s", routing.TypeProblem(v.Type().String(), c.Why))
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
	route     routing.Route
	mark      routing.Mark // how its tag marks it
	omitEmpty bool
	join      string   // a list sent as one value: its delimiter; "" when it repeats its name
	omitJSON  omitRule // the json tag's omitempty and omitzero
	class     *typeClass
	sub       *paramPlan // routing.QueryStruct: the struct's own plan
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

// newParamPlan analyses P for a path with the given placeholders: each
// field is routed by the table of internal/routing.
func newParamPlan(t reflect.Type, placeholders []string) (*paramPlan, error) {
	pl := &paramPlan{body: -1, typ: t}
	if t == nil {
		return nil, errors.New("parameter type is an interface; use a struct, a map or kit.NoParams")
	}
	switch t.Kind() {
	case reflect.Map:
		c := classify(t)
		if c.Kind != routing.Map {
			return nil, fmt.Errorf("parameter type %s: map keys must be text and values text or slices of text", t)
		}
		pl.isMap, pl.mapClass = true, c
		return pl, nil
	case reflect.Struct:
	default:
		return nil, fmt.Errorf("parameter type %s is not a struct, a map or kit.NoParams", t)
	}
	plan := routing.Tags.NewPlan()
	for _, sf := range reflect.VisibleFields(t) {
		ft := reflectType{sf.Type}
		tag, mark, routed, problem := routing.Member(sf.IsExported(), sf.Anonymous, ft.Shape(), sf.Tag.Get("kit"))
		if problem != "" {
			return nil, fmt.Errorf("field %s: %s", sf.Name, problem)
		}
		if !routed {
			continue
		}
		f := paramField{index: sf.Index, goName: sf.Name, name: routing.WireName(tag, sf.Name), mark: mark, omitEmpty: tag.OmitEmpty, omitJSON: jsonOmitRule(sf.Tag), class: classify(sf.Type), join: structtag.Delimiter(tag.Join)}
		rf := routing.Field{
			GoName: sf.Name, T: ft, Class: f.class.Class,
			Name: f.name, Named: tag.Name != "", Mark: mark, Placeholder: slices.Contains(placeholders, f.name),
			Join: tag.Join,
		}
		r, err := routing.Tags.Route(&rf)
		if err != nil {
			return nil, err
		}
		switch r {
		case routing.QueryStruct:
			if f.sub, err = queryStructPlan(plan, sf); err != nil {
				return nil, err
			}
		case routing.QueryDeep:
			if _, err := formNodeFor(sf.Type); err != nil {
				return nil, fmt.Errorf("field %s (`kit:\"%s,query\"`): %w", sf.Name, f.name, err)
			}
		}
		if err := plan.Add(&rf, r); err != nil {
			return nil, err
		}
		switch f.route = r; r {
		case routing.Body, routing.RawFile:
			pl.body = len(pl.fields)
		case routing.Dynamic:
			pl.dynamic = true
		}
		pl.fields = append(pl.fields, f)
	}
	for _, p := range placeholders {
		if !slices.ContainsFunc(pl.fields, func(f paramField) bool {
			return f.name == p && (f.route == routing.Path || f.route == routing.Dynamic)
		}) {
			return nil, fmt.Errorf("%s in %s", routing.Tags.Unfilled(p), t)
		}
	}
	return pl, nil
}

// queryStructPlan is the plan of the struct of field sf, tagged
// `kit:",query"`: its fields must all be query parameters, and their names
// are sent beside those of P's other fields.
func queryStructPlan(plan *routing.Plan, sf reflect.StructField) (*paramPlan, error) {
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
		case routing.Query, routing.QueryMap, routing.QueryStruct, routing.QueryDeep:
		default:
			return nil, fmt.Errorf("field %s (`kit:\",query\"`): its field %s would not be a query parameter; a query has only parameters", sf.Name, g.goName)
		}
		if g.route == routing.Query || g.route == routing.QueryDeep {
			if err := plan.Send(g.route, g.name, "field "+sf.Name+"."+g.goName); err != nil {
				return nil, err
			}
		}
	}
	return sub, nil
}

// fieldType returns the Go type of field f of the plan.
func (pl *paramPlan) fieldType(f *paramField) reflect.Type {
	return pl.typ.FieldByIndex(f.index).Type
}

// routed is what one call's parameters produce.
type routed struct {
	names  []string // the path's placeholders
	vals   []string // their raw (unescaped) values, by position in names
	filled []bool
	query  url.Values // nil when there is none, or only query1 (see queryValues)
	header http.Header
	body   reflect.Value // invalid when there is no body
	file   *File         // a raw File body; nil when there is none
	target *url.URL      // a `kit:",url"` value: the whole URL; nil when unset
	call   *callSettings // the call's options; nil when it has none

	// query1 is the first query parameter (name, value) while it is the
	// only one and query is nil: the common call with one parameter makes
	// no map. has1 says it is set.
	query1 [2]string
	has1   bool
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
		case routing.QueryStruct:
			if fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				fv = fv.Elem()
			}
			err = f.sub.apply(fv, r)
		case routing.URL:
			err = r.setTarget(fv)
		case routing.Query, routing.Header:
			if f.join != "" { // declared only on these two routes
				err = routeJoined(r, f.route, f.name, fv, f.class, f.join)
			} else {
				err = routeValue(r, f.route, f.name, fv, f.class)
			}
		default:
			err = routeValue(r, f.route, f.name, fv, f.class)
		}
		if err != nil {
			return fmt.Errorf("parameter %s: %w", f.goName, err)
		}
	}
	return nil
}

func routeValue(r *routed, rt routing.Route, name string, v reflect.Value, c *typeClass) error {
	switch rt {
	case routing.Dynamic:
		for v.Kind() == reflect.Interface {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		c = classify(v.Type())
		placeholder := slices.Contains(r.names, name)
		if rt = routing.Held(c.Class, placeholder); rt == routing.None {
			return routing.HeldProblem(v.Type().String(), name, c.Class, placeholder)
		}
	}
	switch rt {
	case routing.Path:
		s, ok, err := c.format(v)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("fills {%s} but is nil", name)
		}
		r.fill(name, s)
	case routing.Body:
		if isNilValue(v) {
			return nil
		}
		if r.body.IsValid() || r.file != nil {
			return errors.New("a second request body")
		}
		r.body = v
	case routing.RawFile:
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
	case routing.QueryMap:
		return addMapQuery(r, v, c, false)
	case routing.QueryDeep:
		return writeDeepQuery(r.queryValues(), name, v)
	case routing.Header:
		return addText(v, c, func(s string) {
			if r.header == nil {
				r.header = make(http.Header)
			}
			r.header.Add(name, s)
		})
	default:
		return addText(v, c, func(s string) { r.addQuery(name, s) })
	}
	return nil
}

// addText formats a scalar (once) or a slice (once per element).
func addText(v reflect.Value, c *typeClass, add func(string)) error {
	switch c.Kind {
	case routing.Slice:
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
	case routing.Interface:
		if v.IsNil() {
			return nil
		}
		inner := v.Elem()
		ic := classify(inner.Type())
		if ic.Kind != routing.Scalar && ic.Kind != routing.Slice {
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

func isNilValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return v.IsNil()
	}
	return false
}
