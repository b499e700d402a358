package kit

import (
	"bytes"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Private implementation past this point.
//
// An error model is a struct; a body is that model only when it looks like
// one. A 404 from a proxy ({"error":"not found"}), an array, a string or
// an HTML page decodes into an all-zero struct without an error, and
// errors.As would then find a model whose every field is empty. So before
// decoding, kit checks the body's shape against the model's:
//
//   - it is a JSON object;
//   - when the model names members (its fields' JSON names, those of
//     embedded structs included), the object has at least one of them;
//   - it has every member the model requires: a field tagged
//     `kit:",required"`.
//
// Names match as the codec matches them, without regard to case. Fields
// filled from the response (`kit:",status"`, `kit:"Name,header"`) and
// embedded fallbacks (`json:",embed"`, [UnknownFields]) name no member.

// modelShape is the members of a struct model, worked out once per type.
type modelShape struct {
	members  map[string]int // folded JSON name -> index into required, or -1
	required []string       // the required members' names, as declared
}

// shapeOf returns t's shape: nil when t is not a struct (or a pointer to
// one), whose bodies are only checked by decoding.
func shapeOf(t reflect.Type) *modelShape {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	s := &modelShape{members: map[string]int{}}
	s.collect(t, 0)
	return s
}

// collect adds the members of struct type t, descending into embedded
// structs (at most a few levels: a cycle through pointers stops there).
func (s *modelShape) collect(t reflect.Type, depth int) {
	if depth > 8 {
		return
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !sf.IsExported() && !sf.Anonymous {
			continue
		}
		if hasTagOption(opts, "embed") || sf.Anonymous && name == "" {
			if ft := derefType(sf.Type); ft.Kind() == reflect.Struct {
				s.collect(ft, depth+1)
			}
			continue // a map or jsontext.Value: the fallback names no member
		}
		if !sf.IsExported() {
			continue
		}
		_, kitOpt, _ := strings.Cut(sf.Tag.Get("kit"), ",")
		switch strings.TrimSpace(kitOpt) {
		case "status", "header":
			continue // filled from the response
		}
		if name == "" {
			name = sf.Name
		}
		key := foldName(name)
		if _, dup := s.members[key]; dup {
			continue
		}
		s.members[key] = -1
		if strings.TrimSpace(kitOpt) == "required" {
			s.members[key] = len(s.required)
			s.required = append(s.required, name)
		}
	}
}

// isModel reports whether raw (trimmed, not empty) has the model's shape.
func (m *errorModel) isModel(raw []byte) bool {
	s := m.shape
	if s == nil {
		return true
	}
	if raw[0] != '{' {
		return false
	}
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	var stack [2]uint64
	seen := stack[:]
	if n := (len(s.required) + 63) / 64; n > len(seen) {
		seen = make([]uint64, n)
	}
	named, found := false, 0
	for dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			return false
		}
		if i, ok := s.members[foldName(tok.String())]; ok {
			named = true
			if i >= 0 && seen[i/64]&(1<<(i%64)) == 0 {
				seen[i/64] |= 1 << (i % 64)
				found++
			}
		}
		if err := dec.SkipValue(); err != nil {
			return false
		}
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return false
	}
	return (named || len(s.members) == 0) && found == len(s.required)
}

// foldName is a JSON member name as the codec compares names when it
// matches them to fields: without regard to case.
func foldName(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; 'A' <= c && c <= 'Z' || c >= 0x80 {
			return strings.ToLower(name)
		}
	}
	return name
}

// hasTagOption reports whether the comma-separated options of a struct
// tag hold opt.
func hasTagOption(opts, opt string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if strings.TrimSpace(o) == opt {
			return true
		}
	}
	return false
}

func derefType(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}
