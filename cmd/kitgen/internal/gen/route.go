package gen

import (
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/kithttp/kit/internal/routing"
	"github.com/kithttp/kit/internal/structtag"
)

// This file applies kit's routing table (internal/routing, which kit's
// router applies at declaration too) to the parameters of declared
// methods. kitgen keeps only its type inspection, over go/types (goType),
// and the way its directives name parameters.

// classifier answers the routing rules' questions about go/types types.
type classifier struct {
	methods [3]*types.Interface     // by routing.Methods: TextMarshaler, Stringer, Reader
	str     func(types.Type) string // prints a type in messages
}

func newClassifier(str func(types.Type) string) *classifier {
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
	c := &classifier{str: str}
	c.methods[routing.TextMarshaler] = iface("MarshalText", nil, tuple(byteSlice, errType))
	c.methods[routing.Stringer] = iface("String", nil, tuple(types.Typ[types.String]))
	c.methods[routing.Reader] = iface("Read", tuple(byteSlice), tuple(types.Typ[types.Int], errType))
	return c
}

// classify returns how values of type t are routed.
func (c *classifier) classify(t types.Type) routing.Class { return routing.Classify(c.typ(t)) }

// typ is t as the routing rules see it.
func (c *classifier) typ(t types.Type) goType { return goType{types.Unalias(t), c} }

// goType is a types.Type as the routing rules ask about it: kitgen's half
// of the type inspection (kit's is over reflect).
type goType struct {
	t types.Type
	c *classifier
}

func (g goType) Shape() routing.Shape {
	if !valid(g.t) {
		return routing.OtherShape
	}
	switch u := g.t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.UnsafePointer:
			return routing.NoTextShape
		case u.Info()&(types.IsBoolean|types.IsInteger|types.IsFloat|types.IsString) != 0:
			return routing.BasicShape
		}
	case *types.Pointer:
		return routing.PointerShape
	case *types.Interface:
		return routing.InterfaceShape
	case *types.Slice, *types.Array:
		return routing.SequenceShape
	case *types.Map:
		return routing.MapShape
	case *types.Struct:
		return routing.StructShape
	case *types.Chan, *types.Signature:
		return routing.NoTextShape
	}
	return routing.OtherShape
}

func (g goType) Elem() routing.Type {
	switch u := g.t.Underlying().(type) {
	case *types.Pointer:
		return g.c.typ(u.Elem())
	case *types.Slice:
		return g.c.typ(u.Elem())
	case *types.Array:
		return g.c.typ(u.Elem())
	case *types.Map:
		return g.c.typ(u.Elem())
	}
	return g.c.typ(types.Typ[types.Invalid])
}

func (g goType) Key() routing.Type {
	if m, ok := g.t.Underlying().(*types.Map); ok {
		return g.c.typ(m.Key())
	}
	return g.c.typ(types.Typ[types.Invalid])
}

func (g goType) Is(k routing.Known) bool {
	if !valid(g.t) {
		return false
	}
	switch k {
	case routing.Time:
		return isNamed(g.t, "time", "Time")
	case routing.KitFile:
		return isNamed(g.t, kitPath, "File")
	case routing.Byte, routing.String, routing.Integer:
		b, ok := g.t.Underlying().(*types.Basic)
		switch k {
		case routing.Byte:
			return ok && b.Kind() == types.Uint8
		case routing.Integer:
			return ok && b.Info()&types.IsInteger != 0
		}
		return ok && b.Info()&types.IsString != 0
	case routing.URLPointer:
		return isPointerTo(g.t, "net/url", "URL")
	case routing.ResponsePointer:
		return isPointerTo(g.t, kitPath, "Response")
	case routing.ReadCloser:
		return isNamed(g.t, "io", "ReadCloser")
	case routing.KitResult:
		return isNamed(g.t, kitPath, "Result")
	case routing.KitStream:
		return isNamed(g.t, kitPath, "Stream")
	case routing.KitNullable:
		return isNamed(g.t, kitPath, "Nullable")
	}
	return false
}

// Arg is T of kit.Result[T], kit.Stream[T] or kit.Nullable[T].
func (g goType) Arg() routing.Type {
	if n, ok := g.t.(*types.Named); ok && n.TypeArgs().Len() == 1 {
		return g.c.typ(n.TypeArgs().At(0))
	}
	return g.c.typ(types.Typ[types.Invalid])
}

func (g goType) String() string { return g.c.str(g.t) }

func (g goType) Implements(m routing.Methods) bool {
	return valid(g.t) && types.Implements(g.t, g.c.methods[m])
}

func (g goType) PointerImplements(m routing.Methods) bool {
	return valid(g.t) && types.Implements(types.NewPointer(g.t), g.c.methods[m])
}

func (g goType) HasMethods() bool {
	i, ok := g.t.Underlying().(*types.Interface)
	return ok && i.NumMethods() > 0
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

// isNamed reports whether t is the named type pkgPath.name.
func isNamed(t types.Type, pkgPath, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	o := n.Obj()
	return o.Pkg() != nil && o.Pkg().Path() == pkgPath && o.Name() == name
}

func isInterface(t types.Type) bool {
	_, ok := t.Underlying().(*types.Interface)
	return ok
}

// wireName is w(p): kit's snake_case of the exported Go name.
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

// field describes parameter p for the routing rules.
func (g *generator) routingField(p *Param) *routing.Field {
	return &routing.Field{
		GoName: p.Name, T: g.cls.typ(p.Type), Class: p.class,
		Name: p.Tag, Named: p.named, Mark: p.mark, Placeholder: p.placeholder,
		Join: p.Join,
	}
}

// routes routes the parameters of m: the directives mark them, kitgen
// matches the placeholders by Go name or w(p), and the table of
// internal/routing decides.
func (g *generator) routes(m *Method, placeholders []placeholder) {
	byName := map[string]*Param{}
	for _, p := range m.Params {
		byName[p.Name] = p
		p.class = g.cls.classify(p.Type)
		p.Tag = wireName(p.Name)
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
	mark := func(dl *dirLine, a Arg, mk routing.Mark) *Param {
		p := lookup(dl, a)
		if p == nil {
			return nil
		}
		if p.by != nil {
			g.errorf(dl.pos(a.Off), "%s: parameter %s is already sent by %s", m.Name, p.Name, p.by.d)
			return nil
		}
		p.by, p.mark = dl, mk
		return p
	}
	var omit []*dirLine
	for _, dl := range m.dirs {
		d := dl.d
		switch d.Verb {
		case "header":
			if d.Param.Text == "" {
				m.Headers = append(m.Headers, constHeader{Name: d.Name.Text, Value: d.Value.Text, pos: dl.pos(d.Name.Off)})
			} else if p := mark(dl, d.Param, routing.MarkHeader); p != nil {
				p.Tag, p.named = d.Name.Text, true
			}
		case "query":
			if p := mark(dl, d.Param, routing.MarkQuery); p != nil && d.Name.Text != "" {
				p.Tag, p.named, p.Join = d.Name.Text, true, d.Join
			}
		case "url":
			if p := mark(dl, d.Param, routing.MarkURL); p != nil {
				p.Tag = "" // `kit:",url"`
			}
		case "body":
			if p := mark(dl, d.Param, routing.MarkBody); p != nil {
				p.Tag = "" // `kit:",body"`
			}
		case "omitempty":
			omit = append(omit, dl)
		}
	}
	reported := g.placeholders(m, placeholders)
	isPlaceholder := map[string]bool{}
	for _, ph := range placeholders {
		isPlaceholder[ph.name] = true
	}

	plan := routing.Directives.NewPlan()
	for _, h := range m.Headers {
		if err := plan.Send(routing.Header, h.Name, strconv.Quote(h.Name+": "+h.Value)); err != nil {
			g.errorf(h.pos, "%s: %v", m.Name, err)
		}
	}
	for _, p := range m.Params {
		if reported[p] {
			continue
		}
		pos := p.Pos
		if p.by != nil {
			pos = p.by.pos(p.by.d.Param.Off)
		}
		f := g.routingField(p)
		r, err := routing.Directives.Route(f)
		if err != nil {
			g.errorf(pos, "%s: %v", m.Name, err)
			continue
		}
		if r == routing.QueryStruct && !g.spread(m, p, plan, isPlaceholder) {
			continue
		}
		if r == routing.QueryDeep {
			// kit writes it with the nested form encoder (buildFormNode).
			if why := g.nestedFormProblem(p.Type, map[types.Type]bool{}); why != "" {
				g.errorf(pos, "%s: %s: %s", m.Name, routing.Directives.Subject(p.Name), why)
				continue
			}
		}
		if err := plan.Add(f, r); err != nil {
			switch r {
			case routing.Header:
				pos = p.by.pos(p.by.d.Name.Off)
			case routing.Query:
				pos = p.Pos
			}
			g.errorf(pos, "%s: %v", m.Name, err)
			continue
		}
		p.Route = r
		if (r == routing.Body || r == routing.RawFile) && m.body == nil {
			m.body = p
		}
	}

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
			if p.Route != routing.Query && p.Route != routing.Header {
				g.errorf(dl.pos(a.Off), "%s: //kit:omitempty %s: parameter %s goes to the %s; omitempty is for query and header parameters", m.Name, a.Text, p.Name, p.Route)
				continue
			}
			p.OmitEmpty = true
		}
	}

	g.checkEmbeds(m)

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

// placeholders matches each placeholder of the path with the parameter
// whose Go name or w(p) it is, and marks it. It returns the parameters it
// reported a mistake for, which are routed no further.
func (g *generator) placeholders(m *Method, placeholders []placeholder) map[*Param]bool {
	filled := map[*Param]string{}
	reported := map[*Param]bool{}
	for _, ph := range placeholders {
		var cands []*Param
		var marked *Param
		for _, p := range m.Params {
			if p.Name != ph.name && wireName(p.Name) != ph.name {
				continue
			}
			if p.by != nil {
				marked = p
				continue
			}
			cands = append(cands, p)
		}
		switch {
		case len(cands) == 0 && marked != nil:
			g.errorf(ph.pos, "%s: placeholder {%s} has no parameter: %s is sent by %s", m.Name, ph.name, marked.Name, marked.by.d)
		case len(cands) == 0:
			g.errorf(ph.pos, "%s: %v", m.Name, routing.Directives.Unfilled(ph.name))
		case len(cands) > 1:
			g.errorf(ph.pos, "%s: placeholder {%s} matches two parameters, %s and %s", m.Name, ph.name, cands[0].Name, cands[1].Name)
			for _, p := range cands {
				reported[p] = true
			}
		default:
			p := cands[0]
			if prev, dup := filled[p]; dup {
				g.errorf(ph.pos, "%s: parameter %s fills both {%s} and {%s}; a parameter fills one placeholder", m.Name, p.Name, prev, ph.name)
				reported[p] = true
				continue
			}
			filled[p] = ph.name
			p.placeholder, p.Tag = true, ph.name
		}
	}
	return reported
}

// spread checks //kit:query {p} on a struct: kitgen embeds the struct in P,
// so kit routes its fields as P's own; each must be a query parameter or a
// header, and its names join the plan.
func (g *generator) spread(m *Method, p *Param, plan *routing.Plan, isPlaceholder map[string]bool) bool {
	pos := p.by.pos(p.by.d.Param.Off)
	t := types.Unalias(p.Type)
	if ptr, ok := t.(*types.Pointer); ok {
		t, p.Ptr = types.Unalias(ptr.Elem()), true
	}
	named, ok := t.(*types.Named)
	if !ok {
		g.errorf(pos, "%s: //kit:query {%s}: kitgen embeds the struct in the parameters, so it needs a named type, not %s", m.Name, p.Name, g.typeString(p.Type))
		return false
	}
	p.Embed = named.Obj().Name()
	ok = true
	for _, f := range g.spreadFields(named.Underlying().(*types.Struct), p.Embed, isPlaceholder) {
		prefix := fmt.Sprintf("%s: //kit:query {%s}: ", m.Name, p.Name)
		label := f.goName + " of " + p.Embed
		switch {
		case f.err != nil:
			g.errorf(pos, "%s%v", prefix, f.err)
		case f.route == routing.Body || f.route == routing.RawFile:
			g.errorf(pos, "%sfield %s would be the request body; a spread struct has query and header fields only", prefix, label)
		case f.route != routing.Header && f.placeholder:
			g.errorf(pos, "%sfield %s is named like the placeholder {%s}; fill placeholders with parameters", prefix, label, f.name)
		case f.route == routing.Query || f.route == routing.Header || f.route == routing.QueryDeep:
			if err := plan.Send(f.route, f.name, fmt.Sprintf("parameter %s (field %s)", p.Name, f.goName)); err != nil {
				g.errorf(p.Pos, "%s: %v", m.Name, err)
			} else {
				continue
			}
		default:
			continue
		}
		ok = false
	}
	return ok
}

// spreadField is a field of a spread struct as kit routes it.
type spreadField struct {
	goName      string
	name        string // query name, or header name
	route       routing.Route
	placeholder bool // name is a placeholder of the path
	err         error
}

// spreadFields lists the fields kit routes in the struct owner, embedded in
// P, by the rules of internal/routing, as kit's newParamPlan does.
func (g *generator) spreadFields(st *types.Struct, owner string, isPlaceholder map[string]bool) []spreadField {
	var out []spreadField
	for _, vf := range visibleFields(st) {
		f := vf.v
		ft := g.cls.typ(f.Type())
		tag, mark, routed, problem := routing.Member(f.Exported(), f.Anonymous(), ft.Shape(), vf.tag.Get("kit"))
		sf := spreadField{goName: f.Name()}
		label := f.Name() + " of " + owner
		switch {
		case problem != "":
			sf.err = fmt.Errorf("field %s: %s", label, problem)
		case !routed:
			continue
		case mark == routing.MarkURL || mark == routing.MarkBody || mark == routing.MarkQuery && tag.Name == "":
			sf.err = fmt.Errorf("field %s: the kit tag options url, body and an unnamed query are for kit's own parameter structs; a spread struct has query and header fields", label)
		default:
			sf.name = routing.WireName(tag, f.Name())
			sf.placeholder = isPlaceholder[sf.name]
			sf.route, sf.err = routing.Tags.Route(&routing.Field{
				GoName: label, T: ft, Class: routing.Classify(ft),
				Name: sf.name, Named: tag.Name != "", Mark: mark, Join: tag.Join,
			})
			if sf.err == nil && sf.route == routing.QueryDeep {
				if why := g.nestedFormProblem(f.Type(), map[types.Type]bool{}); why != "" {
					sf.err = fmt.Errorf("field %s: %s", label, why)
				}
			}
		}
		out = append(out, sf)
	}
	return out
}

// checkEmbeds reports spread structs that would hide each other's fields,
// or a parameter, once embedded in one parameter struct.
func (g *generator) checkEmbeds(m *Method) {
	goNames := map[string]string{} // promoted field names of spread structs
	for _, p := range m.Params {
		if p.Route != routing.QueryStruct {
			continue
		}
		for _, f := range g.spreadFields(derefNamed(p.Type).Underlying().(*types.Struct), p.Embed, nil) {
			if prev, dup := goNames[f.goName]; dup {
				g.errorf(p.Pos, "%s: %s and %s have a field %s: embedded in one parameter struct, they would hide each other", m.Name, prev, "parameter "+p.Name, f.goName)
			}
			goNames[f.goName] = "parameter " + p.Name
		}
	}
	for _, p := range m.Params {
		if p.Route != routing.QueryStruct {
			continue
		}
		if prev, dup := goNames[p.Embed]; dup && prev != "parameter "+p.Name {
			g.errorf(p.Pos, "%s: %s has a field %s, which the embedded %s of parameter %s would hide", m.Name, prev, p.Embed, p.Embed, p.Name)
		}
		for _, q := range m.Params {
			if q != p && q.Route == routing.QueryStruct && q.Embed == p.Embed {
				g.errorf(p.Pos, "%s: parameters %s and %s are both spread structs named %s; kitgen embeds them, so their type names must differ", m.Name, q.Name, p.Name, p.Embed)
				break
			}
		}
	}
}

// checkBody checks the body against the method and what the options say of
// its encoding (kit.FormBody() and kit.Multipart()), by the rules of
// internal/routing, as kit checks it at declaration.
func (g *generator) checkBody(m *Method) {
	enc := routing.JSON
	for _, o := range m.Options {
		var oenc routing.Encoding
		switch o.kitFunc {
		case "FormBody":
			oenc = routing.Form
		case "Multipart":
			oenc = routing.Multipart
		default:
			continue
		}
		if enc != routing.JSON && enc != oenc {
			g.errorf(o.Pos, "%s: %s", m.Name, routing.Exclusive(enc, oenc))
			return
		}
		enc = oenc
	}
	var body *routing.Field
	pos, route, dynamic := m.NamePos, routing.None, false
	for _, p := range m.Params {
		dynamic = dynamic || p.Route == routing.Dynamic
	}
	if bf := m.body; bf != nil {
		body, pos, route = g.routingField(bf), bf.Pos, bf.Route
	}
	walk, err := routing.Directives.Body(m.Verb, enc, body, route, dynamic)
	switch {
	case err != nil:
		g.errorf(pos, "%s: %v", m.Name, err)
	case !walk:
	case enc == routing.JSON:
		if err := g.jsonFileField(m.body.Type); err != nil {
			g.errorf(pos, "%s: %v", m.Name, err)
		}
	case routing.FormMap(body):
		// kit.FormBody writes the map's entries as the form's keys (kit's buildFormNode).
		if why := g.nestedFormProblem(m.body.Type, map[types.Type]bool{}); why != "" {
			g.errorf(pos, "%s: %s: %s", m.Name, routing.Directives.Subject(m.body.Name), why)
		}
	default:
		if err := g.formProblem(m.body.Type, enc == routing.Multipart); err != nil {
			g.errorf(pos, "%s: %v", m.Name, err)
		}
	}
}

// jsonFileField checks the fields of the JSON body model t for a kit.File,
// as kit's jsonFileField does.
func (g *generator) jsonFileField(t types.Type) error {
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
		case *types.Map:
			t = u.Elem()
			continue
		}
		break
	}
	st, ok := types.Unalias(t).Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	for _, vf := range visibleFields(st) {
		if !routing.JSONMember(vf.v.Exported(), vf.tag.Get("json")) {
			continue
		}
		if err := routing.Directives.JSONField(g.typeString(t), vf.v.Name(), g.cls.classify(vf.v.Type())); err != nil {
			return err
		}
	}
	return nil
}

// formProblem checks the form or multipart body model t, as kit's
// newFormPlan does.
func (g *generator) formProblem(t types.Type, multipart bool) error {
	enc := routing.Form
	if multipart {
		enc = routing.Multipart
	}
	t = derefNamed(t)
	st, ok := t.Underlying().(*types.Struct)
	if !ok || !routing.IsModel(g.cls.typ(t)) {
		return fmt.Errorf("%s", routing.NotOneModel(enc, g.typeString(t)))
	}
	name := g.typeString(t)
	for _, vf := range visibleFields(st) {
		f := vf.v
		if _, _, _, sent := routing.FormMember(f.Exported(), f.Anonymous(), g.cls.typ(derefNamed(f.Type())).Shape(), f.Name(), vf.tag.Get("json")); !sent {
			continue
		}
		c := g.cls.classify(f.Type())
		if !multipart && (c.Kind == routing.Model || c.Kind == routing.ModelSlice || c.Kind == routing.Map || c.Kind == routing.Invalid && nestable(f.Type())) {
			// kit.FormBody writes nested values in brackets (kit's buildFormNode).
			if why := g.nestedFormProblem(f.Type(), map[types.Type]bool{}); why != "" {
				return fmt.Errorf("field %s of %s: %s", f.Name(), name, why)
			}
			continue
		}
		if _, err := routing.Directives.FormField(name, f.Name(), g.typeString(f.Type()), c, multipart); err != nil {
			return err
		}
	}
	return nil
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
	switch c := g.cls.classify(t); c.Kind {
	case routing.File, routing.FileSlice:
		return routing.Directives.NestedFormFile(g.typeString(t))
	case routing.Scalar, routing.Bytes, routing.Interface:
		return ""
	}
	if ownJSON(t) {
		return "" // written as its JSON is (kit's fnJSON): a union
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
			return routing.FormMapKey(g.typeString(t), g.typeString(u.Key()))
		}
		return g.nestedFormProblem(u.Elem(), seen)
	case *types.Struct:
		for _, vf := range visibleFields(u) {
			f := vf.v
			name, _, _, sent := routing.FormMember(f.Exported(), f.Anonymous(), g.cls.typ(derefNamed(f.Type())).Shape(), f.Name(), vf.tag.Get("json"))
			if !sent {
				continue
			}
			if why := routing.FormKeyProblem(name); why != "" {
				return fmt.Sprintf("field %s of %s: %s", f.Name(), g.typeString(t), why)
			}
			if why := g.nestedFormProblem(f.Type(), seen); why != "" {
				return fmt.Sprintf("field %s of %s: %s", f.Name(), g.typeString(t), why)
			}
		}
		return ""
	}
	if c := g.cls.classify(t); c.Why != "" {
		return routing.TypeProblem(g.typeString(t), c.Why)
	}
	return fmt.Sprintf("type %s cannot be sent in a form", g.typeString(t))
}

// nestable reports whether t (through pointers) is a map, slice, array or
// struct: a form writes it in brackets (kit's buildFormNode) even where
// the routing classes have no class for it (a map of structs).
func nestable(t types.Type) bool {
	for {
		switch u := t.Underlying().(type) {
		case *types.Pointer:
			t = u.Elem()
			continue
		case *types.Map, *types.Slice, *types.Array, *types.Struct:
			return true
		}
		return false
	}
}

// ownJSON reports whether t (not a pointer or interface) writes its own
// JSON (a MarshalJSON or MarshalJSONTo method, by value or pointer), as
// kit's hasOwnJSON decides.
func ownJSON(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Interface:
		return false
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	for _, name := range []string{"MarshalJSON", "MarshalJSONTo"} {
		if sel := ms.Lookup(nil, name); sel != nil && sel.Obj().Exported() {
			return true
		}
	}
	return false
}
