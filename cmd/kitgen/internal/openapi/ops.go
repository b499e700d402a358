package openapi

import (
	"fmt"
	"regexp"
	"strings"
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
	decls      []string
}

var placeholderRE = regexp.MustCompile(`\{([^{}]*)\}`)

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
	m := &method{op: op, name: name, iface: g.ifaceOf(op)}
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
	var perr error
	path := placeholderRE.ReplaceAllStringFunc(op.Path, func(ph string) string {
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
		typ := g.types.goType(p.Schema, name+exported(wire, "Param"))
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
	for wire := range byName {
		return nil, fmt.Errorf("path parameter %s is not in the path", wire)
	}
	dir := "//kit:" + strings.ToLower(op.Method) + " " + path
	if op.HasSecurity && len(op.Security) == 0 {
		dir += " noauth"
	}
	m.directives = append(m.directives, dir)

	// Headers: positional, named in a directive.
	for _, p := range op.Params {
		if p.In != "header" {
			continue
		}
		typ := g.types.goType(p.Schema, name+exported(p.Name, "Header"))
		if strings.HasPrefix(typ, "[]") && g.types.scalar(typ[2:]) {
			typ = "string" // style simple: the values joined with commas, as the caller writes them
		}
		if !g.types.scalar(typ) {
			return nil, fmt.Errorf("header parameter %s: a %s has no text form", p.Name, typ)
		}
		goName := locals.name(local(p.Name))
		m.params = append(m.params, goName+" "+typ)
		m.directives = append(m.directives, fmt.Sprintf("//kit:header %s: {%s}", p.Name, goName))
		if !p.Required {
			m.directives = append(m.directives, "//kit:omitempty "+goName)
		}
	}

	// Body.
	if op.Body != nil && len(op.Body.Content) > 0 {
		if err := g.body(m, op, name); err != nil {
			return nil, err
		}
	}

	// Query: one struct of every query parameter, spread (query.go).
	fields, err := g.queryParams(op, name, &m.decls)
	if err != nil {
		return nil, err
	}
	if len(fields) > 0 {
		pname := g.names.name(name + "Params")
		m.decls = append(m.decls, fmt.Sprintf("// %s is the query of %s; a nil field is not sent.\ntype %s struct {\n%s}\n", pname, name, pname, strings.Join(fields, "")))
		m.params = append(m.params, "params *"+pname)
		m.directives = append(m.directives, "//kit:query {params}")
	}

	return m, g.result(m, op, name, stream)
}

func (g *generator) body(m *method, op *Operation, name string) error {
	var chosen *MediaType
	for _, mt := range op.Body.Content {
		if jsonType(mt.Type) {
			chosen = mt
			break
		}
	}
	if chosen == nil {
		chosen = op.Body.Content[0]
	}
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
		if !model && !jsonType(chosen.Type) {
			return fmt.Errorf("request body %s of type %s: a form is one object", chosen.Type, typ)
		}
		if (model || g.types.scalar(typ)) && jsonType(chosen.Type) && !op.Body.Required && !strings.HasPrefix(typ, "[]") {
			typ = "*" + typ // nil sends no body
		}
		if !model {
			// A map, an array of text, a string, any JSON: kit sends the
			// parameter marked body as JSON whatever its type.
			m.directives = append(m.directives, "//kit:body {body}")
		}
		m.params = append(m.params, "body "+typ)
		switch chosen.Type {
		case "application/x-www-form-urlencoded":
			m.directives = append(m.directives, "//kit:option kit.FormBody()")
		case "multipart/form-data":
			m.directives = append(m.directives, "//kit:option kit.Multipart()")
		}
	default:
		m.params = append(m.params, "body kit.File")
	}
	return nil
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
		if p := g.paginate(m, op, ok, js.Schema, typ); p != "" {
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
