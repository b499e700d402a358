package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kithttp/kit/internal/pathtmpl"
	"github.com/kithttp/kit/internal/structtag"
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
	Ctx     string // the name of the context parameter in the generated method
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
	Route     route
	Tag       string // the kit tag name: a query name, placeholder or header name
	OmitEmpty bool
	Ptr       bool   // routeSpread: the parameter is *S
	Embed     string // routeSpread: the name of the embedded field (S's name)
	class     typeClass
	by        *dirLine // the directive that routes it, if any
}

// constHeader is a //kit:header Name: literal.
type constHeader struct {
	Name, Value, Field string
}

type resultKind uint8

const (
	resultCall   resultKind = iota // (R, error): ep.Call
	resultError                    // error: ep.Call with R = *kit.Response, dropped
	resultFuture                   // *kit.Future[R]: ep.Go
	resultIter                     // iter.Seq2[T, error]: Iterate / GoIterate
	resultPages                    // iter.Seq2[*kit.Page[T], error]: Pages / GoPages
)

// method checks an endpoint method and works out its routes (§2.4, §2.5).
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
		if dl.d.Verb == "option" {
			if o := g.option(dl, "EndpointOption"); o != nil {
				m.Options = append(m.Options, o)
			}
		}
	}
	g.checkBody(m)
	if m.Result != resultIter && m.Result != resultPages {
		for _, o := range m.Options {
			switch o.kitFunc {
			case "WithPaginator", "WithMaxPages", "WithPrefetch":
				g.errorf(o.Pos, "%s: kit.%s applies to a paged endpoint (a method returning iter.Seq2) or a resource, not to %s", m.Name, o.kitFunc, m.Name)
			}
		}
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

// result checks the declared result (§2.5).
func (g *generator) result(m *Method) {
	res := m.Sig.Results()
	pos := m.NamePos
	if m.Type.Results != nil && len(m.Type.Results.List) > 0 {
		pos = m.Type.Results.List[0].Type.Pos()
	}
	want := "want (R, error), error, *kit.Future[R] or iter.Seq2[T, error]"
	switch {
	case res.Len() == 1 && isError(res.At(0).Type()):
		m.Result = resultError
		return
	case res.Len() == 2 && isError(res.At(1).Type()):
		m.Result, m.R = resultCall, res.At(0).Type()
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
			case m.Verb != "" && m.Verb != "GET":
				g.errorf(pos, "%s: result %s: a paginated method is a GET (kit.Paged), not %s", m.Name, g.typeString(t), m.Verb)
			case isPointerTo(m.R, kitPath, "Response"):
				g.errorf(pos, "%s: record type *kit.Response: records are decoded from JSON; use a data model, or any for raw JSON (iter.Seq2[*kit.Page[T], error] gives each page's *kit.Response)", m.Name)
			default:
				if why := g.resultProblem(m.R); why != "" {
					g.errorf(pos, "%s: %s", m.Name, why)
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
	if why := g.resultProblem(m.R); why != "" {
		g.errorf(pos, "%s: %s", m.Name, why)
	}
}

// resultProblem is kit's resultKindFor: why R cannot be an endpoint's
// result, or "" when it can.
func (g *generator) resultProblem(r types.Type) string {
	r = types.Unalias(r)
	if isPointerTo(r, kitPath, "Response") || isNamed(r, "io", "ReadCloser") {
		return ""
	}
	switch u := r.Underlying().(type) {
	case *types.Interface:
		if u.NumMethods() > 0 {
			return fmt.Sprintf("result type %s is an interface; use a concrete type, any, io.ReadCloser or *kit.Response", g.typeString(r))
		}
		return ""
	case *types.Signature, *types.Chan:
		return fmt.Sprintf("result type %s cannot be decoded from JSON", g.typeString(r))
	case *types.Basic:
		if u.Kind() == types.UnsafePointer {
			return fmt.Sprintf("result type %s cannot be decoded from JSON", g.typeString(r))
		}
	}
	if isFile(r) {
		return fmt.Sprintf("result type %s: a download is an io.ReadCloser (or a kit.Result[io.ReadCloser])", g.typeString(r))
	}
	if isNamed(r, kitPath, "Result") {
		inner := r.(*types.Named).TypeArgs().At(0)
		if isNamed(inner, kitPath, "Result") {
			return fmt.Sprintf("result type %s: a Result of a Result", g.typeString(r))
		}
		return g.resultProblem(inner)
	}
	return ""
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
				return fmt.Sprintf("field %s of %s: type %s has no text form for a form field; use //kit:option kit.Multipart() to send it as a JSON part", f.Name(), name, g.typeString(f.Type()))
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
// non-variadic parameters. It reports whether routing can go on.
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
		case m.Sig.Variadic() && i == ps.Len()-1:
			g.errorf(poss[i], "%s: parameter %s is variadic; take a slice: kitgen routes each parameter to one place", m.Name, v.Name())
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
	return ok
}

// free returns base, or base with a number, that is not in taken.
func free(base string, taken map[string]bool) string {
	name := base
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	return name
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

// option type-checks a //kit:option expression in the scope of its file
// and checks it is a kit.<kind> (Option, EndpointOption, ResourceOption).
func (g *generator) option(dl *dirLine, kind string) *Option {
	pos := dl.pos(dl.d.Expr.Off)
	src := dl.d.Expr.Text
	expr, err := parser.ParseExprFrom(g.fset, "", src, 0)
	if err != nil {
		g.errorf(pos, "//kit:option %s: %v", src, err)
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
			g.errorf(at(te.Pos), "//kit:option %s: %s", src, te.Msg)
		} else {
			g.errorf(pos, "//kit:option %s: %v", src, err)
		}
		return nil
	}
	want := g.kitType(kind)
	tv := info.Types[expr]
	switch {
	case want == nil:
		g.errorf(pos, "//kit:option %s: this package does not import kit", src)
		return nil
	case !tv.IsValue() || !types.AssignableTo(tv.Type, want):
		what := "a type"
		if tv.IsValue() {
			what = g.typeString(tv.Type)
		}
		g.errorf(pos, "//kit:option %s is %s, not a kit.%s", src, what, kind)
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
