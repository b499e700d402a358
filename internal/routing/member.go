package routing

import (
	"strconv"

	"github.com/kithttp/kit/internal/structtag"
)

// Member decides whether a field of a parameter struct, as
// reflect.VisibleFields lists it, is routed: not when it is unexported, an
// embedded struct without a kit tag (its fields are promoted and listed
// too) or tagged `kit:"-"`. It returns the field's parsed tag and mark, or
// a problem: an embedded pointer, an unknown tag option, options that
// exclude each other. shape is the field type's.
func Member(exported, embedded bool, shape Shape, kitTag string) (tag structtag.Tag, mark Mark, routed bool, problem string) {
	if !exported || embedded && shape == StructShape && kitTag == "" {
		return tag, Unmarked, false, ""
	}
	if embedded && shape == PointerShape && kitTag == "" {
		return tag, Unmarked, false, "embedded pointers are not supported; embed the struct"
	}
	tag = structtag.Parse(kitTag)
	switch {
	case tag.Skip:
		return tag, Unmarked, false, ""
	case tag.Unknown != "":
		return tag, Unmarked, false, "unknown kit tag option " + strconv.Quote(tag.Unknown)
	case tag.JoinAlso != "":
		return tag, Unmarked, false, "the kit tag options " + tag.Join + " and " + tag.JoinAlso + " exclude each other: a list is joined with one delimiter"
	case tag.Join != "" && (tag.Body || tag.URL):
		return tag, Unmarked, false, "the kit tag option " + tag.Join + " joins a list sent as one query parameter or header; it excludes body and url"
	case tag.Body && (tag.Header || tag.Query || tag.URL):
		return tag, Unmarked, false, "the kit tag option body excludes header, query and url"
	case tag.Header && (tag.Query || tag.URL) || tag.Query && tag.URL:
		return tag, Unmarked, false, "the kit tag options header, query and url exclude each other"
	case tag.Body:
		mark = MarkBody
	case tag.Header:
		mark = MarkHeader
	case tag.Query:
		mark = MarkQuery
	case tag.URL:
		mark = MarkURL
	}
	return tag, mark, true, ""
}

// WireName is the name a field is sent under: its tag's name, else its Go
// name in snake_case.
func WireName(tag structtag.Tag, goName string) string {
	if tag.Name != "" {
		return tag.Name
	}
	return structtag.SnakeCase(goName)
}
