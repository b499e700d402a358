package openapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"go.yaml.in/yaml/v3"
)

// looksJSON reports whether a document is JSON rather than YAML: it
// opens an array, or an object whose first key is quoted (a YAML flow
// mapping, {openapi: 3.0.0}, is read as YAML).
func looksJSON(data []byte) bool {
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	if len(t) == 0 || t[0] != '{' && t[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(t[1:], " \t\r\n")
	return t[0] == '[' || len(rest) > 0 && (rest[0] == '"' || rest[0] == '}')
}

// parseJSON reads a JSON document into the same tree of YAML nodes that
// reading it as YAML gives, with each node's line and column, so that the
// loader serves both alike. It is a JSON reader's reading: every escape
// JSON allows means what JSON says (a surrogate pair is one character, a
// lone surrogate the replacement character U+FFFD), and raw control
// characters, which YAML refuses, are text. A key given twice is kept
// twice, as YAML's node tree keeps it (the loader reads the first).
// Text that is not UTF-8 is refused at its position.
func parseJSON(name string, data []byte) (*yaml.Node, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	pos := &jsonPos{data: data, line: 1, col: 1}
	if i := invalidUTF8(data); i >= 0 {
		return nil, &Error{Pos: pos.at(name, i), Msg: "not JSON: the text is not UTF-8"}
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data),
		jsontext.AllowDuplicateNames(true), // as YAML's node tree: the loader reads the first
		jsontext.AllowInvalidUTF8(true))    // only lone surrogates are left: U+FFFD
	syntax := func(err error) error {
		off := dec.InputOffset()
		var se *jsontext.SyntacticError
		if errors.As(err, &se) {
			off, err = se.ByteOffset, se.Err
		}
		return &Error{Pos: pos.at(name, int(off)), Msg: fmt.Sprintf("not JSON: %v", err)}
	}
	// start returns the offset of the token the decoder reads next: past
	// the white space and separators after the previous one.
	start := func() int {
		off := int(dec.InputOffset())
		for off < len(data) {
			switch data[off] {
			case ' ', '\t', '\r', '\n', ',', ':':
				off++
				continue
			}
			break
		}
		return off
	}
	var stack []*yaml.Node
	var root *yaml.Node
	for {
		at := start()
		tok, err := dec.ReadToken()
		if err == io.EOF && root != nil && len(stack) == 0 {
			return root, nil
		}
		if err != nil {
			return nil, syntax(err)
		}
		p := pos.at(name, at)
		n := &yaml.Node{Line: p.Line, Column: p.Col}
		switch k := tok.Kind(); k {
		case '}', ']':
			stack = stack[:len(stack)-1]
			continue
		case '{':
			n.Kind, n.Tag, n.Style = yaml.MappingNode, "!!map", yaml.FlowStyle
		case '[':
			n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
		case '"':
			n.Kind, n.Tag, n.Style, n.Value = yaml.ScalarNode, "!!str", yaml.DoubleQuotedStyle, tok.String()
		default: // a number, true, false or null: as YAML resolves the same text
			n.Kind, n.Value = yaml.ScalarNode, string(data[at:dec.InputOffset()])
			n.Tag = n.ShortTag()
		}
		if len(stack) > 0 {
			parent := stack[len(stack)-1]
			parent.Content = append(parent.Content, n)
		} else if root == nil {
			root = n
		} else {
			return nil, &Error{Pos: p, Msg: "not JSON: more than one value"}
		}
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			stack = append(stack, n)
		}
	}
}

// invalidUTF8 returns the offset of the first byte of data that is not
// UTF-8, or -1.
func invalidUTF8(data []byte) int {
	if utf8.Valid(data) {
		return -1
	}
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// jsonPos turns byte offsets into lines and columns (in characters, as
// YAML counts them), offsets asked for in increasing order: a document on
// one line of many megabytes is counted once, not once per token.
type jsonPos struct {
	data      []byte
	off       int
	line, col int
}

func (p *jsonPos) at(name string, off int) Pos {
	off = min(max(off, 0), len(p.data))
	if off < p.off { // not in order (an error's offset): count again
		p.off, p.line, p.col = 0, 1, 1
	}
	for p.off < off {
		r, n := utf8.DecodeRune(p.data[p.off:])
		p.off += n
		if r == '\n' {
			p.line, p.col = p.line+1, 1
		} else {
			p.col++
		}
	}
	return Pos{File: name, Line: p.line, Col: p.col}
}
