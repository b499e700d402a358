package gen

import (
	"go/token"
	"go/types"
	"reflect"
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
)

// typeClass is kit's typeClass, reduced to what decides a route: text
// reports whether kit has a single-text formatter for the type (its
// typeClass.format is not nil).
type typeClass struct {
	kind classKind
	text bool
}

// classifier answers kit's questions about go/types types.
type classifier struct {
	textMarshaler *types.Interface // encoding.TextMarshaler
	stringer      *types.Interface // fmt.Stringer
}

func newClassifier() *classifier {
	byteSlice := types.NewSlice(types.Typ[types.Byte])
	errType := types.Universe.Lookup("error").Type()
	sig := func(results ...types.Type) *types.Signature {
		vars := make([]*types.Var, len(results))
		for i, r := range results {
			vars[i] = types.NewParam(token.NoPos, nil, "", r)
		}
		return types.NewSignatureType(nil, nil, nil, nil, types.NewTuple(vars...), false)
	}
	iface := func(name string, s *types.Signature) *types.Interface {
		it := types.NewInterfaceType([]*types.Func{types.NewFunc(token.NoPos, nil, name, s)}, nil)
		return it.Complete()
	}
	return &classifier{
		textMarshaler: iface("MarshalText", sig(byteSlice, errType)),
		stringer:      iface("String", sig(types.Typ[types.String])),
	}
}

// classify is kit's classifyUncached.
func (c *classifier) classify(t types.Type, depth int) typeClass {
	t = types.Unalias(t)
	if depth > 4 || !valid(t) {
		return typeClass{kind: classInvalid}
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
		return typeClass{kind: classInterface}
	case *types.Slice, *types.Array:
		elem := elemOf(u)
		if b, ok := types.Unalias(elem).Underlying().(*types.Basic); ok && b.Kind() == types.Uint8 {
			return typeClass{kind: classScalar, text: true} // kit's formatBytes
		}
		if c.isModel(elem) {
			return typeClass{kind: classModelSlice}
		}
		switch c.classify(elem, depth+1).kind {
		case classScalar, classInterface:
			return typeClass{kind: classSlice}
		}
		return typeClass{kind: classInvalid}
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
		if u.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0 && u.Kind() != types.UnsafePointer {
			return typeClass{kind: classScalar, text: true}
		}
	}
	return typeClass{kind: classInvalid}
}

// isModel is kit's isModelType: a struct or a pointer to one, other than
// time.Time and types that marshal themselves as text.
func (c *classifier) isModel(t types.Type) bool {
	t = types.Unalias(t)
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	if _, ok := t.Underlying().(*types.Struct); !ok {
		return false
	}
	return !isNamed(t, "time", "Time") && !types.Implements(types.NewPointer(t), c.textMarshaler)
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
		if types.Implements(t, it) || (!isPtr && !isInterface(t) && types.Implements(types.NewPointer(t), it)) {
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
	tag   string // the kit tag
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
			w.fields = append(w.fields, visField{v: f, tag: reflect.StructTag(st.Tag(i)).Get("kit"), index: append([]int(nil), w.index...)})
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
