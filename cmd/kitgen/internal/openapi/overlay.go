package openapi

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// An Overlay (OpenAPI Overlay 1.0) is a list of actions applied to the
// document, in order, before it is read: each selects nodes with a
// JSONPath target and merges its update into them (an object's
// properties recursively, anything else replaced; an entry appended to
// an array) or removes them. A target that selects nothing changes
// nothing, as the specification allows; kitgen notes it, since it is
// usually a typo or an overlay written for another version of the
// document.

// applyOverlay reads the overlay document at path and applies its actions
// to root, the document named name. The nodes it adds take the position
// of the node they are merged into.
func applyOverlay(path string, root *yaml.Node) ([]Note, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, wrap(err, "read overlay")
	}
	ov, err := parseDocument(path, data)
	if err != nil {
		return nil, err
	}
	at := node{path, ov}
	v := get(ov, "overlay")
	if v == nil {
		return nil, at.errorf("not an Overlay document: no overlay field at the top")
	}
	if !strings.HasPrefix(v.Value, "1.") {
		return nil, node{path, v}.errorf("Overlay %s: only version 1 is read", v.Value)
	}
	actions := get(ov, "actions")
	if actions == nil || actions.Kind != yaml.SequenceNode {
		return nil, at.errorf("overlay: actions: want a list")
	}
	var notes []Note
	for i, a := range actions.Content {
		an := node{path, a}
		if a.Kind != yaml.MappingNode {
			return nil, an.errorf("overlay action %d: want a mapping", i+1)
		}
		if get(a, "copy") != nil {
			return nil, an.errorf("overlay action %d: copy (Overlay 1.1) is not supported", i+1)
		}
		tk, tv := entry(a, "target")
		if tv == nil || tv.Kind != yaml.ScalarNode {
			return nil, an.errorf("overlay action %d: no target", i+1)
		}
		tn := node{path, tv}
		sel, err := parseJSONPath(tv.Value)
		if err != nil {
			return nil, tn.errorf("overlay action %d: target %s: %v", i+1, strconv.Quote(tv.Value), err)
		}
		matches := sel.apply(root)
		if len(matches) == 0 {
			notes = append(notes, Note{Pos: node{path, tk}.pos(), Msg: fmt.Sprintf("overlay action %d: target %s selects nothing: the action changes nothing", i+1, tv.Value)})
			continue
		}
		remove := boolean(get(a, "remove"))
		update := get(a, "update")
		for _, m := range matches {
			if m.n.Kind != yaml.MappingNode && m.n.Kind != yaml.SequenceNode {
				return nil, tn.errorf("overlay action %d: target %s selects a %s, not an object or an array", i+1, tv.Value, kindName(m.n))
			}
			switch {
			case remove:
				if m.parent == nil {
					return nil, tn.errorf("overlay action %d: target %s: the document itself cannot be removed", i+1, tv.Value)
				}
				removeChild(m.parent, m.n)
			case update == nil:
			case m.n.Kind == yaml.SequenceNode:
				m.n.Content = append(m.n.Content, clonePos(update, m.n))
			case update.Kind != yaml.MappingNode:
				return nil, node{path, update}.errorf("overlay action %d: target %s selects an object: the update must be one", i+1, tv.Value)
			default:
				merge(m.n, update)
			}
		}
	}
	return notes, nil
}

func kindName(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!null" {
			return "null"
		}
		return "value (" + n.Value + ")"
	}
	return "node"
}

// merge merges the mapping update into the mapping into: an object's
// properties recursively, any other value replaced.
func merge(into, update *yaml.Node) {
	for k, v := range pairs(update) {
		_, cur := entry(into, k.Value)
		switch {
		case cur != nil && cur.Kind == yaml.MappingNode && v.Kind == yaml.MappingNode:
			merge(cur, v)
		case cur != nil:
			replaceValue(into, k.Value, clonePos(v, cur))
		default:
			into.Content = append(into.Content, clonePos(k, into), clonePos(v, into))
		}
	}
}

func replaceValue(m *yaml.Node, key string, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = v
			return
		}
	}
}

// removeChild removes n from the mapping or sequence parent.
func removeChild(parent, n *yaml.Node) {
	for i, c := range parent.Content {
		if c != n {
			continue
		}
		if parent.Kind == yaml.MappingNode && i%2 == 1 {
			parent.Content = slices.Delete(parent.Content, i-1, i+1)
		} else if parent.Kind == yaml.SequenceNode {
			parent.Content = slices.Delete(parent.Content, i, i+1)
		}
		return
	}
}

// clonePos copies n deeply, each copy at at's position: the overlay's
// nodes become the document's, where they are merged.
func clonePos(n, at *yaml.Node) *yaml.Node {
	c := *n
	c.Line, c.Column = at.Line, at.Column
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = clonePos(ch, at)
	}
	if n.Alias != nil {
		c.Alias = clonePos(n.Alias, at)
	}
	return &c
}

// A JSONPath is the subset of RFC 9535 that overlays use: the root $,
// child names (.name, ['name'], ["name"]), wildcards (.*, [*]), indexes
// ([0], [-1]), recursive descent (..name, ..*, ..[...]) and filters
// ([?@.a.b == 'x'], [?(@.a != "x")], [?@.a], [?!@.a], joined with && and
// ||) comparing a value with a string, a number, true, false or null.
type jsonPath []pathStep

type pathStep struct {
	desc     bool     // recursive descent: this node and every descendant
	wildcard bool     // every child
	names    []string // children with these names
	index    *int     // the element at this index
	filter   [][]cond // children that match any of these conjunctions
}

// cond is one test of a filter: @'s value at path exists (op ""), or
// equals or not (op == or !=) value.
type cond struct {
	path  []string
	op    string
	value string
	not   bool
}

type match struct{ parent, n *yaml.Node }

func parseJSONPath(s string) (jsonPath, error) {
	p := &pathParser{s: s}
	if !p.eat("$") {
		return nil, fmt.Errorf("does not start with $")
	}
	var path jsonPath
	for p.i < len(p.s) {
		var st pathStep
		switch {
		case p.eat(".."):
			st.desc = true
			if p.peek() == '[' {
				break
			}
			fallthrough
		case p.eat("."):
			if p.eat("*") {
				st.wildcard = true
			} else {
				name := p.name()
				if name == "" {
					return nil, fmt.Errorf("a name is missing at %d", p.i+1)
				}
				st.names = []string{name}
			}
			path = append(path, st)
			continue
		case p.peek() == '[':
		default:
			return nil, fmt.Errorf("unexpected %q at %d", p.s[p.i], p.i+1)
		}
		if err := p.bracket(&st); err != nil {
			return nil, err
		}
		path = append(path, st)
	}
	return path, nil
}

type pathParser struct {
	s string
	i int
}

func (p *pathParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pathParser) eat(t string) bool {
	if strings.HasPrefix(p.s[p.i:], t) {
		p.i += len(t)
		return true
	}
	return false
}

func (p *pathParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// name reads a member name of dot notation: letters, digits, _, - and
// any non-ASCII character (overlays write x-extensions this way).
func (p *pathParser) name() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '-' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// quoted reads a string in single or double quotes, with \ escapes.
func (p *pathParser) quoted() (string, error) {
	q := p.peek()
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\' && p.i+1 < len(p.s):
			p.i++
			switch e := p.s[p.i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
		p.i++
	}
	return "", fmt.Errorf("a string is not closed")
}

func (p *pathParser) bracket(st *pathStep) error {
	p.i++ // [
	p.space()
	switch c := p.peek(); {
	case c == '*':
		p.i++
		st.wildcard = true
	case c == '?':
		p.i++
		p.space()
		paren := p.eat("(")
		f, err := p.filter()
		if err != nil {
			return err
		}
		p.space()
		if paren && !p.eat(")") {
			return fmt.Errorf("a ( is not closed at %d", p.i+1)
		}
		st.filter = f
	case c == '\'' || c == '"':
		for {
			s, err := p.quoted()
			if err != nil {
				return err
			}
			st.names = append(st.names, s)
			p.space()
			if !p.eat(",") {
				break
			}
			p.space()
			if c := p.peek(); c != '\'' && c != '"' {
				return fmt.Errorf("want a quoted name at %d", p.i+1)
			}
		}
	default:
		start := p.i
		p.eat("-")
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		n, err := strconv.Atoi(p.s[start:p.i])
		if err != nil {
			return fmt.Errorf("unexpected %q at %d (slices and other selectors are not supported)", p.s[start:min(p.i+1, len(p.s))], start+1)
		}
		st.index = &n
	}
	p.space()
	if !p.eat("]") {
		return fmt.Errorf("want ] at %d", p.i+1)
	}
	return nil
}

// filter reads conditions joined with && (binding tighter) and ||.
func (p *pathParser) filter() ([][]cond, error) {
	var or [][]cond
	var and []cond
	for {
		p.space()
		var c cond
		c.not = p.eat("!")
		p.space()
		if !p.eat("@") {
			return nil, fmt.Errorf("want @ at %d", p.i+1)
		}
		for {
			if p.eat(".") {
				name := p.name()
				if name == "" {
					return nil, fmt.Errorf("a name is missing at %d", p.i+1)
				}
				c.path = append(c.path, name)
			} else if p.peek() == '[' && p.i+1 < len(p.s) && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"') {
				p.i++
				s, err := p.quoted()
				if err != nil {
					return nil, err
				}
				if !p.eat("]") {
					return nil, fmt.Errorf("want ] at %d", p.i+1)
				}
				c.path = append(c.path, s)
			} else {
				break
			}
		}
		p.space()
		for _, op := range []string{"==", "!="} {
			if p.eat(op) {
				c.op = op
				p.space()
				switch q := p.peek(); {
				case q == '\'' || q == '"':
					s, err := p.quoted()
					if err != nil {
						return nil, err
					}
					c.value = s
				default:
					start := p.i
					for p.i < len(p.s) && strings.IndexByte(" \t)]&|", p.s[p.i]) < 0 {
						p.i++
					}
					c.value = p.s[start:p.i]
					if c.value == "" {
						return nil, fmt.Errorf("want a value at %d", p.i+1)
					}
					c.op += "literal"
				}
				break
			}
		}
		if c.not && c.op != "" {
			return nil, fmt.Errorf("! applies to an existence test only")
		}
		and = append(and, c)
		p.space()
		switch {
		case p.eat("&&"):
		case p.eat("||"):
			or, and = append(or, and), nil
		default:
			return append(or, and), nil
		}
	}
}

// apply returns the nodes the path selects in root, each once, in
// document order.
func (path jsonPath) apply(root *yaml.Node) []match {
	cur := []match{{nil, root}}
	for _, st := range path {
		var next []match
		seen := map[*yaml.Node]bool{}
		add := func(m match) {
			if !seen[m.n] {
				seen[m.n] = true
				next = append(next, m)
			}
		}
		for _, m := range cur {
			var from []*yaml.Node
			if st.desc {
				from = descendants(m.n, nil)
			} else {
				from = []*yaml.Node{m.n}
			}
			for _, n := range from {
				st.select_(n, add)
			}
		}
		cur = next
	}
	return cur
}

// descendants returns n and every node under it, in document order.
func descendants(n *yaml.Node, out []*yaml.Node) []*yaml.Node {
	out = append(out, n)
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			out = descendants(n.Content[i], out)
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			out = descendants(c, out)
		}
	}
	return out
}

// children returns the values of a mapping or the elements of a sequence.
func children(n *yaml.Node) []*yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		var out []*yaml.Node
		for i := 1; i < len(n.Content); i += 2 {
			out = append(out, n.Content[i])
		}
		return out
	case yaml.SequenceNode:
		return n.Content
	}
	return nil
}

func (st pathStep) select_(n *yaml.Node, add func(match)) {
	switch {
	case st.wildcard:
		for _, c := range children(n) {
			add(match{n, c})
		}
	case st.names != nil:
		for _, name := range st.names {
			if v := get(n, name); v != nil {
				add(match{n, v})
			}
		}
	case st.index != nil:
		if n.Kind == yaml.SequenceNode {
			i := *st.index
			if i < 0 {
				i += len(n.Content)
			}
			if i >= 0 && i < len(n.Content) {
				add(match{n, n.Content[i]})
			}
		}
	case st.filter != nil:
		for _, c := range children(n) {
			if filterMatches(st.filter, c) {
				add(match{n, c})
			}
		}
	}
}

func filterMatches(or [][]cond, n *yaml.Node) bool {
	for _, and := range or {
		ok := true
		for _, c := range and {
			ok = ok && c.matches(n)
		}
		if ok {
			return true
		}
	}
	return false
}

func (c cond) matches(n *yaml.Node) bool {
	v := n
	for _, name := range c.path {
		if v = get(v, name); v == nil {
			break
		}
	}
	switch c.op {
	case "":
		return (v != nil) != c.not
	case "==", "!=": // a string
		eq := v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!str" && v.Value == c.value
		return eq == (c.op == "==")
	default: // a number, true, false or null, as written
		eq := v != nil && v.Kind == yaml.ScalarNode && v.Tag != "!!str" && v.Value == c.value
		return eq == (c.op == "==literal")
	}
}
