package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"net/http"
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
	if isNamed(t, kitPath, "Nullable") { // kit's nullableClass
		if args := t.(*types.Named).TypeArgs(); args.Len() == 1 && c.classify(args.At(0), depth+1).kind == classScalar {
			return typeClass{kind: classScalar, text: true}
		}
		return typeClass{kind: classInvalid, why: "a Nullable parameter holds a value with one text form (a string, a number, a bool, a time)"}
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
		case classMap: // a map-valued entry: k[key]=v (deepObject)
			if k, ok := u.Elem().Underlying().(*types.Map).Key().Underlying().(*types.Basic); !ok || k.Info()&types.IsString == 0 {
				return typeClass{kind: classInvalid, why: "a map-valued entry is sent as k[key]=v, and its keys must be strings"}
			}
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
	return !isNamed(t, "time", "Time") && !isNamed(t, kitPath, "File") && !isNamed(t, kitPath, "Nullable") &&
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

// routes applies the table of §2.4 to the parameters of m.
func (g *generator) routes(m *Method, placeholders []placeholder) {
	byName := map[string]*Param{}
	for _, p := range m.Params {
		byName[p.Name] = p
		p.class = g.cls.classify(p.Type, 0)
	}
	lookup := func(dl *dirLine, a Arg) *Param {
		p := byName[a.Text]
		if p == nil {
			hint := ""
			for _, q := range m.Params {
				if wireName(q.Name) == a.Text {
					hint = fmt.Sprintf(" (directives name parameters by their Go name: %s)", q.Name)
				}
			}
			g.errorf(dl.pos(a.Off), "%s: %s names no parameter %s%s", m.Name, dl.d, a.Text, hint)
		}
		return p
	}
	route := func(dl *dirLine, a Arg) *Param {
		p := lookup(dl, a)
		if p == nil {
			return nil
		}
		if p.by != nil {
			g.errorf(dl.pos(a.Off), "%s: parameter %s is already sent by %s", m.Name, p.Name, p.by.d)
			return nil
		}
		p.by = dl
		return p
	}
	headerNames := map[string]string{} // canonical name -> what sends it
	addHeader := func(dl *dirLine, what string) bool {
		key := http.CanonicalHeaderKey(dl.d.Name.Text)
		if prev, dup := headerNames[key]; dup {
			g.errorf(dl.pos(dl.d.Name.Off), "%s: %s and %s both send header %s", m.Name, prev, what, key)
			return false
		}
		headerNames[key] = what
		return true
	}
	var omit []*dirLine
	var urlParam *Param
	for _, dl := range m.dirs {
		d := dl.d
		switch d.Verb {
		case "header":
			if d.Param.Text == "" {
				if addHeader(dl, fmt.Sprintf("%q", d.Name.Text+": "+d.Value.Text)) {
					m.Headers = append(m.Headers, constHeader{Name: d.Name.Text, Value: d.Value.Text})
				}
				continue
			}
			p := route(dl, d.Param)
			if p == nil {
				continue
			}
			if !p.class.text && p.class.kind != classSlice && p.class.kind != classInterface {
				g.errorf(dl.pos(d.Param.Off), "%s: parameter %s (%s) cannot be header %s: a header is text or a slice of text", m.Name, p.Name, g.typeString(p.Type), d.Name.Text)
				continue
			}
			if addHeader(dl, "parameter "+p.Name) {
				p.Route, p.Tag = routeHeader, d.Name.Text
			}
		case "query":
			p := route(dl, d.Param)
			if p == nil {
				continue
			}
			if d.Name.Text != "" { // rule 2: renamed
				switch p.class.kind {
				case classScalar, classSlice, classInterface:
					p.Route, p.Tag = routeQuery, d.Name.Text
					if p.class.kind == classInterface {
						p.Route = routeDynamic
					}
				case classBytes:
					g.errorf(dl.pos(d.Param.Off), "%s: parameter %s (%s) cannot be query parameter %s: %s", m.Name, p.Name, g.typeString(p.Type), d.Name.Text, whyBytes)
				default:
					g.errorf(dl.pos(d.Param.Off), "%s: parameter %s (%s) cannot be query parameter %s: it is not text or a slice of text", m.Name, p.Name, g.typeString(p.Type), d.Name.Text)
				}
				continue
			}
			g.spread(m, p, dl, placeholders)
		case "omitempty":
			omit = append(omit, dl)
		case "url":
			p := route(dl, d.Param)
			if p == nil {
				continue
			}
			if urlParam != nil {
				g.errorf(dl.pos(d.Param.Off), "%s: parameters %s and %s are both //kit:url: a call has one URL", m.Name, urlParam.Name, p.Name)
				continue
			}
			urlParam = p
			b, isBasic := types.Unalias(p.Type).Underlying().(*types.Basic)
			if !(isBasic && b.Info()&types.IsString != 0) && !isPointerTo(p.Type, "net/url", "URL") {
				g.errorf(dl.pos(d.Param.Off), "%s: //kit:url {%s}: parameter %s is a string or a *url.URL, not %s", m.Name, p.Name, p.Name, g.typeString(p.Type))
				continue
			}
			p.Route = routeURL
		}
	}

	// Rule 4: placeholders, filled by a parameter whose Go name or w(p)
	// equals them.
	filled := map[*Param]string{}
	for _, ph := range placeholders {
		var cands []*Param
		var routed *Param
		for _, p := range m.Params {
			if p.Name != ph.name && wireName(p.Name) != ph.name {
				continue
			}
			if p.by != nil {
				routed = p
				continue
			}
			cands = append(cands, p)
		}
		switch {
		case len(cands) == 0 && routed != nil:
			g.errorf(ph.pos, "%s: placeholder {%s} has no parameter: %s is sent by %s", m.Name, ph.name, routed.Name, routed.by.d)
		case len(cands) == 0:
			g.errorf(ph.pos, "%s: placeholder {%s} has no parameter; name one %s", m.Name, ph.name, ph.name)
		case len(cands) > 1:
			g.errorf(ph.pos, "%s: placeholder {%s} matches two parameters, %s and %s", m.Name, ph.name, cands[0].Name, cands[1].Name)
			for _, p := range cands {
				filled[p] = ph.name // reported: route them no further
			}
		default:
			p := cands[0]
			if prev, dup := filled[p]; dup {
				g.errorf(ph.pos, "%s: parameter %s fills both {%s} and {%s}; a parameter fills one placeholder", m.Name, p.Name, prev, ph.name)
				continue
			}
			filled[p] = ph.name
			switch {
			case p.class.kind == classBytes:
				g.errorf(p.Pos, "%s: parameter %s (%s) fills {%s}: %s", m.Name, p.Name, g.typeString(p.Type), ph.name, whyBytes)
			case p.class.kind == classInterface:
				p.Route = routeDynamic // formatted by the value it holds
			case p.class.text:
				p.Route = routePath
			default:
				g.errorf(p.Pos, "%s: parameter %s (%s) fills {%s} but has no single text form", m.Name, p.Name, g.typeString(p.Type), ph.name)
			}
			p.Tag = ph.name
		}
	}

	// Rules 5 to 9, by type.
	var body *Param
	for _, p := range m.Params {
		if p.by != nil || filled[p] != "" {
			continue
		}
		p.Tag = wireName(p.Name)
		switch p.class.kind {
		case classModel, classModelSlice, classFile:
			p.Route = routeBody
			if p.class.kind == classFile {
				p.Route = routeFile
			}
			switch {
			case body != nil:
				g.errorf(p.Pos, "%s: parameters %s and %s would both be the request body, and a request has one", m.Name, body.Name, p.Name)
			case m.Verb == "GET" && p.class.kind == classModel:
				g.errorf(p.Pos, "%s: parameter %s (%s) is a data model, so it would be the JSON body of a GET; add //kit:query {%s} to send its fields as query parameters", m.Name, p.Name, g.typeString(p.Type), p.Name)
			case m.Verb == "GET" && p.class.kind == classFile:
				g.errorf(p.Pos, "%s: parameter %s (%s) would be the raw request body of a GET, which has none", m.Name, p.Name, g.typeString(p.Type))
			case m.Verb == "GET":
				g.errorf(p.Pos, "%s: parameter %s (%s) is a list of data models, so it would be the JSON body of a GET, which has none", m.Name, p.Name, g.typeString(p.Type))
			default:
				body = p
			}
		case classMap:
			p.Route = routeMap
		case classInterface:
			p.Route = routeDynamic
		case classScalar, classSlice:
			p.Route = routeQuery
		case classBytes, classFileSlice:
			g.errorf(p.Pos, "%s: parameter %s (%s) cannot be sent: %s", m.Name, p.Name, g.typeString(p.Type), p.class.why)
		default:
			if p.class.why != "" {
				g.errorf(p.Pos, "%s: parameter %s cannot be sent: %s", m.Name, p.Name, typeProblem(g.typeString(p.Type), p.class.why))
				break
			}
			g.errorf(p.Pos, "%s: parameter %s (%s) cannot be sent: it is not text, a slice of text, a map, a data model or an interface", m.Name, p.Name, g.typeString(p.Type))
		}
	}
	m.body = body

	// //kit:omitempty names query and header parameters.
	for _, dl := range omit {
		for _, a := range dl.d.Params {
			p := lookup(dl, a)
			if p == nil {
				continue
			}
			if p.OmitEmpty {
				g.errorf(dl.pos(a.Off), "%s: //kit:omitempty names %s twice", m.Name, p.Name)
				continue
			}
			if p.Route != routeQuery && p.Route != routeHeader {
				g.errorf(dl.pos(a.Off), "%s: //kit:omitempty %s: parameter %s goes to the %s; omitempty is for query and header parameters", m.Name, a.Text, p.Name, p.Route)
				continue
			}
			p.OmitEmpty = true
		}
	}

	g.checkNames(m)

	// Constant headers are fields of P too, named unlike any parameter.
	taken := map[string]bool{}
	for _, p := range m.Params {
		taken["P_"+p.Name] = true
	}
	for i := range m.Headers {
		m.Headers[i].Field = free(fmt.Sprintf("P_h%d", i), taken)
		taken[m.Headers[i].Field] = true
	}
}

// spread applies rules 3 and 3b: //kit:query {p} on a struct or a map.
func (g *generator) spread(m *Method, p *Param, dl *dirLine, placeholders []placeholder) {
	pos := dl.pos(dl.d.Param.Off)
	switch p.class.kind {
	case classMap: // rule 3b
		p.Route, p.Tag = routeMap, wireName(p.Name)
		return
	case classModel:
	default:
		g.errorf(pos, "%s: //kit:query {%s}: parameter %s (%s) is neither a struct nor a map", m.Name, p.Name, p.Name, g.typeString(p.Type))
		return
	}
	t := types.Unalias(p.Type)
	if ptr, ok := t.(*types.Pointer); ok {
		t, p.Ptr = types.Unalias(ptr.Elem()), true
	}
	named, ok := t.(*types.Named)
	if !ok {
		g.errorf(pos, "%s: //kit:query {%s}: kitgen embeds the struct in the parameters, so it needs a named type, not %s", m.Name, p.Name, g.typeString(p.Type))
		return
	}
	p.Route, p.Embed = routeSpread, named.Obj().Name()
	isPlaceholder := map[string]bool{}
	for _, ph := range placeholders {
		isPlaceholder[ph.name] = true
	}
	for _, f := range g.spreadFields(named.Underlying().(*types.Struct)) {
		switch {
		case f.err != "":
			g.errorf(pos, "%s: //kit:query {%s}: field %s of %s: %s", m.Name, p.Name, f.goName, named.Obj().Name(), f.err)
		case f.route == routeBody:
			g.errorf(pos, "%s: //kit:query {%s}: field %s of %s would be the request body; a spread struct has query and header fields only", m.Name, p.Name, f.goName, named.Obj().Name())
		case f.route != routeHeader && isPlaceholder[f.name]:
			g.errorf(pos, "%s: //kit:query {%s}: field %s of %s is named like the placeholder {%s}; fill placeholders with parameters", m.Name, p.Name, f.goName, named.Obj().Name(), f.name)
		}
	}
}

// spreadField is a field of a spread struct as kit routes it.
type spreadField struct {
	goName string
	name   string // query name, or header name
	route  route  // routeQuery, routeHeader, routeMap, routeDynamic or routeBody
	err    string
}

// spreadFields lists the fields kit routes in a struct embedded in P, as
// newParamPlan does: visible, exported, not promoted-through, not `kit:"-"`.
func (g *generator) spreadFields(st *types.Struct) []spreadField {
	var out []spreadField
	for _, vf := range visibleFields(st) {
		f := vf.v
		ft := types.Unalias(f.Type())
		_, isStruct := ft.Underlying().(*types.Struct)
		_, isPtr := ft.Underlying().(*types.Pointer)
		if len(vf.index) > 1 && !f.Exported() {
			continue
		}
		kitTag := vf.tag.Get("kit")
		if !f.Exported() || (f.Anonymous() && isStruct && kitTag == "") {
			continue
		}
		sf := spreadField{goName: f.Name()}
		if f.Anonymous() && isPtr && kitTag == "" {
			sf.err = "embedded pointers are not supported; embed the struct"
			out = append(out, sf)
			continue
		}
		tag := structtag.Parse(kitTag)
		if tag.Skip {
			continue
		}
		if tag.Unknown != "" {
			sf.err = fmt.Sprintf("unknown kit tag option %q", tag.Unknown)
			out = append(out, sf)
			continue
		}
		sf.name = tag.Name
		if sf.name == "" {
			sf.name = structtag.SnakeCase(f.Name())
		}
		c := g.cls.classify(f.Type(), 0)
		switch {
		case tag.Query || tag.URL:
			sf.err = "the kit tag options query and url are for kit's own parameter structs; a spread struct has query and header fields"
		case c.kind == classInvalid:
			sf.err = fmt.Sprintf("type %s cannot be sent as a parameter", g.typeString(f.Type()))
			if c.why != "" {
				sf.err = typeProblem(g.typeString(f.Type()), c.why)
			}
		case tag.Header:
			sf.route = routeHeader
			if !c.text && c.kind != classSlice && c.kind != classInterface {
				sf.err = fmt.Sprintf("a header must be text or a slice of text, not %s", g.typeString(f.Type()))
			}
		case c.kind == classModel || c.kind == classModelSlice || c.kind == classFile:
			sf.route = routeBody
		case c.kind == classBytes || c.kind == classFileSlice:
			sf.err = typeProblem(g.typeString(f.Type()), c.why)
		case c.kind == classMap:
			sf.route = routeMap
		case c.kind == classInterface:
			sf.route = routeDynamic
		default:
			sf.route = routeQuery
		}
		out = append(out, sf)
	}
	return out
}

// checkNames reports two parameters (or fields of spread structs) that send
// one query or header name, as kit would refuse the declaration.
func (g *generator) checkNames(m *Method) {
	seen := map[string]string{}
	goNames := map[string]string{} // promoted field names of spread structs
	add := func(p *Param, key, what string) {
		if prev, dup := seen[key]; dup {
			g.errorf(p.Pos, "%s: %s and %s both send %s", m.Name, prev, what, strings.TrimPrefix(key, "query "))
			return
		}
		seen[key] = what
	}
	for _, h := range m.Headers {
		seen["header "+http.CanonicalHeaderKey(h.Name)] = fmt.Sprintf("%q", h.Name+": "+h.Value)
	}
	for _, p := range m.Params {
		switch p.Route {
		case routeQuery:
			add(p, "query "+fmt.Sprintf("%q", p.Tag), "parameter "+p.Name)
		case routeHeader:
			// Header names were checked with the directives.
			seen["header "+http.CanonicalHeaderKey(p.Tag)] = "parameter " + p.Name
		case routeSpread:
			t := types.Unalias(p.Type)
			if ptr, ok := t.(*types.Pointer); ok {
				t = types.Unalias(ptr.Elem())
			}
			for _, f := range g.spreadFields(t.Underlying().(*types.Struct)) {
				what := fmt.Sprintf("parameter %s (field %s)", p.Name, f.goName)
				if prev, dup := goNames[f.goName]; dup {
					g.errorf(p.Pos, "%s: %s and %s have a field %s: embedded in one parameter struct, they would hide each other", m.Name, prev, "parameter "+p.Name, f.goName)
				}
				goNames[f.goName] = "parameter " + p.Name
				switch f.route {
				case routeQuery:
					add(p, "query "+fmt.Sprintf("%q", f.name), what)
				case routeHeader:
					add(p, "header "+http.CanonicalHeaderKey(f.name), what)
				}
			}
		}
	}
	for _, p := range m.Params {
		if p.Route != routeSpread {
			continue
		}
		if prev, dup := goNames[p.Embed]; dup && prev != "parameter "+p.Name {
			g.errorf(p.Pos, "%s: %s has a field %s, which the embedded %s of parameter %s would hide", m.Name, prev, p.Embed, p.Embed, p.Name)
		}
		for _, q := range m.Params {
			if q != p && q.Route == routeSpread && q.Embed == p.Embed {
				g.errorf(p.Pos, "%s: parameters %s and %s are both spread structs named %s; kitgen embeds them, so their type names must differ", m.Name, q.Name, p.Name, p.Embed)
				break
			}
		}
	}
}

// checkBody is kit's checkBody for what the options say of the body's
// encoding: kit.FormBody() and kit.Multipart() need one data model, and
// only Multipart() takes files.
func (g *generator) checkBody(m *Method) {
	enc := ""
	for _, o := range m.Options {
		if o.kitFunc != "FormBody" && o.kitFunc != "Multipart" {
			continue
		}
		oenc := "kit." + o.kitFunc + "()"
		if enc != "" && enc != oenc {
			g.errorf(o.Pos, "%s: %s and %s exclude each other", m.Name, enc, oenc)
			return
		}
		enc = oenc
	}
	bf := m.body
	switch {
	case bf == nil:
		dynamic := false
		for _, p := range m.Params {
			dynamic = dynamic || p.Route == routeDynamic
		}
		if enc != "" && !dynamic {
			g.errorf(m.NamePos, "%s: %s needs a body model: a parameter that is a struct", m.Name, enc)
		}
	case bf.Route == routeFile:
		if enc != "" {
			g.errorf(bf.Pos, "%s: parameter %s is a kit.File, the raw request body; with %s put it in the body model", m.Name, bf.Name, enc)
		}
	case enc == "":
		if name := g.jsonFileField(bf.Type); name != "" {
			g.errorf(bf.Pos, "%s: field %s of the body model %s is a kit.File: add //kit:option kit.Multipart() to upload it", m.Name, name, g.typeString(bf.Type))
		}
	case bf.class.kind != classModel:
		g.errorf(bf.Pos, "%s: a %s body is one data model (a struct), not %s", m.Name, enc, g.typeString(bf.Type))
	default:
		if why := g.formProblem(bf.Type, enc == "kit.Multipart()"); why != "" {
			g.errorf(bf.Pos, "%s: %s", m.Name, why)
		}
	}
}

// nestedFormProblem is kit's buildFormNode for a nested value of a form
// body: why no form can write a value of type t, or "".
func (g *generator) nestedFormProblem(t types.Type, seen map[types.Type]bool) string {
	t = types.Unalias(t)
	if seen[t] {
		return ""
	}
	seen[t] = true
	if isNamed(t, kitPath, "Nullable") {
		return g.nestedFormProblem(t.(*types.Named).TypeArgs().At(0), seen)
	}
	switch c := g.cls.classify(t, 0); c.kind {
	case classFile, classFileSlice:
		return fmt.Sprintf("type %s holds a kit.File: a form has text fields only; use //kit:option kit.Multipart() to upload files", g.typeString(t))
	case classScalar, classBytes, classInterface:
		return ""
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return g.nestedFormProblem(u.Elem(), seen)
	case *types.Slice:
		return g.nestedFormProblem(u.Elem(), seen)
	case *types.Array:
		return g.nestedFormProblem(u.Elem(), seen)
	case *types.Map:
		if k, ok := u.Key().Underlying().(*types.Basic); !ok || k.Info()&types.IsString == 0 {
			return fmt.Sprintf("type %s: a map's keys are written as form keys, and its key type %s is not a string kind", g.typeString(t), g.typeString(u.Key()))
		}
		return g.nestedFormProblem(u.Elem(), seen)
	case *types.Struct:
		for _, vf := range visibleFields(u) {
			f := vf.v
			jt := vf.tag.Get("json")
			jname, _, _ := strings.Cut(jt, ",")
			if jt == "-" || !f.Exported() {
				continue
			}
			if f.Anonymous() && jname == "" {
				if _, isStruct := derefNamed(f.Type()).Underlying().(*types.Struct); isStruct {
					continue
				}
			}
			if why := g.nestedFormProblem(f.Type(), seen); why != "" {
				return fmt.Sprintf("field %s of %s: %s", f.Name(), g.typeString(t), why)
			}
		}
		return ""
	case *types.Interface:
		return fmt.Sprintf("type %s %s (an interface with methods)", g.typeString(t), whyNoText)
	}
	return fmt.Sprintf("type %s %s", g.typeString(t), whyNoText)
}

// jsonFileField is kit's jsonFileField: the name of a kit.File field of a
// JSON body model, which JSON cannot carry.
func (g *generator) jsonFileField(t types.Type) string {
	for {
		switch u := types.Unalias(t).Underlying().(type) {
		case *types.Pointer:
			t = u.Elem()
			continue
		case *types.Slice:
			t = u.Elem()
			continue
		case *types.Array:
			t = u.Elem()
			continue
		}
		break
	}
	st, ok := types.Unalias(t).Underlying().(*types.Struct)
	if !ok {
		return ""
	}
	for _, vf := range visibleFields(st) {
		if !vf.v.Exported() || vf.tag.Get("json") == "-" {
			continue
		}
		switch g.cls.classify(vf.v.Type(), 0).kind {
		case classFile, classFileSlice:
			return vf.v.Name()
		}
	}
	return ""
}

// formProblem is what kit's newFormPlan refuses in a form or multipart
// body model, or "".
func (g *generator) formProblem(t types.Type, multipart bool) string {
	enc := "form"
	if multipart {
		enc = "multipart"
	}
	t = derefNamed(t)
	st, ok := t.Underlying().(*types.Struct)
	if !ok || !g.cls.isModel(t) {
		return fmt.Sprintf("a %s body is one data model (a struct), not %s", enc, g.typeString(t))
	}
	name := g.typeString(t)
	for _, vf := range visibleFields(st) {
		f := vf.v
		jt := vf.tag.Get("json")
		jname, _, _ := strings.Cut(jt, ",")
		if jt == "-" {
			continue
		}
		if f.Anonymous() && jname == "" {
			if _, isStruct := derefNamed(f.Type()).Underlying().(*types.Struct); isStruct {
				continue // promoted, as in JSON
			}
		}
		if !f.Exported() {
			continue
		}
		c := g.cls.classify(f.Type(), 0)
		switch c.kind {
		case classScalar, classBytes, classSlice, classInterface:
		case classFile, classFileSlice:
			if !multipart {
				return fmt.Sprintf("field %s of %s is a kit.File: a form has text fields only; use //kit:option kit.Multipart() to upload files", f.Name(), name)
			}
		case classModel, classModelSlice, classMap:
			if !multipart {
				if why := g.nestedFormProblem(f.Type(), map[types.Type]bool{}); why != "" {
					return fmt.Sprintf("field %s of %s: %s", f.Name(), name, why)
				}
			}
		default:
			if c.why != "" {
				return fmt.Sprintf("field %s of %s: %s", f.Name(), name, typeProblem(g.typeString(f.Type()), c.why))
			}
			return fmt.Sprintf("field %s of %s: type %s cannot be sent in a %s body", f.Name(), name, g.typeString(f.Type()), enc)
		}
	}
	return ""
}
