package openapi

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kithttp/kit/cmd/kitgen/internal/safetext"
)

// method is one operation as an interface method with //kit: directives.
type method struct {
	op         *Operation
	iface      string
	name       string
	directives []string
	params     []string // "name type", after ctx
	result     string
	paginator  string // the paginator's kind, "" when not paginated
	opts       string // the name of the last parameter, ...kit.CallOption
	pages      string // the name of the page walk of a paginated method; "" for others
	poller     *lro   // how the poller of a long-running operation follows it; nil for others
	decls      []string
}

var placeholderRE = regexp.MustCompile(`\{([^{}]*)\}`)

// directiveText refuses document text a //kit: directive cannot hold as
// it is: a line break would end the directive there, and what follows it
// would be Go; a control or bidirectional character would make the line
// read otherwise than it shows. Such a path or parameter name skips its
// operation.
func directiveText(what, s string) error {
	if safetext.Comment(s) != s {
		return fmt.Errorf("%s %q: a line break or control character a //kit: directive cannot hold", what, s)
	}
	return nil
}

// jsonType reports whether a media type is JSON.
func jsonType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "text/json"
}

// streamType reports whether a media type is a stream of records kit
// decodes as a *kit.Stream.
func streamType(mt string) bool {
	switch mt {
	case "text/event-stream", "application/x-ndjson", "application/ndjson", "application/jsonl",
		"application/x-jsonlines", "application/json-seq", "application/jsonlines":
		return true
	}
	return false
}

// methodFor maps one operation; an error is why it is skipped. stream
// asks for the event-stream variant of an operation that has both.
func (g *generator) methodFor(op *Operation, name string, stream bool) (*method, error) {
	switch op.Method {
	case "GET", "POST", "PUT", "PATCH", "DELETE":
	default:
		return nil, fmt.Errorf("method %s: kit declares GET, POST, PUT, PATCH and DELETE calls", op.Method)
	}
	if err := directiveText("path", op.Path); err != nil {
		return nil, err
	}
	m := &method{op: op, name: name, iface: g.ifaceOf(op)}
	if g.lros[op] != nil {
		// Its types are named after the operation, not after Begin<Op>.
		name = strings.TrimPrefix(name, "Begin")
	}
	locals := newNamer("ctx", "opts", "params", "body")
	for _, p := range op.Params {
		if p.In == "cookie" {
			return nil, fmt.Errorf("cookie parameter %s: kit sends no per-call cookies", p.Name)
		}
	}
	// Path: every placeholder gets the Go name of its parameter.
	byName := map[string]*Parameter{}
	for _, p := range op.Params {
		if p.In == "path" {
			byName[p.Name] = p
		}
	}
	opPath, inQuery, err := pathTemplate(op)
	if err != nil {
		return nil, err
	}
	var perr error
	path := placeholderRE.ReplaceAllStringFunc(opPath, func(ph string) string {
		wire := ph[1 : len(ph)-1]
		p := byName[wire]
		if p == nil {
			perr = fmt.Errorf("path placeholder {%s} has no path parameter", wire)
			return ph
		}
		rest := ""
		if multi, _ := p.Extensions["x-multi-segment"].(bool); multi {
			rest = "..." // the value keeps its slashes

		}
		typ := g.textType(p, g.paramHint(name, p, "Param"))
		if !g.types.scalar(typ) {
			perr = fmt.Errorf("path parameter %s: a %s has no text form", wire, typ)
		}
		goName := locals.name(local(wire))
		m.params = append(m.params, goName+" "+typ)
		delete(byName, wire)
		return "{" + goName + rest + "}"
	})
	if perr != nil {
		return nil, perr
	}
	// Path parameters the path's own query names are sent in the query.
	var queryDirs []string
	for _, pq := range inQuery {
		p := byName[pq.param]
		if p == nil {
			return nil, fmt.Errorf("path query %s={%s}: the parameter fills another placeholder already", pq.key, pq.param)
		}
		typ := g.textType(p, g.paramHint(name, p, "Param"))
		if !g.types.scalar(typ) {
			return nil, fmt.Errorf("path parameter %s: a %s has no text form", pq.param, typ)
		}
		goName := locals.name(local(pq.param))
		m.params = append(m.params, goName+" "+typ)
		queryDirs = append(queryDirs, fmt.Sprintf("//kit:query %s: {%s}", pq.key, goName))
		delete(byName, pq.param)
	}
	for wire := range byName {
		return nil, fmt.Errorf("path parameter %s is not in the path", wire)
	}
	dir := "//kit:" + strings.ToLower(op.Method) + " " + path
	if op.HasSecurity && len(op.Security) == 0 {
		dir += " noauth"
	}
	m.directives = append(append(m.directives, dir), queryDirs...)

	// Headers: required ones positional, named in a directive; optional
	// ones are fields of the <Op>Params struct, with the optional query.
	var fields []string
	fnames := newNamer()
	for _, p := range op.Params {
		if p.In != "header" {
			continue
		}
		typ := g.textType(p, g.paramHint(name, p, "Header"))
		if !g.types.scalar(typ) {
			return nil, fmt.Errorf("header parameter %s: a %s has no text form", p.Name, typ)
		}
		if !p.Required {
			if err := tagName(p.Name); err != nil {
				return nil, fmt.Errorf("header parameter %s: %w", p.Name, err)
			}
			fields = append(fields, paramField(fnames, p, "*"+typ, p.Name+",header,omitempty"))
			continue
		}
		if err := directiveText("header parameter", p.Name); err != nil {
			return nil, err
		}
		goName := locals.name(local(p.Name))
		m.params = append(m.params, goName+" "+typ)
		m.directives = append(m.directives, fmt.Sprintf("//kit:header %s: {%s}", p.Name, goName))
	}

	// Body, after the required query parameters (spliced in below).
	bodyAt := len(m.params)
	if op.Body != nil && len(op.Body.Content) > 0 {
		if err := g.body(m, op, name); err != nil {
			return nil, err
		}
	}

	// Query: required parameters positional, named in a directive;
	// optional ones fields of the <Op>Params struct, spread (query.go).
	var required []string
	if err := g.queryParams(op, name, locals, fnames, &fields, &required, &m.directives, &m.decls); err != nil {
		return nil, err
	}
	m.params = append(m.params[:bodyAt], append(required, m.params[bodyAt:]...)...)
	if len(fields) > 0 {
		pname := g.names.name(name + "Params")
		var doc strings.Builder
		for _, l := range wrap76(pname + " holds the optional parameters of " + m.name + "; a nil field is not sent.") {
			doc.WriteString("// " + l + "\n")
		}
		m.decls = append(m.decls, fmt.Sprintf("%stype %s struct {\n%s}\n", doc.String(), pname, strings.Join(fields, "")))
		m.params = append(m.params, "params *"+pname)
		m.directives = append(m.directives, "//kit:query {params}")
	}

	m.directives = append(m.directives, g.opErrorModels(op, name)...)
	return m, g.result(m, op, name, stream)
}

func (g *generator) body(m *method, op *Operation, name string) error {
	chosen := bodyType(op.Body)
	s := chosen.Schema
	switch {
	case jsonType(chosen.Type), chosen.Type == "application/x-www-form-urlencoded", chosen.Type == "multipart/form-data":
		if s == nil {
			return fmt.Errorf("request body %s has no schema", chosen.Type)
		}
		g.types.fileFields = chosen.Type == "multipart/form-data"
		typ := g.types.goType(s, name+"Request")
		g.types.fileFields = false
		elem := strings.TrimPrefix(typ, "[]")
		model := g.types.isStruct(elem)
		formMap := chosen.Type == "application/x-www-form-urlencoded" && strings.HasPrefix(typ, "map[string]")
		if !model && !jsonType(chosen.Type) && !formMap {
			return fmt.Errorf("request body %s of type %s: kit sends such a body from an object model", chosen.Type, typ)
		}
		if (model || g.types.scalar(typ)) && jsonType(chosen.Type) && !op.Body.Required && !strings.HasPrefix(typ, "[]") {
			typ = "*" + typ // nil sends no body
		}
		if !model {
			// A map, an array of text, a string, any JSON: kit sends the
			// parameter marked body as JSON whatever its type (a map in a
			// form: its entries are the form's fields).
			m.directives = append(m.directives, "//kit:body {body}")
		}
		m.params = append(m.params, "body "+typ)
		switch chosen.Type {
		case "application/x-www-form-urlencoded":
			style, err := g.formStyle(chosen, s)
			if err != nil {
				return err
			}
			m.directives = append(m.directives, "//kit:option kit.FormBody("+style+")")
		case "multipart/form-data":
			m.directives = append(m.directives, "//kit:option kit.Multipart()")
		}
	default:
		m.params = append(m.params, "body kit.File")
	}
	return nil
}

// bodyType is the media type of b a method sends: its first JSON one, else
// its first.
func bodyType(b *RequestBody) *MediaType {
	for _, mt := range b.Content {
		if jsonType(mt.Type) {
			return mt
		}
	}
	return b.Content[0]
}

// result picks the call's result from the first 2xx response.
func (g *generator) result(m *method, op *Operation, name string, stream bool) error {
	var ok *Response
	for _, r := range op.Responses {
		if r.Status >= 200 && r.Status < 300 {
			ok = r
			break
		}
	}
	if l := g.lros[op]; l != nil && !stream {
		// A poller's result is one answer: an operation that is also
		// paged (Azure marks some lists long-running) gets its first page.
		if p, err := g.configured(op); err == nil && p != nil && p.Type != "none" {
			g.note(op.Pos, fmt.Sprintf("%s %s is long-running and paged (%s): its poller's result is the first page, whose next link is not walked", op.Method, op.Path, p.from))
		}
		g.pollerResult(m, l, name)
		return nil
	}
	paging, err := g.configured(op)
	if err != nil {
		return fmt.Errorf("pagination: %w", err)
	}
	if paging != nil && paging.Type != "none" && !stream && !hasJSONResult(ok) {
		return fmt.Errorf("pagination: %s: the operation answers no JSON page to walk", paging.from)
	}
	if ok == nil || len(ok.Content) == 0 {
		m.result = "error"
		return nil
	}
	var js, st, other *MediaType
	for _, mt := range ok.Content {
		switch {
		case jsonType(mt.Type) && js == nil:
			js = mt
		case streamType(mt.Type) && st == nil:
			st = mt
		case other == nil:
			other = mt
		}
	}
	if stream {
		s := st.Item
		if s == nil {
			s = st.Schema
		}
		m.result = "(*kit.Stream[" + g.types.goType(s, name+"Event") + "], error)"
		return nil
	}
	switch {
	case js != nil:
		typ := g.types.goType(js.Schema, name+"Response")
		p, err := g.paginate(m, op, ok, js.Schema, typ, paging)
		if err != nil {
			return err
		}
		if p != "" {
			m.result = p
			return nil
		}
		m.result = "(" + typ + ", error)"
	case st != nil:
		return g.result(m, op, name, true)
	default:
		m.result = "(io.ReadCloser, error)"
		g.types.imports["io"] = true
	}
	return nil
}

// hasJSONResult reports whether a 2xx response has a JSON body.
func hasJSONResult(ok *Response) bool {
	if ok == nil {
		return false
	}
	for _, mt := range ok.Content {
		if jsonType(mt.Type) {
			return true
		}
	}
	return false
}

// formStyle returns the kit.FormStyle the encoding of a form body's lists
// asks ("" for kit's default, the key repeated): style form with explode
// (OpenAPI's default) repeats the key; deepObject, which OpenAPI leaves
// undefined for lists and Stripe's document uses for every field, writes
// empty brackets (tags[]=a), which Rack, PHP and Stripe all read as a
// list. Nested objects are written in brackets whatever the style.
func (g *generator) formStyle(mt *MediaType, s *Schema) (string, error) {
	props, _ := flatten(s, map[*Schema]bool{})
	style, from := "", ""
	for _, p := range props {
		if p.Schema.Type != "array" || p.Schema.Items == nil || isObject(p.Schema.Items) || p.Schema.Items.Type == "array" {
			continue // only a list of scalars has a style; nested values are in brackets
		}
		enc := mt.Encoding[p.Name]
		want := ""
		switch {
		case enc == nil || (enc.Style == "" || enc.Style == "form") && (enc.Explode == nil || *enc.Explode):
		case enc.Style == "deepObject":
			want = "kit.FormBrackets"
		default:
			explode := enc.Explode == nil || *enc.Explode
			return "", fmt.Errorf("form field %s: style %s, explode %v: kit writes a list as repeated keys or in brackets", p.Name, enc.Style, explode)
		}
		if from != "" && want != style {
			return "", fmt.Errorf("form fields %s and %s: two list styles in one form body; kit writes one", from, p.Name)
		}
		style, from = want, p.Name
	}
	return style, nil
}

// paramField returns the <Op>Params field of an optional parameter.
func paramField(names *namer, p *Parameter, typ, tag string) string {
	var doc strings.Builder
	var extra []string
	if p.Deprecated {
		extra = append(extra, "Deprecated: the API marks this parameter deprecated.")
	}
	writeDoc(&doc, "\t", "", p.Description, extra...)
	return fmt.Sprintf("%s\t%s %s `kit:%q`\n", doc.String(), names.name(exported(p.Name, "Param")), typ, tag)
}

// paramHint names the type a parameter's schema declares (an enum, an
// object) when the schema has no name of its own: the components/
// parameters name it is referred to by; the parameter's own name when
// operations share its schema (a path item's parameter); otherwise the
// operation's method name and the parameter's, since it is that
// operation's alone. A type is never named after an operation it does
// not belong to only.
func (g *generator) paramHint(method string, p *Parameter, suffix string) string {
	switch {
	case p.Component != "":
		return exported(p.Component, suffix)
	case g.sharedParams[p.Schema] > 1:
		return exported(p.Name, suffix)
	}
	return method + exported(p.Name, suffix)
}

// textType returns the Go type of a path or header parameter, whose
// style is simple: a list of scalars is a string (the values joined with
// commas, as the caller writes them), and so is a union of scalars (an id
// or a slug): text either way.
func (g *generator) textType(p *Parameter, hint string) string {
	if textUnion(p.Schema) {
		return "string"
	}
	typ := g.types.goType(p.Schema, hint)
	if strings.HasPrefix(typ, "[]") && g.types.scalar(typ[2:]) && p.Style == "simple" {
		return "string"
	}
	return typ
}

// textUnion reports whether s is a oneOf or anyOf whose every branch is a
// string, an integer, a number or a boolean, enums allowed.
func textUnion(s *Schema) bool {
	branches := union(s)
	if branches == nil {
		return false
	}
	for _, b := range branches {
		if one := allOfOne(b); one != nil {
			b = one
		}
		switch b.Type {
		case "string", "integer", "number", "boolean":
			if isObject(b) || union(b) != nil || b.Format == "binary" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// queryPlaceholder is a pair of the query a path carries whose value a
// path parameter fills: /weather?lat={lat}.
type queryPlaceholder struct{ key, param string }

// pathTemplate returns the operation's path without the query a few
// documents write in it (/search?query={query}), kit's path being a path
// with constant query pairs only: a constant pair stays; a placeholder
// that names a query parameter is sent as the other query parameters are,
// and one that names a path parameter is returned in inQuery, to be sent
// as a query parameter by that name.
func pathTemplate(op *Operation) (path string, inQuery []queryPlaceholder, err error) {
	path, query, ok := strings.Cut(op.Path, "?")
	if !ok {
		return path, nil, nil
	}
	var keep []string
	for _, pair := range strings.Split(query, "&") {
		key, value, _ := strings.Cut(pair, "=")
		ph := placeholderRE.FindStringSubmatch(value)
		if ph == nil {
			if pair != "" {
				keep = append(keep, pair)
			}
			continue
		}
		in := ""
		for _, p := range op.Params {
			if p.Name == ph[1] && (p.In == "query" || p.In == "path" && in == "") {
				in = p.In
			}
		}
		switch {
		case ph[0] != value || in == "" || key == "":
			return "", nil, fmt.Errorf("path query %s=%s: not a query or path parameter's placeholder", key, value)
		case in == "path":
			inQuery = append(inQuery, queryPlaceholder{key, ph[1]})
		}
	}
	if len(keep) > 0 {
		path += "?" + strings.Join(keep, "&")
	}
	return path, inQuery, nil
}
