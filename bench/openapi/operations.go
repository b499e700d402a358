package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// httpMethods are the keys of a path item that are operations.
var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace", "query"}

// operation is one operation of a document: its path and method.
type operation struct{ path, method string }

// countOperations counts the operations of the document at path (JSON or
// YAML, by its extension): every HTTP method of every path item.
func countOperations(path string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("counting operations: %w", err)
	}
	var doc struct {
		Paths map[string]map[string]any `json:"paths" yaml:"paths"`
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		err = yaml.Unmarshal(data, &doc)
	default:
		err = json.Unmarshal(data, &doc)
	}
	if err != nil {
		return 0, fmt.Errorf("counting the operations of %s: %w", filepath.Base(path), err)
	}
	n := 0
	for _, item := range doc.Paths {
		for _, m := range httpMethods {
			if _, ok := item[m]; ok {
				n++
			}
		}
	}
	return n, nil
}

// subsetDocument is a JSON document's text keeping n of its operations
// (all when n is at least their number), spread evenly over them in the
// order of their paths and methods, so each subset has the document's mix
// of lists, pages and bodies. Everything else (components, servers,
// security) is kept, and a path item keeps its other fields (parameters,
// summary) when it keeps an operation. It returns the number kept.
func subsetDocument(data []byte, n int) ([]byte, int, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, 0, fmt.Errorf("reading the document: %w", err)
	}
	var paths map[string]map[string]json.RawMessage
	if err := json.Unmarshal(doc["paths"], &paths); err != nil {
		return nil, 0, fmt.Errorf("reading the document's paths: %w", err)
	}
	var ops []operation
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		for _, m := range httpMethods {
			if _, ok := paths[p][m]; ok {
				ops = append(ops, operation{p, m})
			}
		}
	}
	keep := map[operation]bool{}
	if n >= len(ops) {
		for _, op := range ops {
			keep[op] = true
		}
	} else {
		for i := range n {
			keep[ops[i*len(ops)/n]] = true
		}
	}
	kept := map[string]map[string]json.RawMessage{}
	for p, item := range paths {
		out := map[string]json.RawMessage{}
		keeps := false
		for k, v := range item {
			if slices.Contains(httpMethods, k) {
				if !keep[operation{p, k}] {
					continue
				}
				keeps = true
			}
			out[k] = v
		}
		if keeps {
			kept[p] = out
		}
	}
	raw, err := json.Marshal(kept)
	if err != nil {
		return nil, 0, fmt.Errorf("writing the paths: %w", err)
	}
	doc["paths"] = raw
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, 0, fmt.Errorf("writing the document: %w", err)
	}
	return b.Bytes(), len(keep), nil
}
