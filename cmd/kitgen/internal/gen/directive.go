package gen

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"strings"

	"github.com/kithttp/kit/internal/httpsyntax"
	"github.com/kithttp/kit/internal/routing"
	"github.com/kithttp/kit/internal/structtag"
)

// A Directive is one parsed //kit: comment line. Which fields are set depends
// on the verb:
//
//	client                  (none)
//	get|post|put|patch|delete  Path, NoAuth
//	resource                Path
//	header                  Name and either Param ({p}) or Value (a literal)
//	query                   Param, and Name when renaming (empty: spread; a map or struct with a Name: Name[key]=v); Join after it (name,csv:)
//	omitempty               Params
//	option                  Expr
//	poll                    Expr
//	url                     Param
//	body                    Param
type Directive struct {
	Verb   string
	Path   Arg
	NoAuth bool
	Name   Arg
	Param  Arg
	Value  Arg
	Params []Arg
	Expr   Arg
	// Join is a list option after a query name (//kit:query ids,csv:
	// {ids}): csv, ssv or pipes, as in a kit tag; "" when there is none.
	Join string
	Off  int // byte offset of the first argument (of the verb when there is none)
}

// An Arg is a directive argument and its byte offset in the comment text.
type Arg struct {
	Text string
	Off  int
}

// A DirectiveError is a malformed directive; Off is the byte offset in the
// comment text that the message is about.
type DirectiveError struct {
	Off int
	Msg string
}

func (e *DirectiveError) Error() string { return e.Msg }

// verbs are the directive verbs, in the order they are listed in messages.
var verbs = []string{"client", "get", "post", "put", "patch", "delete", "header", "query", "omitempty", "option", "poll", "resource", "url", "body"}

// httpVerbs are the verbs that declare an endpoint.
var httpVerbs = map[string]string{"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE"}

func isVerb(s string) bool {
	for _, v := range verbs {
		if v == s {
			return true
		}
	}
	return false
}

// ParseDirective parses the text of one // comment (with its slashes). ok is
// false when the comment is not meant as a directive: it neither starts with
// "//kit:" nor is "// kit:" followed by a known verb (prose such as
// "// kit: the library" is left alone). A comment meant as a directive that
// is malformed gives a *DirectiveError.
func ParseDirective(text string) (d Directive, ok bool, err error) {
	if !strings.HasPrefix(text, "//") {
		return Directive{}, false, nil
	}
	if !strings.HasPrefix(text, "//kit:") {
		rest := strings.TrimLeft(text[2:], " \t")
		if len(rest) == len(text)-2 || !strings.HasPrefix(rest, "kit:") {
			return Directive{}, false, nil
		}
		verb, _ := cutSpace(rest[len("kit:"):])
		if !isVerb(verb) {
			return Directive{}, false, nil
		}
		return Directive{}, true, &DirectiveError{Off: 2, Msg: fmt.Sprintf("write //kit:%s with no space after the slashes: a directive is a //kit: line", verb)}
	}
	const start = len("//kit:")
	verb, rest := cutSpace(text[start:])
	d = Directive{Verb: verb, Off: start}
	restOff := start + len(verb)
	if !isVerb(verb) {
		return Directive{}, true, &DirectiveError{Off: start, Msg: fmt.Sprintf("unknown directive //kit:%s; want one of %s", verb, strings.Join(verbs, ", "))}
	}
	args := fields(rest, restOff)
	if len(args) > 0 {
		d.Off = args[0].Off
	}
	errorf := func(off int, format string, a ...any) (Directive, bool, error) {
		return Directive{}, true, &DirectiveError{Off: off, Msg: fmt.Sprintf(format, a...)}
	}
	switch verb {
	case "client":
		if len(args) > 0 {
			return errorf(args[0].Off, "//kit:client takes no arguments")
		}
	case "get", "post", "put", "patch", "delete", "resource":
		if len(args) == 0 {
			return errorf(d.Off, "//kit:%s needs a path", verb)
		}
		d.Path = args[0]
		extra := args[1:]
		if verb != "resource" && len(extra) > 0 && extra[0].Text == "noauth" {
			d.NoAuth = true
			extra = extra[1:]
		}
		if len(extra) > 0 {
			if verb == "resource" {
				return errorf(extra[0].Off, "//kit:resource takes one path, not %q", extra[0].Text)
			}
			return errorf(extra[0].Off, "unexpected %q after the path; the only flag is noauth", extra[0].Text)
		}
	case "header":
		name, value, err := nameValue(rest, restOff, "//kit:header Name: {param} or //kit:header Name: value")
		if err != nil {
			return Directive{}, true, err
		}
		if err := routing.HeaderName(name.Text); err != nil {
			return errorf(name.Off, "%v", err)
		}
		d.Name, d.Off = name, name.Off
		if strings.HasPrefix(value.Text, "{") && strings.HasSuffix(value.Text, "}") {
			p, err := paramRef(value)
			if err != nil {
				return Directive{}, true, err
			}
			d.Param = p
			break
		}
		if i := httpsyntax.IndexControl(value.Text); i >= 0 {
			return errorf(value.Off+i, "header value has a control character")
		}
		d.Value = value
	case "query":
		if len(args) == 0 {
			return errorf(d.Off, "want //kit:query {param} or //kit:query name: {param}")
		}
		if strings.HasPrefix(args[0].Text, "{") {
			if len(args) > 1 {
				return errorf(args[1].Off, "unexpected %q after //kit:query %s", args[1].Text, args[0].Text)
			}
			p, err := paramRef(args[0])
			if err != nil {
				return Directive{}, true, err
			}
			d.Param = p
			break
		}
		name, value, err := nameValue(rest, restOff, "//kit:query {param} or //kit:query name: {param}")
		if err != nil {
			return Directive{}, true, err
		}
		if n, opt, ok := strings.Cut(name.Text, ","); ok && structtag.Delimiter(opt) != "" {
			name.Text, d.Join = n, opt
		}
		switch {
		case strings.ContainsAny(name.Text, " \t"):
			return errorf(name.Off, "query name %q has a space", name.Text)
		case strings.Contains(name.Text, ","), name.Text == "-", name.Text == "":
			return errorf(name.Off, "query name %q cannot be written in a kit tag (after a comma: csv, ssv or pipes, a list sent as one value)", name.Text)
		}
		if !strings.HasPrefix(value.Text, "{") {
			return errorf(value.Off, "//kit:query %s: takes a {param}; write a constant as ?%s=%s in the path", name.Text, name.Text, value.Text)
		}
		p, err := paramRef(value)
		if err != nil {
			return Directive{}, true, err
		}
		d.Name, d.Param, d.Off = name, p, name.Off
	case "omitempty":
		if len(args) == 0 {
			return errorf(d.Off, "//kit:omitempty needs parameter names")
		}
		for _, a := range args {
			if !token.IsIdentifier(a.Text) {
				return errorf(a.Off, "%q is not a parameter name", a.Text)
			}
		}
		d.Params = args
	case "option", "poll":
		expr := trimArg(rest, restOff)
		if expr.Text == "" {
			return errorf(d.Off, "//kit:%s needs a Go expression", verb)
		}
		if i := commentIndex(expr.Text); i >= 0 {
			return errorf(expr.Off+i, "//kit:%s: a comment cannot follow the expression", verb)
		}
		if _, err := parser.ParseExpr(expr.Text); err != nil {
			off := expr.Off
			if el, ok := err.(scanner.ErrorList); ok && len(el) > 0 && el[0].Pos.Column > 0 {
				off += min(el[0].Pos.Column-1, len(expr.Text))
				return errorf(off, "//kit:%s: %s", verb, el[0].Msg)
			}
			return errorf(off, "//kit:%s: %v", verb, err)
		}
		d.Expr = expr
	case "url", "body":
		if len(args) != 1 {
			off := d.Off
			if len(args) > 1 {
				off = args[1].Off
			}
			return errorf(off, "want //kit:%s {param}", verb)
		}
		p, err := paramRef(args[0])
		if err != nil {
			return Directive{}, true, err
		}
		d.Param = p
	}
	return d, true, nil
}

// String prints the directive in its canonical form; ParseDirective reads it
// back as the same directive.
func (d Directive) String() string {
	var b strings.Builder
	b.WriteString("//kit:")
	b.WriteString(d.Verb)
	switch d.Verb {
	case "get", "post", "put", "patch", "delete", "resource":
		b.WriteString(" " + d.Path.Text)
		if d.NoAuth {
			b.WriteString(" noauth")
		}
	case "header":
		b.WriteString(" " + d.Name.Text + ": ")
		if d.Param.Text != "" {
			b.WriteString("{" + d.Param.Text + "}")
		} else {
			b.WriteString(d.Value.Text)
		}
	case "query":
		if d.Name.Text != "" {
			b.WriteString(" " + d.Name.Text)
			if d.Join != "" {
				b.WriteString("," + d.Join)
			}
			b.WriteString(":")
		}
		b.WriteString(" {" + d.Param.Text + "}")
	case "url", "body":
		b.WriteString(" {" + d.Param.Text + "}")
	case "omitempty":
		for _, p := range d.Params {
			b.WriteString(" " + p.Text)
		}
	case "option", "poll":
		b.WriteString(" " + d.Expr.Text)
	}
	return b.String()
}

// isSpace reports whether c separates directive arguments.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// cutSpace splits s at its first space: the word before it and the rest.
func cutSpace(s string) (word, rest string) {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// fields splits s at spaces; off is the offset of s in the comment text.
func fields(s string, off int) []Arg {
	var out []Arg
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		out = append(out, Arg{Text: s[i:j], Off: off + i})
		i = j
	}
	return out
}

// trimArg trims spaces around s, keeping track of its offset.
func trimArg(s string, off int) Arg {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return Arg{Text: s[i:j], Off: off + i}
}

// nameValue splits "Name: value" (both trimmed).
func nameValue(s string, off int, want string) (name, value Arg, err error) {
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		a := trimArg(s, off)
		return Arg{}, Arg{}, &DirectiveError{Off: a.Off, Msg: "want " + want}
	}
	name = trimArg(s[:colon], off)
	value = trimArg(s[colon+1:], off+colon+1)
	if name.Text == "" {
		return Arg{}, Arg{}, &DirectiveError{Off: name.Off, Msg: "missing name before ':'; want " + want}
	}
	if value.Text == "" {
		return Arg{}, Arg{}, &DirectiveError{Off: value.Off, Msg: fmt.Sprintf("missing value after %q; want %s", name.Text+":", want)}
	}
	return name, value, nil
}

// paramRef reads "{name}" as the parameter name.
func paramRef(a Arg) (Arg, error) {
	t := a.Text
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return Arg{}, &DirectiveError{Off: a.Off, Msg: fmt.Sprintf("want {param}, not %q", t)}
	}
	name := t[1 : len(t)-1]
	if !token.IsIdentifier(name) {
		return Arg{}, &DirectiveError{Off: a.Off + 1, Msg: fmt.Sprintf("{%s}: %q is not a parameter name", name, name)}
	}
	return Arg{Text: name, Off: a.Off + 1}, nil
}

// commentIndex returns the offset of the first Go comment in the
// expression src, or -1.
func commentIndex(src string) int {
	var s scanner.Scanner
	fset := token.NewFileSet()
	f := fset.AddFile("", -1, len(src))
	s.Init(f, []byte(src), func(token.Position, string) {}, scanner.ScanComments)
	for {
		pos, tok, _ := s.Scan()
		switch tok {
		case token.EOF:
			return -1
		case token.COMMENT:
			return f.Offset(pos)
		}
	}
}
