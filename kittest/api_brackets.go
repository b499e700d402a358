package kittest

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// brackets is ANY /brackets: it reads the query, and a form body
// (application/x-www-form-urlencoded) when the request has one, in the
// bracket convention as Rails (Rack), PHP and Stripe read it, and answers
// 200 with what it read as JSON: {"query":{...},"form":{...}} ("form" is
// null without a form body). a[k]=v is {"a":{"k":"v"}}, a[]=v appends to
// a list, an object whose keys are the indexes 0, 1, ... is a list
// (a[0][b]=x is {"a":[{"b":"x"}]}), and of a key sent more than once
// without [] the last value wins, as Rack reads it. A key that is both a
// value and an object (a=1&a[b]=2), a malformed key, or [] before a
// further bracket (a[][b]=x, which the readers do not agree on) is a 400
// naming the key. A client checks with it that its deepObject queries and
// bracket forms read back as it means them.
func (a *API) brackets(w http.ResponseWriter, r *http.Request) {
	query, err := apiReadBrackets(r.URL.RawQuery)
	if err != nil {
		apiBadRequest(w, "query: "+err.Error())
		return
	}
	var form any
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		body, ok := apiReadBody(w, r)
		if !ok {
			return
		}
		if form, err = apiReadBrackets(string(body)); err != nil {
			apiBadRequest(w, "form: "+err.Error())
			return
		}
	}
	apiWriteJSON(w, http.StatusOK, map[string]any{"query": query, "form": form})
}

// bracketError is why a bracketed key cannot be read.
type bracketError struct{ key, why string }

func (e *bracketError) Error() string { return "key " + strconv.Quote(e.key) + ": " + e.why }

// apiReadBrackets reads an urlencoded query or form in the bracket
// convention (see brackets), keys in the order sent.
func apiReadBrackets(raw string) (map[string]any, error) {
	root := map[string]any{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, &bracketError{k, "malformed escape"}
		}
		if v, err = url.QueryUnescape(v); err != nil {
			return nil, &bracketError{key, "malformed escape in its value"}
		}
		name, subs, ok := apiSplitKey(key)
		if !ok {
			return nil, &bracketError{key, "malformed brackets"}
		}
		if err := apiInsertBracket(root, key, append([]string{name}, subs...), v); err != nil {
			return nil, err
		}
	}
	return apiListsFromIndexes(root).(map[string]any), nil
}

// apiInsertBracket sets path (the key's name and bracketed parts) to v in
// node.
func apiInsertBracket(node map[string]any, key string, path []string, v string) error {
	for i, p := range path {
		last := i == len(path)-1
		if p == "" {
			return &bracketError{key, "[] before a further bracket"}
		}
		if len(path) > i+1 && path[i+1] == "" {
			if i+2 != len(path) {
				return &bracketError{key, "[] before a further bracket"}
			}
			list, ok := node[p].([]any)
			if !ok && node[p] != nil {
				return &bracketError{key, "both a list and another value"}
			}
			node[p] = append(list, v)
			return nil
		}
		if last {
			if _, isObj := node[p].(map[string]any); isObj {
				return &bracketError{key, "both a value and an object"}
			}
			if _, isList := node[p].([]any); isList {
				return &bracketError{key, "both a value and a list"}
			}
			node[p] = v // the last value wins
			return nil
		}
		child, ok := node[p].(map[string]any)
		if !ok {
			if node[p] != nil {
				return &bracketError{key, "both a value and an object"}
			}
			child = map[string]any{}
			node[p] = child
		}
		node = child
	}
	return nil
}

// apiListsFromIndexes turns every object whose keys are exactly 0, 1, ...
// n-1 into a list, as PHP and Stripe read indexes.
func apiListsFromIndexes(v any) any {
	switch n := v.(type) {
	case map[string]any:
		for k, e := range n {
			n[k] = apiListsFromIndexes(e)
		}
		if len(n) == 0 {
			return n
		}
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		idx := make([]int, 0, len(keys))
		for _, k := range keys {
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || strconv.Itoa(i) != k {
				return n
			}
			idx = append(idx, i)
		}
		slices.Sort(idx)
		for want, i := range idx {
			if i != want {
				return n
			}
		}
		list := make([]any, len(idx))
		for _, i := range idx {
			list[i] = n[strconv.Itoa(i)]
		}
		return list
	case []any:
		for i, e := range n {
			n[i] = apiListsFromIndexes(e)
		}
	}
	return v
}
