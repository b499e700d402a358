package kit

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzNestedForm encodes any JSON document (decoded into map[string]any,
// []any and scalars) as a nested form body in each style, and parses the
// body back with rackParse, a parser in the manner of Rack's (Rails) and
// PHP's: what comes back is what went in, as a form can say it. The
// encoder never panics, and fails only on values no form can express (a
// key that is empty or holds a bracket, a slice mixing scalars and nested
// values without indexes, nesting past maxFormDepth). Seed corpus:
// testdata/fuzz/FuzzNestedForm.
func FuzzNestedForm(f *testing.F) {
	f.Add(`{"metadata":{"order_id":"6735"},"expand":["customer"],"items":[{"price":"price_1","quantity":2}]}`, byte(2))
	f.Add(`{"a":[1,2.5,true,null,""],"b":{"c":{"d":[["x"],["y","z"]]}}}`, byte(0))
	f.Add(`{"a":[{"k":1},"s"]}`, byte(1))
	f.Add(`{"k&=%+ ":"v&=%+ ","":1}`, byte(0))
	f.Add(`[[[[[[[[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]]]]]]]`, byte(2))
	f.Fuzz(func(t *testing.T, doc string, styleByte byte) {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			return
		}
		style := FormStyle(styleByte % 3)
		model := struct {
			Data any `json:"data"`
		}{v}
		body, err := encodeNestedForm(reflect.ValueOf(model), style)
		want, omitted, why := expectForm(v, style)
		if err != nil {
			known := why != "" && (strings.Contains(err.Error(), "cannot be written in a bracketed form key") ||
				strings.Contains(err.Error(), "holds both scalars and nested values"))
			switch {
			case known:
			case strings.Contains(err.Error(), "nested deeper than") && jsonDepth(v) > maxFormDepth/3:
			default:
				t.Fatalf("%v: encoding %s: %v (expected problem: %q)", style, doc, err, why)
			}
			return
		}
		if why != "" {
			t.Fatalf("%v: %s encoded as %q, want an error about %q", style, doc, body, why)
		}
		got, err := rackParse(string(body))
		if err != nil {
			t.Fatalf("%v: %s encoded as %q, which does not parse: %v", style, doc, body, err)
		}
		wantTree := map[string]any{}
		if !omitted {
			wantTree["data"] = want
		}
		if !reflect.DeepEqual(got, wantTree) {
			t.Fatalf("%v: %s\nencoded as %q\nparses as %#v\nwant       %#v", style, doc, body, got, wantTree)
		}
	})
}

// expectForm is what rackParse should give back for v written in style:
// scalars as their text, maps as maps, slices of scalars as lists (one
// value alone as itself in FormRepeat) or, in FormIndexed, as maps by
// index, slices of nested values as maps by index. omitted is set when v
// sends nothing; why names the problem when v cannot be written.
func expectForm(v any, style FormStyle) (out any, omitted bool, why string) {
	switch x := v.(type) {
	case nil:
		return nil, true, ""
	case string:
		return x, false, ""
	case bool:
		return strconv.FormatBool(x), false, ""
	case float64:
		s, _, _ := formatFloat(x, 64)
		return s, false, ""
	case map[string]any:
		m := map[string]any{}
		for k := range x {
			if k == "" || strings.ContainsAny(k, "[]") {
				return nil, false, "cannot be written in a bracketed form key"
			}
		}
		for k, e := range x {
			o, om, w := expectForm(e, style)
			if w != "" {
				return nil, false, w
			}
			if !om {
				m[k] = o
			}
		}
		return m, len(m) == 0, ""
	case []any:
		scalars, nested := false, false
		for _, e := range x {
			switch e.(type) {
			case nil:
			case map[string]any, []any:
				nested = true
			default:
				scalars = true
			}
		}
		if scalars && nested && style != FormIndexed {
			return nil, false, "holds both scalars and nested values"
		}
		if nested || style == FormIndexed {
			m := map[string]any{}
			for i, e := range x {
				o, om, w := expectForm(e, style)
				if w != "" {
					return nil, false, w
				}
				if !om {
					m[strconv.Itoa(i)] = o
				}
			}
			return m, len(m) == 0, ""
		}
		var list []any
		for _, e := range x {
			if o, om, _ := expectForm(e, style); !om {
				list = append(list, o)
			}
		}
		switch {
		case len(list) == 0:
			return nil, true, ""
		case len(list) == 1 && style == FormRepeat:
			return list[0], false, ""
		}
		return list, false, ""
	}
	panic(fmt.Sprintf("unexpected JSON value %T", v))
}

func jsonDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, jsonDepth(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, jsonDepth(e))
		}
	default:
		return 0
	}
	return d + 1
}

// rackParse parses an application/x-www-form-urlencoded body with nested
// keys as Rack and PHP do: "a[b][c]=v" sets a.b.c, "a[]=v" appends to the
// list a; and, for FormRepeat, a key that repeats collects its values in a
// list. A key that is used both as a value and as a map (or a list) is an
// error.
func rackParse(body string) (map[string]any, error) {
	root := map[string]any{}
	if body == "" {
		return root, nil
	}
	for _, pair := range strings.Split(body, "&") {
		rawK, rawV, _ := strings.Cut(pair, "=")
		k, err := url.QueryUnescape(rawK)
		if err != nil {
			return nil, err
		}
		v, err := url.QueryUnescape(rawV)
		if err != nil {
			return nil, err
		}
		path, err := splitFormKey(k)
		if err != nil {
			return nil, err
		}
		if err := rackInsert(root, path, v); err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
	}
	return root, nil
}

func splitFormKey(k string) ([]string, error) {
	i := strings.IndexByte(k, '[')
	if i < 0 {
		return []string{k}, nil
	}
	path := []string{k[:i]}
	rest := k[i:]
	for rest != "" {
		j := strings.IndexByte(rest, ']')
		if rest[0] != '[' || j < 0 {
			return nil, fmt.Errorf("malformed key %q", k)
		}
		path = append(path, rest[1:j])
		rest = rest[j+1:]
	}
	return path, nil
}

var errShape = errors.New("used both as a value and as a map or list")

func rackInsert(m map[string]any, path []string, v string) error {
	key := path[0]
	switch {
	case len(path) == 1:
		switch e := m[key].(type) {
		case nil:
			m[key] = v
		case string:
			m[key] = []any{e, v}
		case []any:
			m[key] = append(e, v)
		default:
			return errShape
		}
		return nil
	case path[1] == "":
		if len(path) != 2 {
			return errors.New("a list of nested values ([][...]) is not written by kit")
		}
		switch e := m[key].(type) {
		case nil:
			m[key] = []any{v}
		case []any:
			m[key] = append(e, v)
		default:
			return errShape
		}
		return nil
	}
	child, ok := m[key].(map[string]any)
	if !ok {
		if m[key] != nil {
			return errShape
		}
		child = map[string]any{}
		m[key] = child
	}
	return rackInsert(child, path[1:], v)
}
