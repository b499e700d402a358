// Package structtag names the fields of a parameter struct the way kit routes
// them: a `kit:"name,opt,opt"` tag wins, else the field name in snake_case.
package structtag

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tag is a parsed `kit:"..."` struct tag.
type Tag struct {
	Name      string // the parameter name; "" when the tag gives none
	Skip      bool   // the tag is exactly "-"
	OmitEmpty bool   // ",omitempty": zero values are not sent
	Header    bool   // ",header": the field is a request header
	Query     bool   // ",query": a struct field's fields are query parameters; with a name, a map or struct in brackets
	Body      bool   // ",body": the field is the JSON request body, whatever its type
	URL       bool   // ",url": the field is the whole URL of the call
	// Join is a list option (",csv", ",ssv", ",pipes", without the
	// comma): the field, a slice or array, is sent as one value, its
	// elements joined by the option's delimiter (see Delimiter).
	Join string
	// JoinAlso is a second, different list option, if any: the tag asks
	// for two delimiters.
	JoinAlso string
	Unknown  string // the first option that is not recognised, if any
}

// Delimiter is what the list option opt (Tag.Join) joins elements with:
// "," (csv), " " (ssv), "|" (pipes), as Swagger 2.0's collectionFormat
// names them; "" for anything else.
func Delimiter(opt string) string {
	switch opt {
	case "csv":
		return ","
	case "ssv":
		return " "
	case "pipes":
		return "|"
	}
	return ""
}

// Parse parses the value of a kit struct tag (what reflect.StructTag.Get("kit")
// returns). Options are comma-separated after the name.
func Parse(tag string) Tag {
	if tag == "-" {
		return Tag{Skip: true}
	}
	name, opts, _ := strings.Cut(tag, ",")
	t := Tag{Name: strings.TrimSpace(name)}
	for opts != "" {
		var opt string
		opt, opts, _ = strings.Cut(opts, ",")
		switch strings.TrimSpace(opt) {
		case "omitempty":
			t.OmitEmpty = true
		case "header":
			t.Header = true
		case "query":
			t.Query = true
		case "url":
			t.URL = true
		case "body":
			t.Body = true
		case "csv", "ssv", "pipes":
			o := strings.TrimSpace(opt)
			switch {
			case t.Join == "":
				t.Join = o
			case t.Join != o && t.JoinAlso == "":
				t.JoinAlso = o
			}
		case "":
		default:
			if t.Unknown == "" {
				t.Unknown = strings.TrimSpace(opt)
			}
		}
	}
	return t
}

// SnakeCase converts a Go identifier to snake_case, keeping initialisms
// together: ID -> id, PerPage -> per_page, UserID -> user_id,
// HTTPServer -> http_server, OAuth2Token -> o_auth2_token.
func SnakeCase(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 4)
	runes := []rune(name)
	for i, r := range runes {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := runes[i-1]
				nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		if r == utf8.RuneError {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
