package kit

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/kithttp/kit/internal/routing"
)

// Private implementation past this point.
//
// query_join.go sends a list as one value: a slice or array field tagged
// with a list option (`kit:"tags,csv"`, `ssv`, `pipes`: Swagger 2.0's
// collectionFormat words; OpenAPI 3's style form, spaceDelimited and
// pipeDelimited with explode false) is one query parameter, or one header,
// its elements formatted as one query value each and joined by the
// option's delimiter. The option is parsed once, with the declaration
// (paramField.join).
//
// Neither OpenAPI nor the servers define an escape for a delimiter inside
// an element: an element is written as it is (OData's nested
// `$expand=members($select=id,name)` relies on that), and the whole value
// is then escaped as any query value is.

// routeJoined routes the list v (of class c, a routing.Slice) as one value,
// its elements joined with sep, to the query (rt is routing.Query) or a
// header (routing.Header). A nil or empty list, or one whose elements are
// all nil, sends nothing.
func routeJoined(r *routed, rt routing.Route, name string, v reflect.Value, c *typeClass, sep string) error {
	s, ok, err := joinList(v, c, sep)
	if err != nil || !ok {
		return err
	}
	if rt == routing.Header {
		if r.header == nil {
			r.header = make(http.Header)
		}
		r.header.Add(name, s)
		return nil
	}
	r.addQuery(name, s)
	return nil
}

// joinList joins the text of the elements of v with sep; a nil element (a
// nil pointer or interface) is left out, as it is from a repeated list. ok
// is false when there is no element to send. A list of up to 8 elements
// allocates only the joined text (and the text of elements that are not
// strings).
func joinList(v reflect.Value, c *typeClass, sep string) (s string, ok bool, err error) {
	if v.Kind() == reflect.Slice && v.IsNil() {
		return "", false, nil
	}
	var stack [8]string
	parts := stack[:0]
	for i := range v.Len() {
		e, eok, err := c.elem(v.Index(i))
		if err != nil {
			return "", false, fmt.Errorf("element %d: %w", i, err)
		}
		if eok {
			parts = append(parts, e)
		}
	}
	switch len(parts) {
	case 0:
		return "", false, nil
	case 1:
		return parts[0], true, nil
	}
	return strings.Join(parts, sep), true, nil
}
