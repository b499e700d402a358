package openapi

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kithttp/kit/internal/structtag"
)

// This file maps query parameters to the fields of an operation's
// <Op>Params struct (kitgen spreads it into the query), by their schema,
// style and explode, as OpenAPI 3 writes them:
//
//	scalar                    id=5
//	array, explode            id=3&id=4&id=5 (form, spaceDelimited, pipeDelimited alike)
//	array, no explode         id=3,4,5 (form), id=3%204%205 (spaceDelimited), id=3|4|5 (pipeDelimited)
//	object or map, deepObject color[R]=100&color[G]=200, nested as color[a][b]=v
//	object or map, explode    R=100&G=200
//	object or map, no explode color=R,100,G,200 (and the delimiters above)
//
// A deepObject is a map or struct field tagged `kit:"name,query"`, which kit
// writes in brackets; an exploded object's properties become fields of the
// Params struct of their own; an array without explode is a plain slice
// with kit's list option (`kit:"ids,csv"`, ssv, pipes), whose type name is
// an alias of the slice; an object or map without explode gets a type of
// its own whose MarshalText writes it.

// queryParams maps the query parameters of op: a required one that is
// sent under its own name is a positional parameter (its "name type"
// appended to required, named by a //kit:query directive appended to
// directives); the others are fields of the Params struct, appended to
// fields (fnames names them, with the optional headers). name is the
// method's name; decls receives the types the parameters need. An error
// is why the operation is skipped.
func (g *generator) queryParams(op *Operation, name string, locals, fnames *namer, fields, required, directives, decls *[]string) error {
	sent := map[string]string{} // wire name -> who sends it
	send := func(wire, who string) error {
		if prev, dup := sent[wire]; dup {
			return fmt.Errorf("%s and %s are both sent as %s", prev, who, wire)
		}
		sent[wire] = who
		return nil
	}
	for _, p := range op.Params {
		if p.In == "query" {
			if err := tagName(p.Name); err != nil {
				return fmt.Errorf("query parameter %q: %w", p.Name, err)
			}
			if err := send(p.Name, "query parameter "+p.Name); err != nil {
				return err
			}
		}
	}
	for _, p := range op.Params {
		if p.In != "query" {
			continue
		}
		q := queryParam{g: g, p: p, hint: g.paramHint(name, p, "Param"), decls: decls}
		specs, err := q.fields()
		if err != nil {
			return fmt.Errorf("query parameter %s: %w", p.Name, err)
		}
		if len(specs) == 1 && specs[0].own && p.Required && !strings.HasPrefix(specs[0].typ, "map[") {
			if err := directiveText("query parameter", p.Name); err != nil {
				return err
			}
			goName := locals.name(local(p.Name))
			*required = append(*required, goName+" "+specs[0].typ)
			wire := p.Name
			if j := specs[0].join; j != "" {
				wire += "," + j
			}
			*directives = append(*directives, fmt.Sprintf("//kit:query %s: {%s}", wire, goName))
			continue
		}
		for _, f := range specs {
			if !f.own {
				if err := send(f.wire, "property "+strings.TrimSuffix(f.wire, "[...]")+" of "+p.Name); err != nil {
					return err
				}
			}
			typ := f.typ
			if f.optPtr {
				typ = "*" + typ
			}
			var doc strings.Builder
			var extra []string
			if f.own && p.Deprecated {
				extra = append(extra, "Deprecated: the API marks this parameter deprecated.")
			}
			writeDoc(&doc, "\t", "", f.desc, extra...)
			*fields = append(*fields, fmt.Sprintf("%s\t%s %s `kit:%q`\n", doc.String(), fnames.name(f.goName), typ, f.tag))
		}
	}
	return nil
}

// tagName checks that a wire name can be written in a kit struct tag: a
// comma would end the name, a backquote the tag.
func tagName(name string) error {
	if strings.ContainsAny(name, ",`") || name == "-" {
		return fmt.Errorf("its name cannot be written in a kit struct tag")
	}
	return nil
}

// querySpec is how a query parameter, or one property of an exploded
// object parameter, is sent.
type querySpec struct {
	goName string // the Params field's name
	typ    string // its Go type, without the pointer of an optional value
	optPtr bool   // an optional value is a pointer (nil is not sent)
	tag    string // the field's kit tag
	own    bool   // sent under the parameter's own name, as one parameter
	join   string // kit's list option (csv, ssv, pipes) when its list is sent as one value
	wire   string // the name sent, for a property
	desc   string
}

// queryParam is one query parameter being mapped.
type queryParam struct {
	g     *generator
	p     *Parameter
	hint  string // the Go name its types start with
	decls *[]string
}

// delimiter is what joins the values of a parameter written as one value,
// by its style.
func (q *queryParam) delimiter() (string, error) {
	opt, err := q.listOption()
	return structtag.Delimiter(opt), err
}

// listOption is kit's list option (see structtag.Delimiter) for the
// parameter's style without explode: csv, ssv or pipes.
func (q *queryParam) listOption() (string, error) {
	switch q.p.Style {
	case "form", "":
		return "csv", nil
	case "spaceDelimited":
		return "ssv", nil
	case "pipeDelimited":
		return "pipes", nil
	}
	return "", fmt.Errorf("style %s is not a style of query parameters", q.p.Style)
}

// fields returns how the parameter is sent: as itself, or (an exploded
// object) as its properties.
func (q *queryParam) fields() ([]querySpec, error) {
	p, t := q.p, q.g.types
	s := p.Schema
	if isObject(s) {
		switch {
		case p.Style == "deepObject":
			typ := t.goType(s, q.hint)
			return q.own(typ, true, p.Name+",query,omitempty"), nil
		case p.Explode:
			return q.exploded()
		}
		return q.joinedObject()
	}
	typ := t.goType(s, q.hint)
	if elem, isMap := strings.CutPrefix(typ, "map[string]"); isMap {
		switch {
		case p.Style == "deepObject":
			return q.own(typ, false, p.Name+",query,omitempty"), nil
		case p.Explode && (t.scalar(elem) || elem == "any" || strings.HasPrefix(elem, "[]") && t.scalar(elem[2:])):
			// Each entry is a query parameter of its own, as kit sends a map.
			return q.own(typ, false, p.Name+",omitempty"), nil
		case !p.Explode && t.scalar(elem):
			return q.joinedMap(elem)
		}
		return nil, fmt.Errorf("a %s (style %s, explode %v) has no form OpenAPI defines", typ, p.Style, p.Explode)
	}
	if elem, isSlice := strings.CutPrefix(typ, "[]"); isSlice {
		switch {
		case p.Style == "deepObject" && !t.scalar(elem) && (t.isStruct(elem) || strings.HasPrefix(elem, "map[string]")):
			// A list of objects at indexes: name[0][key]=v, as Rails,
			// PHP and Stripe read it.
			return q.own(typ, false, p.Name+",query,omitempty"), nil
		case !t.scalar(elem):
			return nil, fmt.Errorf("a %s (style %s) has no form OpenAPI defines: its elements are not text", typ, p.Style)
		case p.Explode:
			return q.own(typ, false, p.Name+",omitempty"), nil
		}
		return q.joinedSlice(elem)
	}
	if !t.scalar(typ) {
		if p.Style == "deepObject" && t.isStruct(typ) {
			// A union: written as the variant it holds (an object in
			// brackets, a scalar as itself); its zero value sends nothing.
			return q.own(typ, false, p.Name+",query,omitempty"), nil
		}
		return nil, fmt.Errorf("a %s (style %s) has no form kit sends yet", typ, p.Style)
	}
	return q.own(typ, true, p.Name+",omitempty"), nil
}

// own is the parameter sent under its own name, as a value of type typ.
func (q *queryParam) own(typ string, optPtr bool, tag string) []querySpec {
	return []querySpec{{goName: exported(q.p.Name, "Param"), typ: typ, optPtr: optPtr, tag: tag, own: true, desc: q.p.Description}}
}

// property is a property of an object parameter: its wire name, Go name
// and type.
type property struct {
	wire, goName, typ, desc string
}

// properties lists the properties of the object parameter, each with its
// Go type; scalarOnly refuses any that is not text.
func (q *queryParam) properties(owner string, scalarOnly bool) ([]property, error) {
	props, _ := flatten(q.p.Schema, map[*Schema]bool{})
	names := newNamer()
	var out []property
	for _, pr := range props {
		goName := names.name(exported(pr.Name, "Field"))
		typ := q.g.types.goType(pr.Schema, owner+goName)
		if scalarOnly && !q.g.types.scalar(typ) {
			return nil, fmt.Errorf("property %s is a %s, and an object written as one value (style %s, explode false) holds text only", pr.Name, typ, q.p.Style)
		}
		out = append(out, property{pr.Name, goName, typ, pr.Schema.Description})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("an object without properties")
	}
	return out, nil
}

// exploded spreads an object's properties into the query (style form,
// explode true): each is a field of the Params struct, named after the
// parameter and the property; an object or map property goes in brackets
// under its name.
func (q *queryParam) exploded() ([]querySpec, error) {
	base := exported(q.p.Name, "Param")
	props, err := q.properties(q.hint, false)
	if err != nil {
		return nil, err
	}
	var specs []querySpec
	for _, pr := range props {
		t := q.g.types
		elem := strings.TrimPrefix(pr.typ, "[]")
		if err := tagName(pr.wire); err != nil {
			return nil, fmt.Errorf("property %q: %w", pr.wire, err)
		}
		f := querySpec{goName: base + pr.goName, typ: pr.typ, wire: pr.wire, desc: pr.desc}
		switch {
		case t.scalar(pr.typ):
			f.optPtr, f.tag = true, pr.wire+",omitempty"
		case strings.HasPrefix(pr.typ, "[]") && t.scalar(elem):
			f.tag = pr.wire + ",omitempty"
		case t.isStruct(pr.typ):
			f.optPtr, f.tag, f.wire = true, pr.wire+",query,omitempty", pr.wire+"[...]"
		case strings.HasPrefix(pr.typ, "map[string]"):
			f.tag, f.wire = pr.wire+",query,omitempty", pr.wire+"[...]"
		default:
			return nil, fmt.Errorf("property %s is a %s, which has no form in a query", pr.wire, pr.typ)
		}
		if f.desc == "" {
			f.desc = fmt.Sprintf("%s is property %s of %s.", f.goName, pr.wire, q.p.Name)
		}
		specs = append(specs, f)
	}
	return specs, nil
}

// joinedObject declares a struct of the object's properties whose text is
// name and value pairs joined by the style's delimiter (gt,1,lt,2), for an
// object without explode.
func (q *queryParam) joinedObject() ([]querySpec, error) {
	sep, err := q.delimiter()
	if err != nil {
		return nil, err
	}
	tname := q.g.names.name(q.hint)
	props, err := q.properties(tname, true)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	docComment(&b, fmt.Sprintf("%s is query parameter %s, sent as one value: the names and values of its set properties joined with %q (style %s, explode false).", tname, q.p.Name, sep, q.p.Style))
	fmt.Fprintf(&b, "type %s struct {\n", tname)
	for _, pr := range props {
		writeDoc(&b, "\t", "", pr.desc)
		fmt.Fprintf(&b, "\t%s *%s\n", pr.goName, pr.typ)
	}
	fmt.Fprintf(&b, "}\n\n// MarshalText writes the set properties as name%svalue pairs.\nfunc (v %s) MarshalText() ([]byte, error) {\n\tvar parts []string\n", sep, tname)
	for _, pr := range props {
		fmt.Fprintf(&b, "\tif v.%s != nil {\n\t\tparts = append(parts, %s, %s)\n\t}\n", pr.goName, strconv.Quote(pr.wire), q.text(pr.typ, "*v."+pr.goName))
	}
	fmt.Fprintf(&b, "\treturn []byte(strings.Join(parts, %q)), nil\n}\n", sep)
	q.g.types.imports["strings"] = true
	*q.decls = append(*q.decls, b.String())
	return q.own(tname, true, q.p.Name+",omitempty"), nil
}

// joinedMap declares a map type whose text is its entries' keys and values
// joined by the style's delimiter, keys in sorted order, for a map without
// explode.
func (q *queryParam) joinedMap(elem string) ([]querySpec, error) {
	sep, err := q.delimiter()
	if err != nil {
		return nil, err
	}
	tname := q.g.names.name(q.hint)
	var b strings.Builder
	docComment(&b, fmt.Sprintf("%s is query parameter %s, sent as one value: its keys and values joined with %q, keys in sorted order (style %s, explode false).", tname, q.p.Name, sep, q.p.Style))
	fmt.Fprintf(&b, "type %s map[string]%s\n\n", tname, elem)
	fmt.Fprintf(&b, "// MarshalText writes the entries as key%svalue pairs.\nfunc (v %s) MarshalText() ([]byte, error) {\n\tparts := make([]string, 0, 2*len(v))\n\tfor _, k := range slices.Sorted(maps.Keys(v)) {\n\t\tparts = append(parts, k, %s)\n\t}\n\treturn []byte(strings.Join(parts, %q)), nil\n}\n", sep, tname, q.text(elem, "v[k]"), sep)
	for _, im := range []string{"strings", "slices", "maps"} {
		q.g.types.imports[im] = true
	}
	*q.decls = append(*q.decls, b.String())
	return q.own(tname, false, q.p.Name+",omitempty"), nil
}

// joinedSlice declares the list type of an array without explode: an
// alias of a plain slice, which kit sends as one value, its elements joined
// by the style's delimiter, by the list option of the field's tag
// (`kit:"ids,csv"`): no method of its own, so no code per parameter.
func (q *queryParam) joinedSlice(elem string) ([]querySpec, error) {
	opt, err := q.listOption()
	if err != nil {
		return nil, err
	}
	sep := structtag.Delimiter(opt)
	tname := q.g.names.name(q.hint)
	var b strings.Builder
	docComment(&b, fmt.Sprintf("%s is query parameter %s, sent as one value: its elements joined with %q (style %s, explode false; kit's list option %s).", tname, q.p.Name, sep, q.p.Style, opt))
	fmt.Fprintf(&b, "type %s = []%s\n", tname, elem)
	*q.decls = append(*q.decls, b.String())
	specs := q.own(tname, false, q.p.Name+","+opt)
	specs[0].join = opt
	return specs, nil
}

// docComment writes text as a doc comment, wrapped.
func docComment(b *strings.Builder, text string) {
	for _, l := range wrap76(text) {
		b.WriteString("// " + l + "\n")
	}
}

// text is the Go expression of the text of expr, a value of the scalar
// type typ, as kit writes a query parameter.
func (q *queryParam) text(typ, expr string) string {
	switch typ {
	case "string":
		return expr
	case "int64":
		q.g.types.imports["strconv"] = true
		return "strconv.FormatInt(" + expr + ", 10)"
	case "int32":
		q.g.types.imports["strconv"] = true
		return "strconv.FormatInt(int64(" + expr + "), 10)"
	case "float64":
		q.g.types.imports["strconv"] = true
		return "strconv.FormatFloat(" + expr + ", 'f', -1, 64)"
	case "bool":
		q.g.types.imports["strconv"] = true
		return "strconv.FormatBool(" + expr + ")"
	case "time.Time":
		return "(" + expr + ").Format(time.RFC3339Nano)"
	}
	return "string(" + expr + ")" // a string enum
}
