package openapi

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kithttp/kit/cmd/kitgen/internal/safetext"
)

// typer maps schemas to Go types, declaring the named ones (objects,
// string enums, unions) once each, in the order they are first needed.
type typer struct {
	names    *namer
	declared map[*Schema]string // schema → its declared Go type
	decls    []string           // type declarations, in order
	building map[string]bool    // structs being declared: a field of one of them is a back edge
	imports  map[string]bool
	structs  map[string]bool    // declared struct types
	enums    map[string]bool    // declared string types
	markers  map[string]bool    // "Type.isUnion": marker methods declared
	lists    map[string]bool    // declared slice and map types (of themselves)
	fieldsOf map[string][]field // a declared struct's fields
	helpers  map[string]bool    // unexported helper functions declared
	// stack is the schemas being resolved, outermost first: one reached
	// again while on it is a schema that contains itself.
	stack []*frame
	// err is why a schema resolved since it was last cleared has no Go
	// type (nil: none): the operation that needs it is skipped.
	err *Error
	// failed keeps, for a declared type that met err, that err, for each
	// operation that needs the type.
	failed map[*Schema]*Error

	// fileFields makes binary strings kit.File (multipart bodies).
	fileFields bool
	// errorModel is the client's error model: its struct gets an Error
	// method, so that errors.As finds it.
	errorModel *Schema
	// opErrors are the error models of some operations (see
	// opErrorModels): their structs get an Error method too.
	opErrors map[*Schema]bool
	// textual is the schemas written as form fields or query parameters
	// (see markTextual): their structs keep no unknown members.
	textual map[*Schema]bool
	// note reports a remark on the document (nil: none are kept).
	note func(Pos, string)
	// noted keeps a remark on a schema to one.
	noted map[*Schema]bool
}

func newTyper(names *namer) *typer {
	return &typer{names: names, declared: map[*Schema]string{}, building: map[string]bool{}, imports: map[string]bool{},
		structs: map[string]bool{}, enums: map[string]bool{}, markers: map[string]bool{}, lists: map[string]bool{}, fieldsOf: map[string][]field{}, helpers: map[string]bool{}, failed: map[*Schema]*Error{}, noted: map[*Schema]bool{}}
}

// isObject reports whether s becomes a Go struct.
func isObject(s *Schema) bool {
	for hop := 0; s != nil && s != Any && hop < MaxRefHops; hop++ {
		one := allOfOne(s)
		if one == nil || one == s {
			break
		}
		s = one
	}
	if s == nil || s == Any {
		return false
	}
	if len(s.AllOf) > 0 {
		return true
	}
	return len(s.Properties) > 0 && len(s.OneOf)+len(s.AnyOf) == 0
}

// allOfOne returns the one schema an allOf stands for when its other
// parts only annotate it (a description, an xml name, an example): allOf:
// [{$ref: String}, {xml: {name: Id}}] is a String. nil when s adds
// properties or a union of its own, or when two parts constrain.
func allOfOne(s *Schema) *Schema {
	if len(s.AllOf) == 0 || len(s.Properties) > 0 || len(s.OneOf)+len(s.AnyOf) > 0 {
		return nil
	}
	var one *Schema
	for _, p := range s.AllOf {
		if annotates(p) {
			continue
		}
		if one != nil {
			return nil
		}
		one = p
	}
	if one == nil {
		return s.AllOf[0]
	}
	return one
}

// annotates reports whether s constrains nothing a Go type shows: an
// inline schema with only a description, an xml name, an example.
func annotates(s *Schema) bool {
	return s == Any || s.Name == "" && s.Type == "" && len(s.Properties) == 0 && s.Items == nil &&
		s.AdditionalProperties == nil && len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0 && len(s.Enum) == 0 &&
		s.Discriminator == nil
}

// union returns the branches of a oneOf/anyOf with two or more.
func union(s *Schema) []*Schema {
	if len(s.OneOf) > 1 {
		return s.OneOf
	}
	if len(s.AnyOf) > 1 {
		return s.AnyOf
	}
	return nil
}

// frame is a schema being resolved.
type frame struct {
	s    *Schema
	hint string
	// container: s is an array or a map, so a way back to a schema
	// through it is a type Go can declare (type D []D).
	container bool
	// barrier: s is a declared type (a struct, a union), so a way back to
	// a schema through it ends at its name.
	barrier bool
	// name is the type s is declared as, once it is reached again.
	name string
}

// goType returns the Go type of s; hint names a declaration it needs when
// s has no name of its own.
func (t *typer) goType(s *Schema, hint string) string {
	if s == nil || s == Any {
		return "any"
	}
	if name, ok := t.declared[s]; ok {
		if e := t.failed[s]; e != nil {
			t.fail(e)
		}
		return name
	}
	if typ, ok := t.reentry(s); ok {
		return typ
	}
	if len(t.stack) >= MaxSchemaDepth {
		// A chain of references can be as long as the document: the
		// loader reads each schema at its own depth.
		t.fail(&Error{Pos: s.Pos, Msg: fmt.Sprintf("schemas nested more than %d deep, references included", MaxSchemaDepth)})
		return "any"
	}
	f := &frame{s: s, hint: hint}
	t.stack = append(t.stack, f)
	typ := t.resolve(s, hint, f)
	t.stack = t.stack[:len(t.stack)-1]
	if f.name == "" {
		return typ
	}
	// s contains itself through an array or a map: it is a named type,
	// which Go allows (type D []D, type G map[string]G).
	t.declared[s] = f.name
	t.lists[f.name] = true
	var b strings.Builder
	comment(&b, "", f.name, s.Description, "")
	fmt.Fprintf(&b, "type %s %s\n", f.name, typ)
	t.decls = append(t.decls, b.String())
	return f.name
}

// fail records why a schema being resolved has no Go type, for the
// operation that needs it and for the declared types it is in.
func (t *typer) fail(e *Error) {
	if t.err == nil {
		t.err = e
	}
	for _, f := range t.stack {
		t.failed[f.s] = e
	}
}

// reentry returns the type of s when s is being resolved already (ok is
// false when it is not, or when it is to be resolved again).
func (t *typer) reentry(s *Schema) (typ string, ok bool) {
	container, barrier := false, false
	for i := len(t.stack) - 1; i >= 0; i-- {
		f := t.stack[i]
		container = container || f.container
		if f.s == s {
			switch {
			case container && !barrier:
				// Back through an array or a map: s names itself.
				if f.name == "" {
					f.name = t.declName(s, f.hint)
				}
				return f.name, true
			case f.container:
				// Back through a declared type, which ends the way
				// round: s is resolved again, and meets that type.
				return "", false
			default:
				// A schema that is another one (an allOf, oneOf or
				// anyOf of one) and comes back to itself says nothing.
				return "any", true
			}
		}
		barrier = barrier || f.barrier
	}
	return "", false
}

// resolve returns the Go type of s, which f, on the stack, stands for.
func (t *typer) resolve(s *Schema, hint string, f *frame) string {
	// A schema that is another one (an allOf, oneOf or anyOf of one) is
	// that one's type.
	if one := allOfOne(s); one != nil {
		return t.goType(one, hint) // allOf of one: that schema, with a description
	}
	if u := union(s); u != nil {
		if scalars(u) {
			return "string" // integer or string (an id or a name): its text is what is sent
		}
		f.barrier = true
		return t.declareUnion(s, u, hint)
	}
	if len(s.OneOf) == 1 {
		return t.goType(s.OneOf[0], hint)
	}
	if len(s.AnyOf) == 1 {
		return t.goType(s.AnyOf[0], hint)
	}
	if isObject(s) {
		f.barrier = true
		return t.declareStruct(s, hint)
	}
	typ := s.Type
	if typ == "" && len(s.Enum) > 0 && allStrings(s.Enum) {
		typ = "string" // 3.1's const, or an enum without a type
	}
	switch typ {
	case "string":
		if len(s.Enum) > 0 && allStrings(s.Enum) {
			return t.declareEnum(s, hint)
		}
		switch s.Format {
		case "binary":
			if t.fileFields {
				return "kit.File"
			}
		case "date-time":
			t.imports["time"] = true
			return "time.Time"
		}
		return "string"
	case "integer":
		if s.Format == "int32" {
			return "int32"
		}
		return "int64"
	case "number":
		return "float64"
	case "boolean":
		return "bool"
	case "array":
		f.container = true
		return "[]" + t.goType(s.Items, hint+"Item")
	}
	if s.AdditionalProperties != nil {
		f.container = true
		return "map[string]" + t.goType(s.AdditionalProperties, hint+"Value")
	}
	if s.Type == "object" {
		return "map[string]any"
	}
	return "any"
}

// scalars reports whether every branch is a string, integer or number
// without an enum.
func scalars(branches []*Schema) bool {
	for _, b := range branches {
		switch b.Type {
		case "string", "integer", "number":
			if len(b.Enum) > 0 || isObject(b) || b.Format == "binary" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func allStrings(vs []any) bool {
	for _, v := range vs {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

func (t *typer) declName(s *Schema, hint string) string {
	if s.Name != "" {
		return t.names.name(exported(s.Name, "Model"))
	}
	return t.names.name(exported(hint, "Model"))
}

func (t *typer) declareEnum(s *Schema, hint string) string {
	name := t.declName(s, hint)
	t.declared[s] = name
	t.enums[name] = true
	var b strings.Builder
	comment(&b, "", name, s.Description, "is one of the values below; a server may send others.")
	fmt.Fprintf(&b, "type %s string\n\n", name)
	var consts []string
	seen := map[string]bool{}
	for _, v := range s.Enum {
		str := v.(string)
		c := name + exported(str, "Empty")
		if seen[c] {
			continue
		}
		seen[c] = true
		consts = append(consts, fmt.Sprintf("\t%s %s = %s\n", t.names.name(c), name, strconv.Quote(str)))
	}
	if len(consts) > 0 {
		fmt.Fprintf(&b, "// Values of %s.\nconst (\n%s)\n", name, strings.Join(consts, ""))
	}
	t.decls = append(t.decls, b.String())
	return name
}

func (t *typer) declareUnion(s *Schema, branches []*Schema, hint string) string {
	name := t.declName(s, hint)
	t.declared[s] = name
	t.structs[name] = true
	t.imports["encoding/json"] = true
	t.imports[kitImport] = true // its codec: kit.MarshalJSON, kit.UnmarshalJSON
	if s.Discriminator != nil && s.Discriminator.Property != "" {
		if decl, ok := t.sealedUnion(s, name, branches); ok {
			t.decls = append(t.decls, decl)
			return name
		}
	}
	var b strings.Builder
	var kinds []string
	type as struct{ method, ctor, typ string }
	var methods []as
	mnames := newNamer("MarshalJSON", "UnmarshalJSON", "Raw")
	seen := map[string]bool{}
	for i, br := range branches {
		typ := t.goType(br, name+"Variant"+strconv.Itoa(i+1))
		kinds = append(kinds, typ)
		if seen[typ] {
			continue // a second schema of the same Go type: one accessor
		}
		seen[typ] = true
		label := exported(strings.TrimPrefix(strings.TrimPrefix(typ, "[]"), "map[string]"), "Value")
		if strings.HasPrefix(typ, "[]") {
			label += "List"
		} else if strings.HasPrefix(typ, "map[") {
			label += "Map"
		}
		methods = append(methods, as{mnames.name("As" + label), t.names.name(name + "Of" + label), typ})
	}
	what := "one of"
	if len(s.AnyOf) > 1 {
		what = "any of"
	}
	holds := fmt.Sprintf("holds %s: %s.", what, strings.Join(kinds, ", "))
	if len(methods) < len(kinds) {
		var distinct []string
		for _, m := range methods {
			distinct = append(distinct, m.typ)
		}
		holds = fmt.Sprintf("holds %s %d schemas kitgen cannot tell apart in Go: they are %s.", what, len(kinds), strings.Join(distinct, " or "))
	}
	comment(&b, "", name, s.Description, holds+" Its JSON is kept as it came; decode it with the As methods, and make one with the Of functions.")
	if s.Discriminator != nil && s.Discriminator.Property != "" {
		fmt.Fprintf(&b, "//\n// The %s field of the JSON says which it is.\n", safetext.Comment(strconv.Quote(s.Discriminator.Property)))
	}
	fmt.Fprintf(&b, "type %s struct {\n\tRaw json.RawMessage\n\t// value is what an Of function was given, sent when Raw is nil.\n\tvalue any\n}\n\n", name)
	helper := t.unionHelpers()
	fmt.Fprintf(&b, "// MarshalJSON returns the JSON as it came, the value an Of function was\n// given, or null.\nfunc (v %s) MarshalJSON() ([]byte, error) {\n\treturn %sJSON(v.Raw, v.value)\n}\n\n", name, helper)
	fmt.Fprintf(&b, "// UnmarshalJSON keeps a copy of the JSON.\nfunc (v *%s) UnmarshalJSON(b []byte) error {\n\tv.Raw, v.value = append(v.Raw[:0], b...), nil\n\treturn nil\n}\n", name)
	for _, m := range methods {
		fmt.Fprintf(&b, "\n// %s returns the %s that holds x.\nfunc %s(x %s) %s {\n\treturn %s{value: x}\n}\n", m.ctor, name, m.ctor, m.typ, name, name)
		fmt.Fprintf(&b, "\n// %s decodes the value as a %s.\nfunc (v %s) %s() (%s, error) {\n\tvar x %s\n\terr := %sAs(v.Raw, v.value, &x)\n\treturn x, err\n}\n", m.method, m.typ, name, m.method, m.typ, m.typ, helper)
	}
	t.decls = append(t.decls, b.String())
	return name
}

// field is one field of a struct being declared.
type field struct {
	name, typ, tag, doc string
	wire                string // the member's JSON name
	deprecated          bool
}

func (t *typer) declareStruct(s *Schema, hint string) string {
	name := t.declName(s, hint)
	t.declared[s] = name
	t.structs[name] = true
	t.building[name] = true
	defer delete(t.building, name)
	flat := newFlattener(map[*Schema]bool{})
	flat.add(s, 0)
	props, required := flat.props, flat.req
	if flat.deep {
		t.fail(&Error{Pos: s.Pos, Msg: fmt.Sprintf("allOf parts nested more than %d deep", MaxSchemaDepth)})
	}
	fields := newNamer()
	isError := s == t.errorModel || t.opErrors[s]
	if isError {
		fields.taken["Error"] = true // the method
	}
	var fs []field
	for _, p := range props {
		fname := exported(p.Name, "Field")
		if fields.taken[fname] && fname == "Error" {
			fname += "Field"
		}
		fname = fields.name(fname)
		typ := t.goType(p.Schema, name+fname)
		req := required[p.Name]
		tag := "" // the options after the name
		switch {
		case strings.HasPrefix(typ, "[]") || strings.HasPrefix(typ, "map[") || typ == "any" || t.lists[typ]:
			if !req {
				tag = ",omitempty"
			}
		case !req && p.Schema.Nullable && (!t.fileFields || t.scalar(typ)):
			// Three states: absent (left out), null, or a value.
			typ, tag = "kit.Nullable["+typ+"]", ",omitzero"
		case !req:
			typ, tag = "*"+typ, ",omitempty"
		case p.Schema.Nullable || t.building[typ]:
			// By its type's name: a schema that is another one (an allOf
			// of one with a description) is a back edge too.
			typ = "*" + typ // null, or a back edge of a recursive type
			if !p.Schema.Nullable && t.note != nil && !t.noted[p.Schema] {
				t.noted[p.Schema] = true
				t.note(p.Schema.Pos, fmt.Sprintf("schema %s: its required field %s leads back to %s through required fields, so no finite JSON value has it; the field is a pointer (%s)",
					name, p.Name, typ[1:], "*"+typ[1:]))
			}
		}
		jt, ok := jsonTag(p.Name, tag)
		if ok && req && isError {
			// A body without the member is not this model: kit leaves
			// HTTPError.Model nil rather than give an all-zero one.
			jt = jt[:len(jt)-1] + ` kit:",required"` + "`"
		}
		doc := p.Schema.Description
		if !ok {
			doc = fmt.Sprintf("The member %s: a name no json tag can hold; it is neither sent nor read.", strconv.Quote(p.Name))
			if t.note != nil {
				t.note(p.Schema.Pos, fmt.Sprintf("schema %s: member %s: a name no json tag can hold (encoding/json and kit's codec read none with a comma, a quote, a backslash or a backquote, nor the empty name); field %s is neither sent nor read", name, strconv.Quote(p.Name), fname))
			}
		}
		fs = append(fs, field{name: fname, typ: typ, tag: jt, doc: doc, wire: p.Name, deprecated: p.Schema.Deprecated})
	}
	var b strings.Builder
	comment(&b, "", name, s.Description, "")
	fmt.Fprintf(&b, "type %s struct {\n", name)
	for _, f := range fs {
		var extra []string
		if f.deprecated {
			extra = append(extra, "Deprecated: the API marks this member deprecated.")
		}
		writeDoc(&b, "\t", "", f.doc, extra...)
		fmt.Fprintf(&b, "\t%s %s %s\n", f.name, f.typ, f.tag)
	}
	if t.keepsExtra(s) {
		t.imports[kitImport] = true
		holder := fields.name(extraFieldsName)
		writeDoc(&b, "\t", holder+" holds the members the schema does not name, as raw JSON; kit's codec (kit.MarshalJSON, not encoding/json) sends them back with the model.", "")
		fmt.Fprintf(&b, "\t%s kit.UnknownFields `json:\",embed\"`\n", holder)
	}
	b.WriteString("}\n")
	t.fieldsOf[name] = fs
	if isError {
		b.WriteString(t.errorMethod(name, fs))
	}
	t.decls = append(t.decls, b.String())
	return name
}

// flatten returns the properties of s and of its allOf parts, in order
// (a later one of the same name replaces an earlier), and which are
// required. Parts nested deeper than MaxSchemaDepth are left out.
func flatten(s *Schema, seen map[*Schema]bool) ([]*Property, map[string]bool) {
	f := newFlattener(seen)
	f.add(s, 0)
	return f.props, f.req
}

// flattener gathers the properties of a schema and its allOf parts, in
// time linear in their number.
type flattener struct {
	seen  map[*Schema]bool
	props []*Property
	at    map[string]int // a property's name → its index in props
	req   map[string]bool
	deep  bool // parts nested deeper than MaxSchemaDepth were left out
}

func newFlattener(seen map[*Schema]bool) *flattener {
	return &flattener{seen: seen, at: map[string]int{}, req: map[string]bool{}}
}

// add gathers s's parts, then s's own properties, at depth.
func (f *flattener) add(s *Schema, depth int) {
	if f.seen[s] {
		return
	}
	if depth > MaxSchemaDepth {
		f.deep = true
		return
	}
	f.seen[s] = true
	for _, part := range s.AllOf {
		f.add(part, depth+1)
	}
	for _, p := range s.Properties {
		if i, ok := f.at[p.Name]; ok {
			f.props[i] = p
			continue
		}
		f.at[p.Name] = len(f.props)
		f.props = append(f.props, p)
	}
	for _, r := range s.Required {
		f.req[r] = true
	}
}

// comment writes a doc comment for name: "name: " and the first
// paragraph of the schema's description, its other paragraphs, then "name
// what"; "name what" alone without a description.
func comment(b *strings.Builder, indent, name, desc, what string) {
	first, rest, _ := strings.Cut(strings.TrimSpace(desc), "\n\n")
	lead := firstSentence(first)
	var extra []string
	switch {
	case lead != "" && what != "":
		lead = name + ": " + lead
		extra = append(extra, name+" "+what)
	case lead != "":
		lead = name + ": " + lead
	case what != "":
		lead = name + " " + what
	default:
		lead = name + " is a model of the API."
	}
	writeDoc(b, indent, lead, rest, extra...)
}

// firstSentence returns the first paragraph of a description on one line,
// with comment-breaking text removed.
func firstSentence(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n\n")
	s = strings.Join(strings.Fields(safetext.Comment(s)), " ")
	return strings.ReplaceAll(s, "*/", "* /")
}

func wrap76(s string) []string {
	return wrapWidth(safetext.Comment(s), 76)
}

// sortedImports lists the imports the types need.
func (t *typer) sortedImports() []string {
	var out []string
	for k := range t.imports {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isStruct reports whether typ is a struct type declared here.
func (t *typer) isStruct(typ string) bool { return t.structs[typ] }

// scalar reports whether typ is a Go type kit sends as text.
func (t *typer) scalar(typ string) bool {
	switch typ {
	case "string", "int64", "int32", "float64", "bool", "time.Time":
		return true
	}
	return t.enums[typ]
}
