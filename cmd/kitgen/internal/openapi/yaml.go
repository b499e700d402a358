package openapi

import (
	"iter"
	"strings"

	"go.yaml.in/yaml/v3"
)

// get returns the value of key in the mapping n, or nil.
func get(n *yaml.Node, key string) *yaml.Node {
	_, v := entry(n, key)
	return v
}

// entry returns the key and value nodes of key in the mapping n, or nils.
func entry(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// pairs yields the keys and values of the mapping n in document order.
func pairs(n *yaml.Node) iter.Seq2[*yaml.Node, *yaml.Node] {
	return func(yield func(*yaml.Node, *yaml.Node) bool) {
		if n == nil || n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !yield(n.Content[i], n.Content[i+1]) {
				return
			}
		}
	}
}

// items returns the elements of the sequence n, or nil.
func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// str returns a scalar's text, or "".
func str(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func boolean(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && n.Value == "true"
}

// value decodes a node into plain Go values (map[string]any, []any,
// string, int, float64, bool, nil); nil when it does not decode.
func value(n *yaml.Node) any {
	if n == nil {
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil
	}
	return v
}

// extensions returns the x- fields of a mapping.
func extensions(n *yaml.Node) map[string]any {
	var out map[string]any
	for k, v := range pairs(n) {
		if strings.HasPrefix(k.Value, "x-") {
			if out == nil {
				out = map[string]any{}
			}
			out[k.Value] = value(v)
		}
	}
	return out
}
