package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kithttp/kit/internal/structtag"
)

// This file is the table of KITGEN.md §2.4 over go/types. Its type
// classification mirrors kit's route.go (classifyUncached, isModelType,
// textFormatter and newParamPlan) case by case, so that every route kitgen
// writes into a `kit:` tag is the route kit itself takes for that field;
// agree_test.go checks the two against each other.

// classKind is kit's classKind.
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

// typeClass is kit's typeClass, reduced to what decides a route: text
// reports whether kit has a single-text formatter for the type (its
// typeClass.format is not nil), and why is kit's reason for an invalid one.
type typeClass struct {
	kind classKind
	text bool
	why  string
}

// kit's reasons, for the same messages.
const (
	whyBytes     = "a []byte is never sent in the URL; send it as the request body with kit.FileFromBytes, or as a string"
	whyReader    = "an io.Reader has no text form and is not a request body; send a body as a kit.File (kit.FileFromBytes, kit.OpenFile, or a File with an Open function)"
	whyNoText    = "has no text form and is not a request body"
	whyFileSlice = "a []kit.File is sent only as file parts of a Multipart() body model"
)

// typeProblem is kit's typeProblem.
func typeProblem(t string, why string) string {
	if strings.HasPrefix(why, "has ") {
		return fmt.Sprintf("type %s %s", t, why)
	}
	return fmt.Sprintf("type %s: %s", t, why)
}

// classifier answers kit's questions about go/types types.
type classifier struct {
	textMarshaler *types.Interface // encoding.TextMarshaler
	stringer      *types.Interface // fmt.Stringer
	reader        *types.Interface // io.Reader
}

func newClassifier() *classifier {
	byteSlice := types.NewSlice(types.Typ[types.Byte])
	errType := types.Universe.Lookup("error").Type()
	tuple := func(ts ...types.Type) *types.Tuple {
		vars := make([]*types.Var, len(ts))
		for i, t := range ts {
			vars[i] = types.NewParam(token.NoPos, nil, "", t)
		}
		return types.NewTuple(vars...)
	}
	iface := func(name string, params, results *types.Tuple) *types.Interface {
		s := types.NewSignatureType(nil, nil, nil, params, results, false)
		return types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, name, s)}, nil).Complete()
	}
	return &classifier{
		textMarshaler: iface("MarshalText", nil, tuple(byteSlice, errType)),
		stringer:      iface("String", nil, tuple(types.Typ[types.String])),
		reader:        iface("Read", tuple(byteSlice), tuple(types.Typ[types.Int], errType)),
	}
}

// classify is kit's classifyUncached, case by case.
func (c *classifier) classify(t types.Type, depth int) typeClass {
	t = types.Unalias(t)
	if depth > 4 || !valid(t) {
		return typeClass{kind: classInvalid}
	}
	if isFile(t) {
		return typeClass{kind: classFile}
	}
	if c.isReader(t) && !types.Implements(t, c.textMarshaler) && !types.Implements(types.NewPointer(t), c.textMarshaler) {
		return typeClass{kind: classInvalid, why: whyReader}
	}
	if c.isModel(t) {
		// A struct is a data model even when it has a String method.
		return typeClass{kind: classModel, text: c.hasTextForm(t)}
	}
	if c.hasTextForm(t) {
		return typeClass{kind: classScalar, text: true}
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		if inner := c.classify(u.Elem(), depth+1); inner.kind != classScalar {
			return typeClass{kind: classInvalid}
		}
		return typeClass{kind: classScalar, text: true}
	case *types.Interface:
		if u.NumMethods() > 0 {
			return typeClass{kind: classInvalid, why: whyNoText + " (an interface with methods)"}
		}
		return typeClass{kind: classInterface}
	case *types.Slice, *types.Array:
		elem := types.Unalias(elemOf(u))
		if b, ok := elem.Underlying().(*types.Basic); ok && b.Kind() == types.Uint8 {
			return typeClass{kind: classBytes, text: true, why: whyBytes}
		}
		if p, ok := elem.Underlying().(*types.Pointer); isFile(elem) || ok && isFile(p.Elem()) {
			return typeClass{kind: classFileSlice, why: whyFileSlice}
		}
		if c.isModel(elem) {
			return typeClass{kind: classModelSlice}
		}
		inner := c.classify(elem, depth+1)
		switch inner.kind {
		case classScalar, classInterface:
			return typeClass{kind: classSlice}
		}
		return typeClass{kind: classInvalid, why: inner.why}
	case *types.Map:
		if c.classify(u.Key(), depth+1).kind != classScalar {
			return typeClass{kind: classInvalid}
		}
		switch c.classify(u.Elem(), depth+1).kind {
		case classScalar, classSlice, classInterface:
			return typeClass{kind: classMap}
		}
		return typeClass{kind: classInvalid}
	case *types.Basic:
		if u.Kind() == types.UnsafePointer {
			return typeClass{kind: classInvalid, why: whyNoText}
		}
		if u.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0 {
			return typeClass{kind: classScalar, text: true}
		}
	case *types.Chan, *types.Signature:
		return typeClass{kind: classInvalid, why: whyNoText}
	}
	return typeClass{kind: classInvalid}
}

// isFile reports whether t is kit.File or *kit.File.
func isFile(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	return isNamed(t, kitPath, "File")
}

// isReader is kit's isReader: t (or a pointer to it) is an io.Reader.
func (c *classifier) isReader(t types.Type) bool {
	if isInterface(t) {
		return types.Implements(t, c.reader)
	}
	_, isPtr := t.Underlying().(*types.Pointer)
	return types.Implements(t, c.reader) || (!isPtr && types.Implements(types.NewPointer(t), c.reader))
}

// isModel is kit's isModelType: a struct or a pointer to one, other than
// time.Time, kit.File, and types that marshal themselves as text or read.
func (c *classifier) isModel(t types.Type) bool {
	t = types.Unalias(t)
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if _, ok := t.Underlying().(*types.Struct); !ok {
		return false
	}
	ptr := types.NewPointer(t)
	return !isNamed(t, "time", "Time") && !isNamed(t, kitPath, "File") &&
		!types.Implements(ptr, c.textMarshaler) && !types.Implements(ptr, c.reader)
}

// hasTextForm reports whether kit's textFormatter has a formatter for t:
// time.Time, an encoding.TextMarshaler or a fmt.Stringer (by value or by
// pointer).
func (c *classifier) hasTextForm(t types.Type) bool {
	if isNamed(t, "time", "Time") {
		return true
	}
	_, isPtr := t.Underlying().(*types.Pointer)
	for _, it := range []*types.Interface{c.textMarshaler, c.stringer} {
		if types.Implements(t, it) || (!isPtr && types.Implements(types.NewPointer(t), it)) {
			return true
		}
	}
	return false
}

// valid reports whether t is a usable type (not invalid after type errors,
// not a type parameter).
func valid(t types.Type) bool {
	switch t := t.(type) {
	case nil:
		return false
	case *types.Basic:
		return t.Kind() != types.Invalid
	case *types.TypeParam:
		return false
	}
	return true
}

func elemOf(t types.Type) types.Type {
	switch u := t.(type) {
	case *types.Slice:
		return u.Elem()
	case *types.Array:
		return u.Elem()
	}
	return nil
}

func isInterface(t types.Type) bool {
	_, ok := t.Underlying().(*types.Interface)
	return ok
}

// isNamed reports whether t is the named type pkgPath.name.
func isNamed(t types.Type, pkgPath, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	o := n.Obj()
	return o.Pkg() != nil && o.Pkg().Path() == pkgPath && o.Name() == name
}

// route is where one parameter (or field of a spread struct) goes.
type route uint8

const (
	routeNone    route = iota // not routed (after an error)
	routeQuery                // query parameter w(p); slices repeat the key
	routePath                 // one escaped path segment
	routeHeader               // request header
	routeBody                 // the JSON body
	routeMap                  // one query parameter per entry
	routeDynamic              // decided per call by the value held
	routeSpread               // //kit:query {p} on a struct: its fields, embedded in P
	routeFile                 // a kit.File: the raw request body
	routeURL                  // //kit:url {p}: the whole URL of the call
)

func (r route) String() string {
	switch r {
	case routeNone:
		return "nowhere"
	case routeQuery:
		return "query"
	case routePath:
		return "path"
	case routeHeader:
		return "header"
	case routeBody:
		return "body"
	case routeMap:
		return "map"
	case routeDynamic:
		return "dynamic"
	case routeSpread:
		return "spread"
	case routeFile:
		return "body"
	case routeURL:
		return "URL"
	}
	return "?"
}

// wireName is w(p) of §2.4: kit's snake_case of the exported Go name.
func wireName(goName string) string {
	return structtag.SnakeCase(exported(goName))
}

// exported returns name with its first letter in upper case.
func exported(name string) string {
	r, size := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(r)) + name[size:]
}

// visField is a field of a struct as reflect.VisibleFields lists it.
type visField struct {
	v     *types.Var
	tag   reflect.StructTag
	index []int
}

// visibleFields is reflect.VisibleFields over go/types, ported as it is:
// every field reachable through embedding, minus those hidden by a
// shallower field of the same name or cancelled by one at the same depth.
func visibleFields(st *types.Struct) []visField {
	w := &fieldWalker{byName: map[string]int{}, visiting: map[*types.Struct]bool{}}
	w.walk(st)
	var out []visField
	for i, f := range w.fields {
		if !w.hidden[i] {
			out = append(out, f)
		}
	}
	return out
}

type fieldWalker struct {
	byName   map[string]int
	visiting map[*types.Struct]bool
	fields   []visField
	hidden   []bool
	index    []int
}

func (w *fieldWalker) walk(st *types.Struct) {
	if w.visiting[st] {
		return
	}
	w.visiting[st] = true
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		w.index = append(w.index, i)
		add := true
		if old, ok := w.byName[f.Name()]; ok {
			switch oldDepth := len(w.fields[old].index); {
			case len(w.index) == oldDepth: // the same depth: both are cancelled
				w.hidden[old] = true
				add = false
			case len(w.index) < oldDepth: // the old one is deeper: it loses
				w.hidden[old] = true
			default: // the old one is shallower: it wins
				add = false
			}
		}
		if add {
			w.byName[f.Name()] = len(w.fields)
			w.fields = append(w.fields, visField{v: f, tag: reflect.StructTag(st.Tag(i)), index: append([]int(nil), w.index...)})
			w.hidden = append(w.hidden, false)
		}
		if f.Anonymous() {
			ft := types.Unalias(f.Type())
			if p, ok := ft.Underlying().(*types.Pointer); ok {
				ft = types.Unalias(p.Elem())
			}
			if es, ok := ft.Underlying().(*types.Struct); ok {
				w.walk(es)
			}
		}
		w.index = w.index[:len(w.index)-1]
	}
	delete(w.visiting, st)
}
