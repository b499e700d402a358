package openapi

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kithttp/kit/cmd/kitgen/internal/safetext"
)

// variant is one Go type of a discriminated union and the discriminator
// values that select it.
type variant struct {
	typ    string
	values []string
}

// sealedUnion declares a oneOf/anyOf with a discriminator as a holder
// struct whose Value field is a sealed interface: the branch types (structs
// declared here) get an unexported marker method, and the holder's
// UnmarshalJSON decodes the branch the discriminator names. ok is false when
// a branch is not a struct declared here (a scalar, an array, a map): the
// caller then writes the raw-JSON wrapper.
func (t *typer) sealedUnion(s *Schema, name string, branches []*Schema) (decl string, ok bool) {
	d := s.Discriminator
	byType := map[string]*variant{}
	var order []*variant
	add := func(typ, value string) {
		v := byType[typ]
		if v == nil {
			v = &variant{typ: typ}
			byType[typ] = v
			order = append(order, v)
		}
		if !slices.Contains(v.values, value) {
			v.values = append(v.values, value)
		}
	}
	typeOf := func(br *Schema, i int) (string, bool) {
		typ := t.goType(br, name+"Variant"+strconv.Itoa(i+1))
		return typ, t.structs[typ] && typ != name
	}
	// Explicit mappings first, in value order; then each named branch no
	// mapping points at, under its schema's name (the implicit mapping).
	keys := make([]string, 0, len(d.Mapping))
	for k := range d.Mapping {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	mapped := map[*Schema]bool{}
	for i, k := range keys {
		typ, isStruct := typeOf(d.Mapping[k], len(branches)+i)
		if !isStruct {
			return "", false
		}
		mapped[d.Mapping[k]] = true
		add(typ, k)
	}
	for i, br := range branches {
		typ, isStruct := typeOf(br, i)
		if !isStruct {
			return "", false
		}
		if mapped[br] {
			continue
		}
		if br.Name == "" {
			if _, ok := byType[typ]; !ok {
				return "", false // an inline branch no value names
			}
			continue
		}
		add(typ, br.Name)
	}
	if len(order) == 0 {
		return "", false
	}
	iface := t.names.name(name + "Variant")
	marker := "is" + name
	var kinds []string
	for _, v := range order {
		kinds = append(kinds, v.typ)
	}
	var b strings.Builder
	what := "one of"
	if len(s.AnyOf) > 1 {
		what = "any of"
	}
	comment(&b, "", name, s.Description, fmt.Sprintf("holds %s: %s, as the %q field of its JSON says. Switch on the type of Value; a value the document does not name leaves Value nil and its JSON in Raw.",
		what, strings.Join(kinds, ", "), d.Property))
	fmt.Fprintf(&b, "type %s struct {\n\tValue %s\n\t// Raw is the JSON of a variant the document does not name.\n\tRaw json.RawMessage\n}\n\n", name, iface)
	fmt.Fprintf(&b, "// %s is a variant of %s: %s.\ntype %s interface {\n\t%s()\n}\n\n", iface, name, strings.Join(kinds, ", "), iface, marker)
	for _, v := range order {
		if t.markers[v.typ+"."+marker] {
			continue
		}
		t.markers[v.typ+"."+marker] = true
		fmt.Fprintf(&b, "func (%s) %s() {}\n\n", v.typ, marker)
	}
	helper := t.discriminatorHelper()
	fmt.Fprintf(&b, "// MarshalJSON returns the JSON of Value with its %s member set to\n// the first value the document names for its type when Value leaves it\n// empty; of Raw when Value is nil; or null.\nfunc (v %s) MarshalJSON() ([]byte, error) {\n\tswitch x := v.Value.(type) {\n", safetext.Comment(strconv.Quote(d.Property)), name)
	for _, v := range order {
		for _, typ := range []string{v.typ, "*" + v.typ} {
			fmt.Fprintf(&b, "\tcase %s:\n\t\treturn %s(x, %s, %s)\n", typ, helper, strconv.Quote(d.Property), strconv.Quote(v.values[0]))
		}
	}
	fmt.Fprintf(&b, "\t}\n\tif v.Value != nil {\n\t\treturn kit.MarshalJSON(v.Value)\n\t}\n\tif v.Raw != nil {\n\t\treturn v.Raw, nil\n\t}\n\treturn []byte(\"null\"), nil\n}\n\n")
	fmt.Fprintf(&b, "// UnmarshalJSON decodes the variant the %q field names.\nfunc (v *%s) UnmarshalJSON(b []byte) error {\n", d.Property, name)
	fmt.Fprintf(&b, "\tv.Value, v.Raw = nil, nil\n\tif string(b) == \"null\" {\n\t\treturn nil\n\t}\n")
	// The members by name, not a struct tag: a discriminator no json tag
	// can hold (a comma, a quote) is read all the same.
	fmt.Fprintf(&b, "\tvar probe map[string]json.RawMessage\n\tif err := json.Unmarshal(b, &probe); err != nil {\n\t\treturn fmt.Errorf(\"decode %s: %%w\", err)\n\t}\n", name)
	fmt.Fprintf(&b, "\tkind := \"\"\n\tif raw, ok := probe[%s]; ok {\n\t\tif err := json.Unmarshal(raw, &kind); err != nil {\n\t\t\treturn fmt.Errorf(\"decode %s: its discriminator: %%w\", err)\n\t\t}\n\t}\n\tswitch kind {\n", strconv.Quote(d.Property), name)

	for _, v := range order {
		quoted := make([]string, len(v.values))
		for i, val := range v.values {
			quoted[i] = strconv.Quote(val)
		}
		fmt.Fprintf(&b, "\tcase %s:\n\t\tvar x %s\n\t\tif err := kit.UnmarshalJSON(b, &x); err != nil {\n\t\t\treturn fmt.Errorf(\"decode %s as %s: %%w\", err)\n\t\t}\n\t\tv.Value = x\n", strings.Join(quoted, ", "), v.typ, name, v.typ)
	}
	b.WriteString("\tdefault:\n\t\tv.Raw = append(json.RawMessage(nil), b...)\n\t}\n\treturn nil\n}\n")
	t.imports["fmt"] = true
	return b.String(), true
}

// discriminatorHelper declares, once, the function the MarshalJSON of a
// discriminated union calls to write its variant's discriminator, and
// returns its name.
func (t *typer) discriminatorHelper() string {
	const name = "kitgenWithDiscriminator"
	if t.helpers[name] {
		return name
	}
	t.helpers[name] = true
	t.decls = append(t.decls, `// kitgenWithDiscriminator returns the JSON of v, an object, with its key
// member set to value when v leaves it out, null or "", so that a variant
// of a discriminated union says which it is without the caller setting it.
func kitgenWithDiscriminator(v any, key, value string) ([]byte, error) {
	b, err := kit.MarshalJSON(v) // kit's codec: a variant's unknown members are kept
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(b, &members) != nil || members == nil {
		return b, nil
	}
	if cur, ok := members[key]; ok && string(cur) != "null" && string(cur) != `+"`\"\"`"+` {
		return b, nil
	}
	members[key], _ = json.Marshal(value)
	return json.Marshal(members)
}
`)
	return name
}

// unionHelpers declares, once, the two functions every union of the
// package calls (its MarshalJSON and its As methods share one body each:
// a body per union would be compiled once per union), and returns their
// prefix: kitgenUnionJSON and kitgenUnionAs.
func (t *typer) unionHelpers() string {
	const name = "kitgenUnion"
	if t.helpers[name] {
		return name
	}
	t.helpers[name] = true
	t.decls = append(t.decls, `// kitgenUnionJSON returns a union's JSON: raw as it came, else the JSON of
// value (what an Of function was given), else null.
func kitgenUnionJSON(raw json.RawMessage, value any) ([]byte, error) {
	if raw != nil {
		return raw, nil
	}
	if value != nil {
		return kit.MarshalJSON(value)
	}
	return []byte("null"), nil
}

// kitgenUnionAs decodes a union's JSON (see kitgenUnionJSON) into x, a
// pointer to one of its variants.
func kitgenUnionAs(raw json.RawMessage, value any, x any) error {
	b, err := kitgenUnionJSON(raw, value)
	if err != nil {
		return err
	}
	return kit.UnmarshalJSON(b, x)
}
`)
	return name
}
