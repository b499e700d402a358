package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kithttp/kit/internal/routing"
)

// kitPath is the import path of kit.
const kitPath = "github.com/kithttp/kit"

// Model is what the declarations of one package ask kitgen to generate.
type Model struct {
	Pkg     *types.Package
	Roots   []*Root      // //kit:client structs, in source order
	Ifaces  []*Iface     // endpoint interfaces, in the order they are first embedded
	Structs []*ResStruct // resource struct types, in the order they are first used
	Sources []string     // base names of the files holding the declarations, sorted
}

// Root is a //kit:client struct.
type Root struct {
	Name        string
	Obj         *types.TypeName
	Async       bool   // it embeds *kit.AsyncClient
	ClientField string // the name of its embedded *kit.Client or *kit.AsyncClient
	Options     []*Option
	Body        *structBody
}

// structBody is what a root or a resource struct holds for kitgen to fill:
// endpoint interfaces (embedded, or named fields) and resource fields.
type structBody struct {
	Ifaces    []ifaceField
	Resources []*ResField
}

type ifaceField struct {
	Field string
	Iface *Iface
	Pos   token.Pos
	// Embedded: the struct promotes the interface's methods; otherwise
	// the field is named and calls go through it.
	Embedded bool
}

// ResField is a field with //kit:resource.
type ResField struct {
	Field   string
	Path    string
	Options []*Option
	Elem    types.Type // T of the resource
	Async   bool       // *kit.AsyncResource
	Struct  *ResStruct // nil for a plain *kit.Resource[T] or *kit.AsyncResource[T]
	Ptr     bool       // with Struct: the field is *S rather than S
}

// ResStruct is a struct type embedding *kit.Resource[T] or
// *kit.AsyncResource[T]: a resource with endpoints of its own.
type ResStruct struct {
	Name     string
	Obj      *types.TypeName
	ResField string // the name of its embedded resource field
	Elem     types.Type
	Async    bool
	Body     *structBody
}

// Iface is an endpoint interface: kitgen implements each of its methods.
type Iface struct {
	Name     string
	Obj      *types.TypeName
	Async    bool // embedded in an async root or resource
	Methods  []*Method
	embedded token.Pos
}

// Method is an endpoint method of an interface.
type Method struct {
	Iface   *Iface
	Name    string
	NamePos token.Pos
	Src     token.Position
	Sig     *types.Signature
	Type    *ast.FuncType
	dirs    []*dirLine

	Verb    string // GET, POST, ...
	Path    string
	NoAuth  bool
	Options []*Option
	Poll    *Option // the //kit:poll kit.PollOptions of a poller method; nil: the zero value
	Ctx     string  // the name of the context parameter in the generated method
	Opts    string  // the name of a last `...kit.CallOption` parameter; "": none
	Params  []*Param
	Headers []constHeader
	Result  resultKind
	R       types.Type // R of the endpoint, or T of the records
	ok      bool       // no errors: emit it

	misplaced bool   // a malformed or trailing directive is reported already
	body      *Param // the request body, if any
}

// Param is one parameter of an endpoint method, after ctx, and its route.
type Param struct {
	Name      string
	Type      types.Type
	Pos       token.Pos
	Route     routing.Route
	Tag       string // the kit tag name: a query name, placeholder or header name
	OmitEmpty bool
	Join      string // routing.Query: a list option (csv, ssv, pipes): the list is sent as one value
	Ptr       bool   // routing.QueryStruct: the parameter is *S
	Embed     string // routing.QueryStruct: the name of the embedded field (S's name)

	class       routing.Class
	by          *dirLine     // the directive that marks it, if any
	mark        routing.Mark // what that directive says
	named       bool         // Tag was given by a directive
	placeholder bool         // it fills the placeholder Tag
}

// constHeader is a //kit:header Name: literal.
type constHeader struct {
	Name, Value, Field string
	pos                token.Pos // of its name in the directive
}

type resultKind uint8

const (
	resultCall   resultKind = iota // (R, error): ep.Call
	resultError                    // error: ep.Call with R = *kit.Response, dropped
	resultFuture                   // *kit.Future[R]: ep.Go
	resultIter                     // iter.Seq2[T, error]: Iterate / GoIterate
	resultPages                    // iter.Seq2[*kit.Page[T], error]: Pages / GoPages
	resultPoller                   // (*kit.Poller[R], error): ep.Call with R = *kit.Response, then kit.NewPoller[R]
)

// Option is a //kit:option expression, type-checked in its file's scope.
type Option struct {
	Pos  token.Pos
	Expr ast.Expr
	// pkgs maps identifiers naming an imported package, or an object of one
	// reached through a dot import, to that package's path: imports.go
	// renames them for the generated file.
	pkgs map[*ast.Ident]*types.Package
	dot  map[*ast.Ident]bool
	// kitFunc names the kit function the expression calls, if it is such
	// a call: kitgen checks FormBody, Multipart and the paging options as
	// kit would.
	kitFunc string
	// staticArg is set on kit.PagedBy(L) where L is a composite literal of
	// constants (kit.LinkHeader{}): static data, passed to
	// LazyOperation.PagedOf on every call at no cost.
	staticArg bool
}

// dirLine is one directive comment line.
type dirLine struct {
	c       *ast.Comment
	group   *ast.CommentGroup
	d       Directive
	err     *DirectiveError
	claimed bool
}

// pos returns the position of the byte at off in the directive's text.
func (dl *dirLine) pos(off int) token.Pos { return dl.c.Slash + token.Pos(off) }

// generator holds the state of one package's generation.
type generator struct {
	fset   *token.FileSet
	pkg    *types.Package
	info   *types.Info
	files  []*ast.File
	output string // base name of the output file
	cls    *classifier

	diags    []Diag
	lines    map[*ast.CommentGroup][]*dirLine
	claimed  map[*ast.CommentGroup][]*dirLine
	order    []*dirLine
	trailing map[*ast.CommentGroup]bool
	specs    map[*types.TypeName]*ast.TypeSpec
	docs     map[*ast.TypeSpec]*ast.CommentGroup

	model   Model
	ifaces  map[*types.TypeName]*Iface
	structs map[*types.TypeName]*ResStruct
	sources map[string]bool
}

func (g *generator) errorf(pos token.Pos, format string, args ...any) {
	g.diags = append(g.diags, Diag{Position: g.fset.Position(pos), Msg: fmt.Sprintf(format, args...)})
}

// build reads the declarations of the package into g.model.
func (g *generator) build() {
	g.cls = newClassifier(g.typeString)
	g.ifaces = map[*types.TypeName]*Iface{}
	g.structs = map[*types.TypeName]*ResStruct{}
	g.sources = map[string]bool{}
	g.model.Pkg = g.pkg
	g.scanDirectives()
	for _, ts := range g.indexTypes() {
		if hasVerb(g.lines[g.docs[ts]], "client") {
			g.root(ts)
		}
	}
	g.reportUnclaimed()
	for name := range g.sources {
		g.model.Sources = append(g.model.Sources, name)
	}
	sort.Strings(g.model.Sources)
}

func hasVerb(lines []*dirLine, verb string) bool {
	for _, dl := range lines {
		if dl.err == nil && dl.d.Verb == verb {
			return true
		}
	}
	return false
}

// scanDirectives parses every directive comment of the package, and notes
// which comment groups trail a declaration on its line.
func (g *generator) scanDirectives() {
	g.lines = map[*ast.CommentGroup][]*dirLine{}
	g.claimed = map[*ast.CommentGroup][]*dirLine{}
	g.trailing = map[*ast.CommentGroup]bool{}
	for _, f := range g.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				g.trailing[n.Comment] = true
			case *ast.ValueSpec:
				g.trailing[n.Comment] = true
			case *ast.TypeSpec:
				g.trailing[n.Comment] = true
			case *ast.ImportSpec:
				g.trailing[n.Comment] = true
			}
			return true
		})
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				d, ok, err := ParseDirective(c.Text)
				if !ok {
					continue
				}
				dl := &dirLine{c: c, group: cg, d: d}
				if err != nil {
					dl.err = err.(*DirectiveError)
				}
				g.lines[cg] = append(g.lines[cg], dl)
				g.order = append(g.order, dl)
			}
		}
	}
}

// indexTypes maps the package's type names to their declarations, and
// each declaration to its doc comment. It returns the declarations in
// source order.
func (g *generator) indexTypes() []*ast.TypeSpec {
	var specs []*ast.TypeSpec
	g.specs = map[*types.TypeName]*ast.TypeSpec{}
	g.docs = map[*ast.TypeSpec]*ast.CommentGroup{}
	for _, f := range g.files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && !gd.Lparen.IsValid() {
					doc = gd.Doc
				}
				g.docs[ts] = doc
				if tn, ok := g.info.Defs[ts.Name].(*types.TypeName); ok {
					g.specs[tn] = ts
				}
				specs = append(specs, ts)
			}
		}
	}
	return specs
}

// directive verbs allowed in each place.
var (
	typeVerbs   = map[string]bool{"client": true, "option": true}
	fieldVerbs  = map[string]bool{"resource": true, "option": true}
	methodVerbs = map[string]bool{"get": true, "post": true, "put": true, "patch": true, "delete": true, "header": true, "query": true, "omitempty": true, "option": true, "poll": true, "url": true, "body": true}
)

// claim marks the directives of a doc comment as used and returns the
// well-formed ones allowed there; the others are reported.
func (g *generator) claim(doc *ast.CommentGroup, allowed map[string]bool, place string) []*dirLine {
	if out, ok := g.claimed[doc]; ok {
		return out // read before, through another path
	}
	var out []*dirLine
	defer func() { g.claimed[doc] = out }()
	for _, dl := range g.lines[doc] {
		dl.claimed = true
		if dl.err != nil {
			continue // reported by reportUnclaimed
		}
		if !allowed[dl.d.Verb] {
			g.errorf(dl.pos(len("//kit:")), "//kit:%s does not apply to %s; %s", dl.d.Verb, place, whereVerb(dl.d.Verb))
			continue
		}
		out = append(out, dl)
	}
	return out
}

// whereVerb says where a directive belongs.
func whereVerb(verb string) string {
	switch verb {
	case "client":
		return "it goes in the doc comment of a struct type"
	case "resource":
		return "it goes in the doc comment of a resource field of a //kit:client struct"
	case "option":
		return "it goes in the doc comment of a //kit:client struct, of one of its resource fields or of an endpoint method"
	case "poll":
		return "it goes in the doc comment of an endpoint method returning (*kit.Poller[R], error)"
	}
	return "it goes in the doc comment of a method of an interface embedded in a //kit:client struct or held in one of its fields"
}

// reportUnclaimed reports malformed directives and those that no
// declaration used: a directive is never silently ignored.
func (g *generator) reportUnclaimed() {
	for _, dl := range g.order {
		switch {
		case dl.err != nil:
			g.errorf(dl.pos(dl.err.Off), "%s", dl.err.Msg)
		case dl.claimed:
		case g.trailing[dl.group]:
			g.errorf(dl.pos(dl.d.Off), "//kit:%s in a trailing comment does nothing; %s, above the declaration", dl.d.Verb, whereVerb(dl.d.Verb))
		default:
			g.errorf(dl.pos(dl.d.Off), "//kit:%s does nothing here; %s", dl.d.Verb, whereVerb(dl.d.Verb))
		}
	}
}

func (g *generator) noteSource(pos token.Pos) {
	if name := g.fset.Position(pos).Filename; name != "" {
		g.sources[filepath.Base(name)] = true
	}
}

// root reads a //kit:client type.
func (g *generator) root(ts *ast.TypeSpec) {
	lines := g.claim(g.docs[ts], typeVerbs, "a type")
	tn, _ := g.info.Defs[ts.Name].(*types.TypeName)
	if tn == nil {
		return
	}
	g.noteSource(ts.Pos())
	if ts.TypeParams != nil {
		g.errorf(ts.Name.Pos(), "%s: a //kit:client type cannot be generic", tn.Name())
		return
	}
	st, ok := tn.Type().Underlying().(*types.Struct)
	sa, ok2 := ts.Type.(*ast.StructType)
	if !ok || !ok2 || ts.Assign.IsValid() {
		g.errorf(ts.Name.Pos(), "%s: //kit:client is for a struct type embedding *kit.Client or *kit.AsyncClient, not %s", tn.Name(), typeKind(tn.Type()))
		return
	}
	r := &Root{Name: tn.Name(), Obj: tn}
	for _, dl := range lines {
		if dl.d.Verb == "option" {
			if o := g.option(dl, "Option"); o != nil {
				r.Options = append(r.Options, o)
			}
		}
	}
	b := g.walkStruct(tn, st, sa, nil)
	r.Body = b.body
	switch {
	case b.binding == "Client" || b.binding == "AsyncClient":
		r.ClientField = b.field
		r.Async = b.binding == "AsyncClient"
	case b.binding == "":
		g.errorf(ts.Name.Pos(), "%s: a //kit:client struct embeds *kit.Client or *kit.AsyncClient", tn.Name())
		return
	default:
		g.errorf(b.pos, "%s: a //kit:client struct embeds *kit.Client or *kit.AsyncClient, not *kit.%s[%s]; make the resource a field with //kit:resource", tn.Name(), b.binding, g.typeString(b.elem))
		return
	}
	g.setMode(r.Body, r.Async)
	g.checkClashes(tn, st, r.Body)
	for _, prefix := range []string{"New", "Bind"} {
		name := funcName(prefix, r.Name)
		if obj := g.pkg.Scope().Lookup(name); obj != nil {
			g.errorf(obj.Pos(), "%s is declared here, and kitgen generates it for //kit:client %s; rename one of them", name, r.Name)
		}
	}
	g.model.Roots = append(g.model.Roots, r)
}

// funcName is New<T> or Bind<T>, unexported for an unexported type.
func funcName(prefix, typeName string) string {
	if !token.IsExported(typeName) {
		return strings.ToLower(prefix[:1]) + prefix[1:] + exported(typeName)
	}
	return prefix + typeName
}

func typeKind(t types.Type) string {
	switch t.Underlying().(type) {
	case *types.Interface:
		return "an interface"
	case *types.Struct:
		return "an alias"
	}
	return types.TypeString(t.Underlying(), nil)
}

// walked is what walkStruct found in a struct.
type walked struct {
	body    *structBody
	binding string // "Client", "AsyncClient", "Resource", "AsyncResource" or ""
	field   string // the binding's field name
	elem    types.Type
	pos     token.Pos
}

// walkStruct reads the fields of a root or resource struct. stack holds the
// resource structs being read, to catch a struct containing itself.
func (g *generator) walkStruct(owner *types.TypeName, st *types.Struct, sa *ast.StructType, stack []*types.TypeName) walked {
	w := walked{body: &structBody{}}
	i := 0
	for _, af := range sa.Fields.List {
		n := max(1, len(af.Names))
		lines := g.claim(af.Doc, fieldVerbs, "this field")
		for k := 0; k < n && i < st.NumFields(); k, i = k+1, i+1 {
			f := st.Field(i)
			pos := af.Type.Pos()
			if len(af.Names) > 0 {
				pos = af.Names[k].Pos()
			}
			g.field(owner, f, pos, len(af.Names) > 1, lines, &w, stack)
		}
	}
	return w
}

// field reads one field of a root or resource struct.
func (g *generator) field(owner *types.TypeName, f *types.Var, pos token.Pos, shared bool, lines []*dirLine, w *walked, stack []*types.TypeName) {
	var resDirs, optDirs []*dirLine
	for _, dl := range lines {
		switch dl.d.Verb {
		case "resource":
			resDirs = append(resDirs, dl)
		case "option":
			optDirs = append(optDirs, dl)
		}
	}
	t := f.Type()
	where := owner.Name() + "." + f.Name()
	if f.Anonymous() {
		for _, name := range []string{"Client", "AsyncClient", "Resource", "AsyncResource"} {
			elem, ok := g.kitPointer(t, name)
			if !ok {
				continue
			}
			if w.binding != "" {
				g.errorf(pos, "%s: a second client or resource embedded, beside %s", where, w.field)
				return
			}
			if len(resDirs) > 0 {
				g.errorf(resDirs[0].pos(resDirs[0].d.Off), "%s: //kit:resource is for a field holding a resource, not for the embedded *kit.%s", where, name)
			}
			w.binding, w.field, w.elem, w.pos = name, f.Name(), elem, pos
			return
		}
	}
	// An embedded interface is an endpoint interface, and so is a named
	// field's (a group: c.Repos.Get) when its methods carry directives.
	if named, ok := types.Unalias(t).(*types.Named); ok && isInterface(named) && (f.Anonymous() || g.endpointIface(named.Obj())) {
		kind := "an embedded interface"
		if !f.Anonymous() {
			kind = "an interface field"
		}
		if len(resDirs) > 0 {
			g.errorf(resDirs[0].pos(resDirs[0].d.Off), "%s: //kit:resource is for a field holding a resource, not for an endpoint interface", where)
		}
		if len(optDirs) > 0 && len(resDirs) == 0 {
			g.errorf(optDirs[0].pos(optDirs[0].d.Off), "%s: //kit:option on %s does nothing; put it on the methods", where, kind)
		}
		if it := g.iface(named, pos, nil); it != nil {
			w.body.Ifaces = append(w.body.Ifaces, ifaceField{Field: f.Name(), Iface: it, Pos: pos, Embedded: f.Anonymous()})
		}
		return
	}
	rs, elem, async, ptr, isRes := g.resourceType(t, pos, where)
	if !isRes {
		if len(resDirs) > 0 {
			g.errorf(resDirs[0].pos(resDirs[0].d.Off), "%s: //kit:resource is for a *kit.Resource[T], a *kit.AsyncResource[T] or a struct embedding one, not %s", where, g.typeString(t))
		} else if len(optDirs) > 0 {
			g.errorf(optDirs[0].pos(optDirs[0].d.Off), "%s: //kit:option on a field needs //kit:resource", where)
		}
		return
	}
	switch {
	case len(resDirs) == 0:
		g.errorf(pos, "%s: resource field (%s) has no //kit:resource PATH; kitgen binds every resource field", where, g.typeString(t))
		return
	case len(resDirs) > 1:
		g.errorf(resDirs[1].pos(resDirs[1].d.Off), "%s: a second //kit:resource", where)
		return
	case shared:
		g.errorf(pos, "%s: declare each resource field on its own line, with its own //kit:resource", where)
		return
	}
	rf := &ResField{Field: f.Name(), Path: resDirs[0].d.Path.Text, Elem: elem, Async: async, Ptr: ptr}
	g.checkResourcePath(rf.Path, resDirs[0], where)
	for _, dl := range optDirs {
		if o := g.option(dl, "ResourceOption"); o != nil {
			rf.Options = append(rf.Options, o)
		}
	}
	if rs != nil {
		for _, s := range stack {
			if s == rs {
				g.errorf(pos, "%s: struct %s contains itself", where, rs.Name())
				return
			}
		}
		rf.Struct = g.resStruct(rs, append(stack, owner))
		if rf.Struct == nil {
			return
		}
	}
	w.body.Resources = append(w.body.Resources, rf)
}

// kitPointer reports whether t is *kit.<name> or *kit.<name>[T], and
// returns T.
func (g *generator) kitPointer(t types.Type, name string) (types.Type, bool) {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok || !isNamed(p.Elem(), kitPath, name) {
		return nil, false
	}
	n := types.Unalias(p.Elem()).(*types.Named)
	if n.TypeArgs().Len() == 1 {
		return n.TypeArgs().At(0), true
	}
	return nil, true
}

// resourceType reports whether t holds a resource: *kit.Resource[T],
// *kit.AsyncResource[T], or S or *S where S is a struct of this package
// embedding one of those.
func (g *generator) resourceType(t types.Type, pos token.Pos, where string) (rs *types.TypeName, elem types.Type, async, ptr, ok bool) {
	if elem, ok := g.kitPointer(t, "Resource"); ok {
		return nil, elem, false, false, true
	}
	if elem, ok := g.kitPointer(t, "AsyncResource"); ok {
		return nil, elem, true, false, true
	}
	t = types.Unalias(t)
	if p, isPtr := t.(*types.Pointer); isPtr {
		t, ptr = types.Unalias(p.Elem()), true
	}
	named, isNamedT := t.(*types.Named)
	if !isNamedT {
		return nil, nil, false, false, false
	}
	st, isStruct := named.Underlying().(*types.Struct)
	if !isStruct {
		return nil, nil, false, false, false
	}
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Anonymous() {
			continue
		}
		for _, name := range []string{"Resource", "AsyncResource"} {
			if e, is := g.kitPointer(f.Type(), name); is {
				return named.Obj(), e, name == "AsyncResource", ptr, true
			}
		}
	}
	return nil, nil, false, false, false
}

// resStruct reads a resource struct type (once).
func (g *generator) resStruct(tn *types.TypeName, stack []*types.TypeName) *ResStruct {
	if rs, ok := g.structs[tn]; ok {
		return rs
	}
	ts := g.specs[tn]
	if tn.Pkg() != g.pkg || ts == nil {
		g.errorf(stack[len(stack)-1].Pos(), "%s: resource struct %s is declared in package %s; kitgen reads the declarations of this package only", stack[len(stack)-1].Name(), tn.Name(), tn.Pkg().Path())
		return nil
	}
	g.noteSource(ts.Pos())
	if ts.TypeParams != nil {
		g.errorf(ts.Name.Pos(), "%s: a resource struct cannot be generic", tn.Name())
		return nil
	}
	sa, ok := ts.Type.(*ast.StructType)
	if !ok {
		g.errorf(ts.Name.Pos(), "%s: a resource struct is declared as a struct type, not an alias", tn.Name())
		return nil
	}
	b := g.walkStruct(tn, tn.Type().Underlying().(*types.Struct), sa, stack)
	rs := &ResStruct{Name: tn.Name(), Obj: tn, ResField: b.field, Elem: b.elem, Async: b.binding == "AsyncResource", Body: b.body}
	if b.binding != "Resource" && b.binding != "AsyncResource" {
		g.errorf(b.pos, "%s: a resource struct embeds *kit.Resource[T] or *kit.AsyncResource[T], not *kit.%s", tn.Name(), b.binding)
		return nil
	}
	g.structs[tn] = rs
	g.model.Structs = append(g.model.Structs, rs)
	g.setMode(rs.Body, rs.Async)
	g.checkClashes(tn, tn.Type().Underlying().(*types.Struct), rs.Body)
	return rs
}

// setMode records whether the interfaces of a struct are bound to an async
// client or resource; one interface cannot be both.
func (g *generator) setMode(b *structBody, async bool) {
	for _, f := range b.Ifaces {
		it := f.Iface
		if it.embedded == token.NoPos {
			it.embedded, it.Async = f.Pos, async
			continue
		}
		if it.Async != async {
			g.errorf(f.Pos, "%s: bound where calls go through a %s, and elsewhere through a %s; declare one interface for each", it.Name, syncWord(async), syncWord(it.Async))
		}
	}
}

func syncWord(async bool) string {
	if async {
		return "kit.AsyncClient or kit.AsyncResource"
	}
	return "kit.Client or kit.Resource"
}

// endpointIface reports whether tn is an interface declared in this
// package whose methods, or those of the interfaces of this package it
// embeds, carry //kit: directives: what kitgen reads as an endpoint
// interface. A named field of such a type is bound like an embedded one;
// a named field of any other interface is the user's own.
func (g *generator) endpointIface(tn *types.TypeName) bool {
	seen := map[*types.TypeName]bool{}
	var has func(tn *types.TypeName) bool
	has = func(tn *types.TypeName) bool {
		if tn.Pkg() != g.pkg || seen[tn] {
			return false
		}
		seen[tn] = true
		ts := g.specs[tn]
		if ts == nil {
			return false
		}
		it, ok := ts.Type.(*ast.InterfaceType)
		if !ok {
			return false
		}
		for _, f := range it.Methods.List {
			if len(f.Names) > 0 {
				if len(g.lines[f.Doc]) > 0 {
					return true
				}
				continue
			}
			if named, ok := types.Unalias(g.info.TypeOf(f.Type)).(*types.Named); ok && has(named.Obj()) {
				return true
			}
		}
		return false
	}
	return has(tn)
}

// iface reads an endpoint interface (once). stack holds the interfaces
// embedding this one.
func (g *generator) iface(named *types.Named, pos token.Pos, stack []*types.TypeName) *Iface {
	tn := named.Obj()
	if it, ok := g.ifaces[tn]; ok {
		return it
	}
	if tn.Pkg() != g.pkg {
		g.errorf(pos, "%s is declared in package %s: kitgen reads the directives of interfaces declared in this package only", g.typeString(named), tn.Pkg().Path())
		return nil
	}
	ts := g.specs[tn]
	if named.TypeParams().Len() > 0 || named.TypeArgs().Len() > 0 || (ts != nil && ts.TypeParams != nil) {
		g.errorf(pos, "%s: an endpoint interface cannot be generic", tn.Name())
		if it, ok := ts.Type.(*ast.InterfaceType); ok {
			for _, f := range it.Methods.List {
				g.claim(f.Doc, methodVerbs, "a method") // read, not reported again
			}
		}
		return nil
	}
	var it *ast.InterfaceType
	if ts != nil {
		it, _ = ts.Type.(*ast.InterfaceType)
	}
	if it == nil {
		g.errorf(pos, "%s: an endpoint interface is declared as an interface type, not an alias", tn.Name())
		return nil
	}
	g.noteSource(ts.Pos())
	res := &Iface{Name: tn.Name(), Obj: tn}
	g.ifaces[tn] = res
	g.model.Ifaces = append(g.model.Ifaces, res)
	seen := map[string]bool{}
	g.ifaceMethods(res, it, seen, append(stack, tn))
	return res
}

// ifaceMethods reads the methods of an interface type in source order,
// with those of the interfaces it embeds.
func (g *generator) ifaceMethods(res *Iface, it *ast.InterfaceType, seen map[string]bool, stack []*types.TypeName) {
	for _, f := range it.Methods.List {
		if len(f.Names) == 0 {
			g.claim(f.Doc, nil, "an embedded interface")
			t := g.info.TypeOf(f.Type)
			named, ok := types.Unalias(t).(*types.Named)
			if !ok || !isInterface(named) {
				continue // a type error, reported as such
			}
			tn := named.Obj()
			if tn.Pkg() != g.pkg {
				g.errorf(f.Type.Pos(), "%s embeds %s, declared in package %s: kitgen reads the directives of interfaces declared in this package only", res.Name, g.typeString(named), tn.Pkg().Path())
				continue
			}
			var inner *ast.InterfaceType
			if ts := g.specs[tn]; ts != nil {
				inner, _ = ts.Type.(*ast.InterfaceType)
			}
			if inner == nil || named.TypeArgs().Len() > 0 {
				g.errorf(f.Type.Pos(), "%s embeds %s, which kitgen cannot read (generic or an alias)", res.Name, g.typeString(named))
				continue
			}
			recursive := false
			for _, s := range stack {
				recursive = recursive || s == tn
			}
			if !recursive {
				g.noteSource(tn.Pos())
				g.ifaceMethods(res, inner, seen, append(stack, tn))
			}
			continue
		}
		name := f.Names[0]
		fn, _ := g.info.Defs[name].(*types.Func)
		ft, _ := f.Type.(*ast.FuncType)
		lines := g.claim(f.Doc, methodVerbs, "a method")
		if fn == nil || ft == nil || seen[name.Name] {
			continue
		}
		seen[name.Name] = true
		m := &Method{Iface: res, Name: name.Name, NamePos: name.Pos(), Sig: fn.Type().(*types.Signature), Type: ft, dirs: lines}
		// A malformed directive, or one in the trailing comment, is
		// reported as such: not also as a missing verb.
		for _, dl := range append(g.lines[f.Doc], g.lines[f.Comment]...) {
			m.misplaced = m.misplaced || dl.err != nil || dl.group == f.Comment
		}
		m.Src = g.fset.Position(name.Pos())
		g.method(m)
		res.Methods = append(res.Methods, m)
	}
}

// checkClashes reports methods of embedded interfaces that would not be
// promoted to the struct: two interfaces with one method name, or a method
// whose name another embedded field promotes too (Close beside
// *kit.Client, Get beside *kit.Resource), or a field of the struct has. An
// interface in a named field promotes nothing: its calls go through the
// field.
func (g *generator) checkClashes(owner *types.TypeName, st *types.Struct, b *structBody) {
	by := map[string]string{}
	isIface := map[string]bool{}
	for _, f := range b.Ifaces {
		isIface[f.Field] = f.Embedded
	}
	for _, f := range b.Ifaces {
		if !f.Embedded {
			continue
		}
		for _, m := range f.Iface.Methods {
			if other, dup := by[m.Name]; dup {
				g.errorf(m.NamePos, "%s: declared in %s and %s, both embedded in %s: a call would be ambiguous", m.Name, other, f.Iface.Name, owner.Name())
				continue
			}
			by[m.Name] = f.Iface.Name
			for i := 0; i < st.NumFields(); i++ {
				sf := st.Field(i)
				if sf.Name() == f.Field || isIface[sf.Name()] {
					continue // the interfaces are compared with each other above
				}
				if sf.Name() == m.Name {
					g.errorf(m.NamePos, "%s: %s has a field %s, which hides the method", m.Name, owner.Name(), sf.Name())
					break
				}
				if !sf.Anonymous() {
					continue
				}
				if obj, _, _ := types.LookupFieldOrMethod(sf.Type(), true, g.pkg, m.Name); obj != nil {
					g.errorf(m.NamePos, "%s: %s also promotes %s from its embedded %s: a call would be ambiguous; rename the method", m.Name, owner.Name(), m.Name, g.typeString(sf.Type()))
					break
				}
			}
		}
	}
}

// typeString prints t as the package's own code would.
func (g *generator) typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == g.pkg {
			return ""
		}
		return p.Name()
	})
}
