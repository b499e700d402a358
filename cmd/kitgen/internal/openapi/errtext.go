package openapi

import (
	"fmt"
	"strings"
)

// errorMembers are the members of an error model whose values make its
// Error text, in the order they are written: a status, a code, then what
// a person reads. A member named "error" that is an object (OpenAI's
// {"error": {"message": ...}}) is looked into for the same members.
var errorMembers = []string{
	"status", "status_code", "statusCode",
	"code", "error_code", "errorCode", "type",
	"title", "message", "msg", "error", "error_description", "detail", "details", "description",
}

// errorMethod returns the Error method of the error model name, whose
// fields are fs: its status, code and message members on one line,
// joined with ": ", each one's spaces and line breaks made one space; the
// type's name when none of them is set. Its text is the server's, never
// JSON.
func (t *typer) errorMethod(name string, fs []field) string {
	var used []string
	body := t.errorParts("e.", fs, 0, &used)
	var b strings.Builder
	if len(used) == 0 {
		fmt.Fprintf(&b, "\n// Error returns the type's name, the document naming no status, code or\n// message member. A *%s is an error errors.As finds in what a call\n// returns.\nfunc (e *%s) Error() string {\n\treturn %q\n}\n", name, name, name)
		return b.String()
	}
	t.imports["strings"] = true
	b.WriteString("\n")
	for _, l := range wrap76(fmt.Sprintf("Error returns the error on one line: its %s, those set, joined with \": \" (%q when none is). A *%s is an error errors.As finds in what a call returns.", strings.Join(used, ", "), name, name)) {
		fmt.Fprintf(&b, "// %s\n", l)
	}
	fmt.Fprintf(&b, "func (e *%s) Error() string {\n\tvar parts []string\n\tadd := func(s string) {\n\t\tif s = strings.Join(strings.Fields(s), \" \"); s != \"\" {\n\t\t\tparts = append(parts, s)\n\t\t}\n\t}\n", name)
	b.WriteString(body)
	fmt.Fprintf(&b, "\tif len(parts) == 0 {\n\t\treturn %q\n\t}\n\treturn strings.Join(parts, \": \")\n}\n", name)
	return b.String()
}

// errorParts writes the statements that add the members of errorMembers
// fs has, read at prefix (e. or e.Error.), to parts; used gets their wire
// names.
func (t *typer) errorParts(prefix string, fs []field, depth int, used *[]string) string {
	var b strings.Builder
	for _, wire := range errorMembers {
		for _, f := range fs {
			if f.wire != wire {
				continue
			}
			x := prefix + f.name
			typ := f.typ
			ptr := strings.HasPrefix(typ, "*")
			elem := strings.TrimPrefix(typ, "*")
			val := x
			if ptr {
				val = "*" + x
			}
			var stmt string
			switch {
			case elem == "string" || t.enums[elem]:
				stmt = fmt.Sprintf("add(string(%s))", val)
			case elem == "int64" || elem == "int32" || elem == "float64":
				t.imports["fmt"] = true
				stmt = fmt.Sprintf("if %s != 0 {\n\t\tadd(fmt.Sprint(%s))\n\t}", val, val)
			case elem == "kit.Nullable[string]":
				stmt = fmt.Sprintf("if s, ok := %s.Get(); ok {\n\t\tadd(s)\n\t}", x)
			case t.structs[elem] && t.fieldsOf[elem] != nil && depth == 0 && wire == "error":
				var inner []string
				sub := t.errorParts(x+".", t.fieldsOf[elem], depth+1, &inner)
				if sub == "" {
					continue
				}
				for _, in := range inner {
					*used = append(*used, wire+"."+in)
				}
				if ptr {
					fmt.Fprintf(&b, "\tif %s != nil {\n%s\t}\n", x, indent(sub))
				} else {
					b.WriteString(sub)
				}
				continue
			default:
				continue
			}
			*used = append(*used, wire)
			if ptr {
				stmt = fmt.Sprintf("if %s != nil {\n\t\t%s\n\t}", x, strings.ReplaceAll(stmt, "\n", "\n\t"))
			}
			fmt.Fprintf(&b, "\t%s\n", stmt)
		}
	}
	return b.String()
}

// indent puts one more tab before each line of s.
func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "\t" + l
		}
	}
	return strings.Join(lines, "")
}
