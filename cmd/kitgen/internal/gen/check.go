package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kithttp/kit/internal/pathtmpl"
	"github.com/kithttp/kit/internal/routing"
)

// Diag is a diagnostic at a position of the declarations.
type Diag struct {
	Position token.Position
	Msg      string
}

// maxDiags is how many diagnostics are printed before "too many errors",
// as the compiler does.
const maxDiags = 10

// printDiags writes diagnostics sorted by position, in the compiler's
// "file:line:col: msg" form with file names relative to dir.
func printDiags(w io.Writer, diags []Diag, dir string) {
	sortDiags(diags)
	for i, d := range diags {
		if i == maxDiags {
			fmt.Fprintln(w, "too many errors")
			return
		}
		fmt.Fprintln(w, d.format(dir))
	}
}

func sortDiags(diags []Diag) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Position, diags[j].Position
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return diags[i].Msg < diags[j].Msg
	})
}

func (d Diag) format(dir string) string {
	name := d.Position.Filename
	if dir != "" && filepath.IsAbs(name) {
		if rel, err := filepath.Rel(dir, name); err == nil {
			name = rel
		}
	}
	switch {
	case name == "":
		return d.Msg
	case d.Position.Line == 0:
		return name + ": " + d.Msg
	case d.Position.Column == 0:
		return fmt.Sprintf("%s:%d: %s", name, d.Position.Line, d.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", name, d.Position.Line, d.Position.Column, d.Msg)
}

// method checks an endpoint method and works out its routes.
func (g *generator) method(m *Method) {
	before := len(g.diags)
	defer func() { m.ok = len(g.diags) == before }()
	name := m.Name

	var verbs []*dirLine
	for _, dl := range m.dirs {
		if httpVerbs[dl.d.Verb] != "" {
			verbs = append(verbs, dl)
		}
	}
	var placeholders []placeholder
	switch len(verbs) {
	case 0:
		if m.misplaced {
			break
		}
		g.errorf(m.NamePos, "%s: no //kit:get, //kit:post, //kit:put, //kit:patch or //kit:delete: an endpoint method needs one", name)
	default:
		for _, dl := range verbs[1:] {
			g.errorf(dl.pos(len("//kit:")), "%s: a second verb directive, //kit:%s: a method is one endpoint", name, dl.d.Verb)
		}
		v := verbs[0]
		m.Verb, m.Path, m.NoAuth = httpVerbs[v.d.Verb], v.d.Path.Text, v.d.NoAuth
		var err error
		placeholders, err = parsePath(m.Path, v)
		if err != nil {
			g.errorf(v.pos(v.d.Path.Off), "%s: path %s: %v", name, m.Path, err)
		}
	}
	g.result(m)
	if !g.params(m) {
		return
	}
	g.routes(m, placeholders)
	for _, dl := range m.dirs {
		switch dl.d.Verb {
		case "option":
			if o := g.option(dl, "EndpointOption"); o != nil {
				m.Options = append(m.Options, o)
			}
		case "poll":
			g.pollOption(m, dl)
		}
	}
	g.checkBody(m)
	if m.Result != resultIter && m.Result != resultPages {
		for _, o := range m.Options {
			switch o.kitFunc {
			case "PagedBy", "WithPaginator", "WithMaxPages", "WithPrefetch":
				g.errorf(o.Pos, "%s: kit.%s applies to a paged endpoint (a method returning iter.Seq2) or a resource, not to %s", m.Name, o.kitFunc, m.Name)
			}
		}
	}
}

// pollOption reads the //kit:poll of a method returning
// (*kit.Poller[R], error): the kit.PollOptions its poller follows the
// operation with.
func (g *generator) pollOption(m *Method, dl *dirLine) {
	switch {
	case m.Result != resultPoller:
		g.errorf(dl.pos(len("//kit:")), "%s: //kit:poll applies to a method returning (*kit.Poller[R], error), not to %s", m.Name, m.Name)
	case m.Poll != nil:
		g.errorf(dl.pos(len("//kit:")), "%s: a second //kit:poll: a poller follows its operation with one kit.PollOptions", m.Name)
	default:
		m.Poll = g.option(dl, "PollOptions")
	}
}

// placeholder is a {name} of a path and its position.
type placeholder struct {
	name string
	pos  token.Pos
}

// parsePath parses an endpoint path with kit's own parser (and messages),
// and returns its
// placeholders with their positions in the directive.
func parsePath(path string, dl *dirLine) ([]placeholder, error) {
	tmpl, err := pathtmpl.Parse(path)
	if err != nil {
		return nil, err
	}
	var out []placeholder
	for _, name := range tmpl.Placeholders {
		off := dl.d.Path.Off + strings.Index(path, "{"+name+"}")
		out = append(out, placeholder{name: name, pos: dl.pos(off)})
	}
	return out, nil
}

// checkResourcePath checks a //kit:resource path as kit.NewResource does.
func (g *generator) checkResourcePath(path string, dl *dirLine, where string) {
	pos := dl.pos(dl.d.Path.Off)
	if strings.ContainsAny(path, "{}?#") {
		g.errorf(pos, "%s: resource path %s: a collection path has no placeholders, query or fragment", where, path)
		return
	}
	if _, err := pathtmpl.Parse("/" + strings.Trim(path, "/") + "/{id}"); err != nil {
		g.errorf(pos, "%s: resource path %s: %v", where, path, err)
	}
}

// result checks the declared result.
func (g *generator) result(m *Method) {
	res := m.Sig.Results()
	pos := m.NamePos
	if m.Type.Results != nil && len(m.Type.Results.List) > 0 {
		pos = m.Type.Results.List[0].Type.Pos()
	}
	want := "want (R, error), error, *kit.Future[R], iter.Seq2[T, error] or (*kit.Poller[R], error)"
	switch {
	case res.Len() == 1 && isError(res.At(0).Type()):
		m.Result = resultError
		return
	case res.Len() == 2 && isError(res.At(1).Type()):
		m.Result, m.R = resultCall, res.At(0).Type()
		if r, ok := g.kitPointer(m.R, "Poller"); ok && r != nil {
			// The call's *kit.Response starts the poller, which decodes R
			// from the operation's last poll.
			m.Result, m.R = resultPoller, r
		}
	case res.Len() == 1:
		t := res.At(0).Type()
		if r, ok := g.kitPointer(t, "Future"); ok && r != nil {
			m.Result, m.R = resultFuture, r
			break
		}
		if isNamed(t, "iter", "Seq2") {
			args := types.Unalias(t).(*types.Named).TypeArgs()
			if args.Len() != 2 || !isError(args.At(1)) {
				g.errorf(pos, "%s: result %s: an iterator yields (T, error)", m.Name, g.typeString(t))
				return
			}
			m.Result, m.R = resultIter, args.At(0)
			if elem, ok := g.kitPointer(args.At(0), "Page"); ok && elem != nil {
				m.Result, m.R = resultPages, elem
			}
			switch {
			case m.Verb != "" && m.Verb != "GET" && m.Verb != "POST":
				g.errorf(pos, "%s: result %s: a paginated method is a GET (kit.Paged) or a POST (kit.PagedPost), not %s", m.Name, g.typeString(t), m.Verb)
			case isPointerTo(m.R, kitPath, "Response"):
				g.errorf(pos, "%s: record type *kit.Response: records are decoded from JSON; use a data model, or any for raw JSON (iter.Seq2[*kit.Page[T], error] gives each page's *kit.Response)", m.Name)
			default:
				if _, _, err := routing.Result(g.cls.typ(m.R)); err != nil {
					g.errorf(pos, "%s: %v", m.Name, err)
				}
			}
			return
		}
		g.errorf(pos, "%s: result %s: %s", m.Name, g.typeString(t), want)
		return
	default:
		g.errorf(pos, "%s: result %s: %s", m.Name, g.typeString(res), want)
		return
	}
	if _, _, err := routing.Result(g.cls.typ(m.R)); err != nil {
		g.errorf(pos, "%s: %v", m.Name, err)
	}
}

// isPointerTo reports whether t is *pkgPath.name.
func isPointerTo(t types.Type, pkgPath, name string) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	return ok && isNamed(p.Elem(), pkgPath, name)
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

func isContext(t types.Type) bool {
	return isNamed(t, "context", "Context")
}

// params checks the parameter list: a context first, then named,
// non-variadic parameters, and optionally a last `opts ...kit.CallOption`
// that the generated method passes on to the call. It reports whether
// routing can go on.
func (g *generator) params(m *Method) bool {
	ps := m.Sig.Params()
	// The positions of the parameters, from the syntax.
	var poss []token.Pos
	for _, f := range m.Type.Params.List {
		if len(f.Names) == 0 {
			poss = append(poss, f.Type.Pos())
		}
		for _, n := range f.Names {
			poss = append(poss, n.Pos())
		}
	}
	if ps.Len() == 0 || !isContext(ps.At(0).Type()) || len(poss) != ps.Len() {
		pos := m.NamePos
		if len(poss) > 0 {
			pos = poss[0]
		}
		g.errorf(pos, "%s: the first parameter is a context.Context", m.Name)
		return false
	}
	ok := true
	taken := map[string]bool{}
	for i := 1; i < ps.Len(); i++ {
		v := ps.At(i)
		switch {
		case m.Sig.Variadic() && i == ps.Len()-1 && isCallOptions(v.Type()):
			m.Opts = v.Name()
			continue
		case m.Sig.Variadic() && i == ps.Len()-1:
			g.errorf(poss[i], "%s: parameter %s is variadic; take a slice: kitgen routes each parameter to one place (a last opts ...kit.CallOption is passed on to the call)", m.Name, v.Name())
			ok = false
		case v.Name() == "":
			g.errorf(poss[i], "%s: parameter %d (%s) has no name; kitgen routes parameters by name", m.Name, i+1, g.typeString(v.Type()))
			ok = false
		case v.Name() == "_":
			g.errorf(poss[i], "%s: parameter %d (%s) is blank; kitgen routes parameters by name", m.Name, i+1, g.typeString(v.Type()))
			ok = false
		}
		taken[v.Name()] = true
		m.Params = append(m.Params, &Param{Name: v.Name(), Type: v.Type(), Pos: poss[i]})
	}
	m.Ctx = ps.At(0).Name()
	if m.Ctx == "" || m.Ctx == "_" {
		m.Ctx = free("ctx", taken)
	}
	taken[m.Ctx] = true
	if m.Opts == "_" || m.Sig.Variadic() && m.Opts == "" && isCallOptions(ps.At(ps.Len()-1).Type()) {
		m.Opts = free("opts", taken)
	}
	return ok
}

// isCallOptions reports whether t, the type of a variadic parameter, is
// []kit.CallOption.
func isCallOptions(t types.Type) bool {
	s, ok := types.Unalias(t).(*types.Slice)
	return ok && isNamed(s.Elem(), kitPath, "CallOption")
}

// free returns base, or base with a number, that is not in taken.
func free(base string, taken map[string]bool) string {
	name := base
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	return name
}

// option type-checks a //kit:option (or //kit:poll) expression in the
// scope of its file and checks it is a kit.<kind> (Option, EndpointOption,
// ResourceOption, PollOptions).
func (g *generator) option(dl *dirLine, kind string) *Option {
	pos := dl.pos(dl.d.Expr.Off)
	src := dl.d.Expr.Text
	expr, err := parser.ParseExprFrom(g.fset, "", src, 0)
	if err != nil {
		g.errorf(pos, "//kit:%s %s: %v", dl.d.Verb, src, err)
		return nil
	}
	base := g.fset.File(expr.Pos()).Base()
	at := func(p token.Pos) token.Pos { return pos + (p - token.Pos(base)) }
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Uses:  map[*ast.Ident]types.Object{},
		Defs:  map[*ast.Ident]types.Object{},
	}
	if err := types.CheckExpr(g.fset, g.pkg, dl.c.Slash, expr, info); err != nil {
		if te, ok := err.(types.Error); ok {
			g.errorf(at(te.Pos), "//kit:%s %s: %s", dl.d.Verb, src, te.Msg)
		} else {
			g.errorf(pos, "//kit:%s %s: %v", dl.d.Verb, src, err)
		}
		return nil
	}
	want := g.kitType(kind)
	tv := info.Types[expr]
	switch {
	case want == nil:
		g.errorf(pos, "//kit:%s %s: this package does not import kit", dl.d.Verb, src)
		return nil
	case !tv.IsValue() || !types.AssignableTo(tv.Type, want):
		what := "a type"
		if tv.IsValue() {
			what = g.typeString(tv.Type)
		}
		g.errorf(pos, "//kit:%s %s is %s, not a kit.%s", dl.d.Verb, src, what, kind)
		return nil
	}
	o := &Option{Pos: pos, Expr: expr, pkgs: map[*ast.Ident]*types.Package{}, dot: map[*ast.Ident]bool{}}
	if call, ok := ast.Unparen(expr).(*ast.CallExpr); ok {
		var id *ast.Ident
		switch fn := ast.Unparen(call.Fun).(type) {
		case *ast.SelectorExpr:
			id = fn.Sel
		case *ast.Ident:
			id = fn
		}
		if f, ok := info.Uses[id].(*types.Func); ok && f.Pkg() != nil && f.Pkg().Path() == kitPath {
			o.kitFunc = f.Name()
			o.staticArg = o.kitFunc == "PagedBy" && len(call.Args) == 1 && constantLiteral(call.Args[0], info)
		}
	}
	ast.Inspect(expr, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					g.noteIdent(o, id, info)
				}
				return true
			})
			return false
		case *ast.Ident:
			g.noteIdent(o, n, info)
		}
		return true
	})
	return o
}

// noteIdent records an identifier of an option expression that names an
// imported package, or a package-level object of another package (a dot
// import): the generated file qualifies it with its own import name.
func (g *generator) noteIdent(o *Option, id *ast.Ident, info *types.Info) {
	switch obj := info.Uses[id].(type) {
	case *types.PkgName:
		o.pkgs[id] = obj.Imported()
	case nil:
	default:
		if obj.Pkg() != nil && obj.Pkg() != g.pkg && obj.Parent() == obj.Pkg().Scope() {
			o.pkgs[id] = obj.Pkg()
			o.dot[id] = true
		}
	}
}

// kitType returns kit.<name> as the package sees it, or nil when the
// package does not import kit.
func (g *generator) kitType(name string) types.Type {
	for _, imp := range g.pkg.Imports() {
		if imp.Path() == kitPath {
			if obj := imp.Scope().Lookup(name); obj != nil {
				return obj.Type()
			}
		}
	}
	return nil
}

// constantLiteral reports whether e is a composite literal whose elements
// are constants (kit.PageNumber{PageSize: 30, Start: kit.StartAtOne}):
// the compiler makes such a value, converted to an interface, static data.
func constantLiteral(e ast.Expr, info *types.Info) bool {
	lit, ok := ast.Unparen(e).(*ast.CompositeLit)
	if !ok {
		return false
	}
	if _, isStruct := info.Types[lit].Type.Underlying().(*types.Struct); !isStruct {
		return false
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			el = kv.Value
		}
		if info.Types[el].Value == nil {
			return false
		}
	}
	return true
}
