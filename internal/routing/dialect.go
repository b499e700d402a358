package routing

import (
	"fmt"
	"strings"
)

// Dialect is how one side's users write what the rules talk about: kit's
// struct tags or kitgen's directives. The rules are the same; a message
// names a field or a parameter, and a remedy in the user's own words.
type Dialect struct {
	noun      string                     // what is routed: "field", "parameter"
	mark      func(f *Field) string      // how f's mark is written
	queryFix  func(goName string) string // how to send a struct's fields as query parameters instead
	multipart string                     // how to ask for a multipart body
	bodyModel string                     // what a body model is
}

// Tags is kit's dialect: fields of P and their `kit:"..."` tags.
var Tags = &Dialect{
	noun: "field",
	mark: func(f *Field) string {
		switch f.Mark {
		case MarkHeader:
			return "`kit:\"" + f.Name + ",header\"`"
		case MarkQuery:
			return "`kit:\"" + named(f) + ",query\"`"
		case MarkURL:
			return "`kit:\",url\"`"
		case MarkBody:
			return "`kit:\",body\"`"
		}
		return "no tag option"
	},
	queryFix: func(string) string {
		return "embed the struct in P, or tag the field `kit:\",query\"`, to send its fields as query parameters"
	},
	multipart: "declare the endpoint with kit.Multipart()",
	bodyModel: "a field of P that is a struct",
}

// Directives is kitgen's dialect: parameters of declared methods and their
// //kit: directives.
var Directives = &Dialect{
	noun: "parameter",
	mark: func(f *Field) string {
		switch f.Mark {
		case MarkHeader:
			return "//kit:header " + f.Name + ": {" + f.GoName + "}"
		case MarkQuery:
			if f.Named {
				return "//kit:query " + f.Name + ": {" + f.GoName + "}"
			}
			return "//kit:query {" + f.GoName + "}"
		case MarkURL:
			return "//kit:url {" + f.GoName + "}"
		case MarkBody:
			return "//kit:body {" + f.GoName + "}"
		}
		return "no directive"
	},
	queryFix: func(goName string) string {
		return "add //kit:query {" + goName + "} to send its fields as query parameters"
	},
	multipart: "add //kit:option kit.Multipart()",
	bodyModel: "a parameter that is a struct",
}

// named is the name a tag gives f, or "".
func named(f *Field) string {
	if f.Named {
		return f.Name
	}
	return ""
}

// subject names a field or parameter in messages: "field ID", "parameter id".
func (d *Dialect) subject(goName string) string { return d.noun + " " + goName }

// Subject names a field or parameter in messages: "field ID", "parameter id".
func (d *Dialect) Subject(goName string) string { return d.subject(goName) }

// Why some types cannot be sent, for the messages.
const (
	whyBytes     = "a []byte is never sent in the URL; send it as the request body with kit.FileFromBytes, or as a string"
	whyReader    = "an io.Reader has no text form and is not a request body; send a body as a kit.File (kit.FileFromBytes, kit.OpenFile, or a File with an Open function)"
	whyNoText    = "has no text form and is not a request body"
	whyFileSlice = "a []kit.File is sent only as file parts of a Multipart() body model"
	whyNullable  = "a Nullable parameter holds a value with one text form (a string, a number, a bool, a time)"
	whyDeepKeys  = "a map-valued entry is sent as k[key]=v, and its keys must be strings"
)

// TypeProblem says what is wrong with sending a value of type typ for the
// reason why (a Class's Why): "type chan int has no text form ...", "type
// []uint8: a []byte is never ...".
func TypeProblem(typ, why string) string {
	if strings.HasPrefix(why, "has ") {
		return fmt.Sprintf("type %s %s", typ, why)
	}
	return fmt.Sprintf("type %s: %s", typ, why)
}
