package openapi

// The holder of a model's unknown members.
//
// A struct kitgen declares for an object schema keeps, in a field of type
// kit.UnknownFields tagged `json:",embed"`, every member its fields do not
// name, and kit writes them back when the model is sent: a record read,
// changed and sent again loses nothing the server added after the client
// was generated. The field is named ExtraFields (as openai-go's
// JSON.ExtraFields), or the first free name after it (ExtraFields2, ...)
// when a property takes it. A struct has none when
//
//   - its schema is closed (additionalProperties: false, or 3.1's
//     unevaluatedProperties: false): the document says there is nothing to
//     keep;
//   - a parameter, a form body or a multipart body reaches its schema:
//     kit writes those as form fields and query parameters, from the
//     fields the model names.
//
// Maps (additionalProperties alone) keep every member already; unions
// keep their JSON as it came.

// kitImport is kit's import path: the holder's type is kit's.
const kitImport = "github.com/kithttp/kit"

// extraFieldsName is the holder's name when no property takes it.
const extraFieldsName = "ExtraFields"

// keepsExtra reports whether the struct declared for s gets the holder.
func (t *typer) keepsExtra(s *Schema) bool {
	return !s.Closed && !t.textual[s]
}

// markTextual records that s, and every schema it reaches, is written as
// text (form fields, query parameters), whose structs get no holder.
func (t *typer) markTextual(s *Schema) {
	if t.textual == nil {
		t.textual = map[*Schema]bool{}
	}
	stack := []*Schema{s}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s == nil || s == Any || t.textual[s] {
			continue
		}
		t.textual[s] = true
		for _, p := range s.Properties {
			stack = append(stack, p.Schema)
		}
		stack = append(stack, s.Items, s.AdditionalProperties)
		stack = append(stack, s.AllOf...)
		stack = append(stack, s.OneOf...)
		stack = append(stack, s.AnyOf...)
		if s.Discriminator != nil {
			for _, m := range s.Discriminator.Mapping {
				stack = append(stack, m)
			}
		}
	}
}

// markTextualOps marks the schemas of the selected operations' parameters
// and of their form and multipart bodies.
func (g *generator) markTextualOps() {
	for _, op := range g.doc.Ops {
		if !g.selected(op) {
			continue
		}
		for _, p := range op.Params {
			g.types.markTextual(p.Schema)
		}
		if op.Body != nil && len(op.Body.Content) > 0 {
			if mt := bodyType(op.Body); !jsonType(mt.Type) {
				g.types.markTextual(mt.Schema)
			}
		}
	}
}
