package kit

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/kithttp/kit/internal/routing"
)

// Private implementation past this point.
//
// query.go is kit's one query encoder: the parameters a call routes to the
// query (by name, entry by entry from a map, in brackets under a name:
// OpenAPI's deepObject), how they are merged with the base URL's and the
// path's static query, and how they are written. A bracketed value is
// planned and written by the form planner (form.go), as a form body's
// nested values are.

// addQuery adds the query parameter name=value.
func (r *routed) addQuery(name, value string) {
	if r.query == nil && !r.has1 {
		r.query1, r.has1 = [2]string{name, value}, true
		return
	}
	r.queryValues().Add(name, value)
}

// queryOrNil is queryValues, or nil when there is no parameter.
func (r *routed) queryOrNil() url.Values {
	if r.has1 {
		return r.queryValues()
	}
	return r.query
}

// queryValues is the call's query parameters, made into url.Values (and
// kept so) on the first use; never nil.
func (r *routed) queryValues() url.Values {
	if r.query == nil {
		r.query = make(url.Values)
	}
	if r.has1 {
		// Added first: it comes first among the values of its name.
		r.query[r.query1[0]] = append([]string{r.query1[1]}, r.query[r.query1[0]]...)
		r.query1, r.has1 = [2]string{}, false
	}
	return r.query
}

// addMapQuery adds each map entry as a query parameter. When fillPath is
// set (P itself is a map), entries named like a placeholder fill the path.
func addMapQuery(r *routed, v reflect.Value, c *typeClass, fillPath bool) error {
	if v.IsNil() {
		return nil
	}
	iter := v.MapRange()
	for iter.Next() {
		k, ok, err := c.mapKey(iter.Key())
		if err != nil {
			return fmt.Errorf("map key: %w", err)
		}
		if !ok {
			continue
		}
		val := iter.Value()
		if isDeepQueryValue(val, c.mapValue) {
			if err := writeDeepQuery(r.queryValues(), k, val); err != nil {
				return fmt.Errorf("map entry %q: %w", k, err)
			}
			continue
		}
		if fillPath && slices.Index(r.names, k) >= 0 {
			s, ok, err := formatForPath(val, c.mapValue)
			if err != nil {
				return fmt.Errorf("map entry %q: %w", k, err)
			}
			if ok {
				r.fill(k, s)
			}
			continue
		}
		err = addText(val, c.mapValue, func(s string) { r.addQuery(k, s) })
		if err != nil {
			return fmt.Errorf("map entry %q: %w", k, err)
		}
	}
	return nil
}

func formatForPath(v reflect.Value, c *typeClass) (string, bool, error) {
	switch c.Kind {
	case routing.Interface:
		return formatDynamic(v)
	case routing.Slice: // url.Values: one value fills a placeholder
		if v.Len() != 1 {
			return "", false, fmt.Errorf("fills a path placeholder but has %d values, want 1", v.Len())
		}
		return c.elem(v.Index(0))
	}
	if c.format == nil {
		return "", false, errors.New("fills a path placeholder but has no single text form")
	}
	return c.format(v)
}

// queryFrom routes a query given as any (nil, a map, url.Values, or a
// struct routed with the query rules) into a fresh url.Values. The caller's
// value is never modified.
func queryFrom(query any) (url.Values, error) {
	switch q := query.(type) {
	case nil:
		return url.Values{}, nil
	case url.Values:
		out := make(url.Values, len(q))
		for k, vs := range q {
			out[k] = append([]string(nil), vs...)
		}
		return out, nil
	case map[string]string:
		out := make(url.Values, len(q))
		for k, v := range q {
			out.Set(k, v)
		}
		return out, nil
	}
	v := reflect.ValueOf(query)
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return url.Values{}, nil
		}
		v = v.Elem()
	}
	pl, err := queryPlan(v.Type())
	if err != nil {
		return nil, err
	}
	var r routed
	if err := pl.apply(v, &r); err != nil {
		return nil, err
	}
	if r.body.IsValid() || r.file != nil || r.target != nil || r.header != nil {
		return nil, fmt.Errorf("query of type %T routes fields to a body, headers or the URL; a query has only parameters", query)
	}
	return r.queryValues(), nil
}

var queryPlans sync.Map // reflect.Type -> *paramPlan or error

func queryPlan(t reflect.Type) (*paramPlan, error) {
	if p, ok := queryPlans.Load(t); ok {
		if err, isErr := p.(error); isErr {
			return nil, err
		}
		return p.(*paramPlan), nil
	}
	pl, err := newParamPlan(t, nil)
	if err != nil {
		err = fmt.Errorf("kit: query of type %s: %w", t, err)
		queryPlans.Store(t, err)
		return nil, err
	}
	queryPlans.Store(t, pl)
	return pl, nil
}

// writeQuery writes "?" and the query of a call (the base URL's query, the
// path's static, the call's own r.query), when it has one.
func writeQuery(b *strings.Builder, base, static url.Values, r *routed) {
	if r.has1 && r.query == nil && len(base) == 0 && len(static) == 0 {
		// One parameter: what url.Values.Encode would write of it.
		b.WriteByte('?')
		b.WriteString(url.QueryEscape(r.query1[0]))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(r.query1[1]))
		return
	}
	if q := mergeQuery(base, static, r.queryOrNil()); len(q) > 0 {
		b.WriteByte('?')
		encodeQuery(b, q)
	}
}

// encodeQuery writes q to b as url.Values.Encode does (keys sorted, each
// key's values in order), without its allocations.
func encodeQuery(b *strings.Builder, q url.Values) {
	var stack [16]string
	keys := stack[:0]
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	start := b.Len()
	for _, k := range keys {
		ke := url.QueryEscape(k)
		for _, v := range q[k] {
			if b.Len() > start {
				b.WriteByte('&')
			}
			b.WriteString(ke)
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(v))
		}
	}
}

// mergeQuery combines the base URL's query, the path's static query and the
// call's parameters (which come last for each key). It returns routed itself
// when there is nothing to merge.
func mergeQuery(base, static, routed url.Values) url.Values {
	if len(base) == 0 && len(static) == 0 {
		return routed
	}
	out := make(url.Values, len(base)+len(static)+len(routed))
	for _, src := range []url.Values{base, static, routed} {
		for k, vs := range src {
			out[k] = append(out[k], vs...)
		}
	}
	return out
}

// isDeepQueryValue reports whether v, an entry of a map spread into the
// query (whose values are of class c), is itself a map or a data model: it
// is then sent as key[k]=v (OpenAPI's deepObject), nested as a form is.
func isDeepQueryValue(v reflect.Value, c *typeClass) bool {
	switch c.Kind {
	case routing.Map:
		return true
	case routing.Interface:
		for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return false
			}
			v = v.Elem()
		}
		return v.Kind() == reflect.Map || isModelType(v.Type())
	}
	return false
}

// writeDeepQuery adds v at key to the query q in the bracket convention:
// key[k]=v, nested to any depth, slices repeating their key.
func writeDeepQuery(q url.Values, key string, v reflect.Value) error {
	n, err := formNodeFor(v.Type())
	if err != nil {
		return err
	}
	w := formWriter{style: FormRepeat, values: q}
	return w.write(key, v, n, 0)
}
