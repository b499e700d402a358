package openapi

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxSchemaDepth bounds how deeply inline schemas nest (references do not
// count: a recursive schema is one object reached again), so that a
// hostile document cannot exhaust the stack. It bounds the Go types made
// of them too, references included: an operation whose types nest deeper
// is skipped.
const MaxSchemaDepth = 256

// schemaNamed reads a components/schemas entry.
func (l *loader) schemaNamed(sn node, name string) (*Schema, error) {
	s, err := l.schema(sn)
	if err != nil {
		return nil, err
	}
	if s.Name == "" && s != Any {
		s.Name = name
	}
	return s, nil
}

func (l *loader) schema(sn node) (*Schema, error) {
	return l.schemaAt(sn, 0)
}

func (l *loader) schemaAt(sn node, depth int) (_ *Schema, err error) {
	if depth > MaxSchemaDepth {
		return nil, sn.errorf("schemas nested more than %d deep", MaxSchemaDepth)
	}
	name := ""
	if r := get(sn.n, "$ref"); r != nil && sn.n.Kind == yaml.MappingNode {
		if _, frag, _ := strings.Cut(r.Value, "#"); strings.HasPrefix(frag, "/components/schemas/") {
			name = strings.TrimPrefix(frag, "/components/schemas/")
			if strings.Contains(name, "/") { // a schema inside a component schema
				name = ""
			}
		}
	}
	sn, err = l.deref(sn)
	if err != nil {
		return nil, err
	}
	n := sn.n
	if s, ok := l.schemas[n]; ok {
		return s, nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		// 3.1 boolean schemas: true accepts anything; false nothing, which a
		// client cannot send either, so it reads as anything too.
		if n.Value == "true" || n.Value == "false" {
			return Any, nil
		}
		return nil, sn.errorf("a schema must be a mapping, not %q", n.Value)
	case yaml.MappingNode:
	default:
		return nil, sn.errorf("a schema must be a mapping")
	}
	s := &Schema{
		Name:        name,
		Format:      str(get(n, "format")),
		Description: str(get(n, "description")),
		ReadOnly:    boolean(get(n, "readOnly")),
		WriteOnly:   boolean(get(n, "writeOnly")),
		Deprecated:  boolean(get(n, "deprecated")),
		Nullable:    boolean(get(n, "nullable")),
		Extensions:  extensions(n),
		Pos:         sn.pos(),
	}
	l.schemas[n] = s // before the children: a recursive schema meets itself
	mark := len(l.read)
	l.read = append(l.read, n)
	defer func() {
		if err != nil {
			// s is not whole, nor is what was read inside it and may
			// point at it: each is read again (and refused) when met.
			for _, m := range l.read[mark:] {
				delete(l.schemas, m)
			}
			l.read = l.read[:mark]
		}
	}()
	if t := get(n, "type"); t != nil {
		switch t.Kind {
		case yaml.ScalarNode:
			s.Type = t.Value
		case yaml.SequenceNode: // 3.1: type: [string, "null"]
			var types []string
			for _, e := range t.Content {
				if e.Value == "null" {
					s.Nullable = true
				} else {
					types = append(types, e.Value)
				}
			}
			if len(types) == 1 {
				s.Type = types[0]
			}
		}
		if s.Type == "null" {
			s.Type, s.Nullable = "", true
		}
	}
	switch s.Type {
	case "", "object", "array", "string", "integer", "number", "boolean":
	default:
		return nil, sn.errorf("type %q is not a JSON schema type", s.Type)
	}
	if e := get(n, "enum"); e != nil {
		for _, v := range items(e) {
			if v.Tag == "!!null" {
				s.Nullable = true
				continue
			}
			s.Enum = append(s.Enum, value(v))
		}
	}
	if c := get(n, "const"); c != nil {
		s.Enum = []any{value(c)}
	}
	s.Default = value(get(n, "default"))
	s.Minimum, s.Maximum = number(get(n, "minimum")), number(get(n, "maximum"))
	for _, r := range items(get(n, "required")) {
		s.Required = append(s.Required, r.Value)
	}
	for k, v := range pairs(get(n, "properties")) {
		ps, err := l.schemaAt(node{sn.file, v}, depth+1)
		if err != nil {
			return nil, wrap(err, fmt.Sprintf("property %s", k.Value))
		}
		s.Properties = append(s.Properties, &Property{Name: k.Value, Schema: ps})
	}
	if it := get(n, "items"); it != nil {
		if s.Items, err = l.schemaAt(node{sn.file, it}, depth+1); err != nil {
			return nil, wrap(err, "items")
		}
	} else if s.Type == "array" {
		s.Items = Any
	}
	if ap := get(n, "additionalProperties"); ap != nil {
		switch {
		case ap.Kind == yaml.ScalarNode && ap.Value == "true":
			s.AdditionalProperties = Any
		case ap.Kind == yaml.ScalarNode:
			s.Closed = ap.Value == "false"
		default:
			if s.AdditionalProperties, err = l.schemaAt(node{sn.file, ap}, depth+1); err != nil {
				return nil, wrap(err, "additionalProperties")
			}
		}
	}
	if up := get(n, "unevaluatedProperties"); up != nil && up.Kind == yaml.ScalarNode && up.Value == "false" {
		s.Closed = true
	}
	for _, c := range []struct {
		key  string
		dest *[]*Schema
	}{{"allOf", &s.AllOf}, {"oneOf", &s.OneOf}, {"anyOf", &s.AnyOf}} {
		for i, e := range items(get(n, c.key)) {
			es, err := l.schemaAt(node{sn.file, e}, depth+1)
			if err != nil {
				return nil, wrap(err, fmt.Sprintf("%s[%d]", c.key, i))
			}
			if isNull(es) && c.key != "allOf" {
				s.Nullable = true // oneOf: [{type: null}, X] is a nullable X
				continue
			}
			*c.dest = append(*c.dest, es)
		}
	}
	if d := get(n, "discriminator"); d != nil {
		s.Discriminator = &Discriminator{Property: str(get(d, "propertyName"))}
		for k, v := range pairs(get(d, "mapping")) {
			ref := v.Value
			if !strings.Contains(ref, "#") && !strings.Contains(ref, "/") {
				ref = "#/components/schemas/" + ref // a bare schema name
			}
			target, err := l.schemaAt(node{sn.file, &yaml.Node{Kind: yaml.MappingNode, Line: v.Line, Column: v.Column, Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Value: "$ref"}, {Kind: yaml.ScalarNode, Value: ref, Line: v.Line, Column: v.Column},
			}}}, depth+1)
			if err != nil {
				// A mapping is a hint: the union is still its branches,
				// chosen by their names. Documents bundled from several
				// files keep mappings into files that are gone.
				var e *Error
				if errors.As(err, &e) {
					l.notes = append(l.notes, Note{Pos: e.Pos, Msg: fmt.Sprintf("discriminator mapping %s left out: %s", k.Value, e.Msg)})
				}
				continue
			}
			if s.Discriminator.Mapping == nil {
				s.Discriminator.Mapping = map[string]*Schema{}
			}
			s.Discriminator.Mapping[k.Value] = target
		}
	}
	return s, nil
}

// isNull reports whether s allows only null.
func isNull(s *Schema) bool {
	return s != Any && s.Nullable && s.Type == "" && len(s.Properties) == 0 && s.Items == nil &&
		len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) == 0 && len(s.Enum) == 0 && s.Name == ""
}

// number returns a number node's value, nil when n is absent or not a
// number.
func number(n *yaml.Node) *float64 {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	var f float64
	if n.Decode(&f) != nil {
		return nil
	}
	return &f
}
