package routing

import (
	"fmt"
	"strings"
)

// Encoding is how a body model is sent.
type Encoding uint8

// The encodings of a body.
const (
	JSON      Encoding = iota // the default
	Form                      // kit.FormBody(): application/x-www-form-urlencoded
	Multipart                 // kit.Multipart(): multipart/form-data, with files
)

// String is the option that asks for the encoding: "kit.FormBody()".
func (e Encoding) String() string {
	switch e {
	case Form:
		return "kit.FormBody()"
	case Multipart:
		return "kit.Multipart()"
	}
	return "JSON"
}

// Exclusive is the refusal of a declaration asking for two encodings.
func Exclusive(a, b Encoding) string {
	return fmt.Sprintf("%s and %s exclude each other", a, b)
}

// HasBody reports whether requests of the method may have a body: GET and
// HEAD requests have none.
func HasBody(method string) bool { return method != "GET" && method != "HEAD" }

// Body checks a declaration's body against its method and encoding: body
// is the field that is the body (routed to r, Body or RawFile), or nil;
// dynamic reports whether some field is routed by the value it holds, at
// call time. walk is true when the caller must still look at the body
// model's fields: each with JSONField for a JSON body, FormField otherwise.
func (d *Dialect) Body(method string, enc Encoding, body *Field, r Route, dynamic bool) (walk bool, err error) {
	if body == nil {
		if enc != JSON && !dynamic {
			return false, fmt.Errorf("%s needs a body model: %s", enc, d.bodyModel)
		}
		return false, nil
	}
	subject := d.subject(body.GoName)
	if !HasBody(method) {
		switch {
		case r == RawFile:
			return false, fmt.Errorf("%s (%s) is a kit.File, the raw request body, and %s requests have no body", subject, body.T.String(), method)
		case body.Class.Kind == Model:
			return false, fmt.Errorf("%s (%s) would be the request body, and %s requests have no body: %s", subject, body.T.String(), method, d.queryFix(body.GoName))
		}
		return false, fmt.Errorf("%s (%s) would be the request body, and %s requests have no body", subject, body.T.String(), method)
	}
	switch {
	case r == RawFile && enc != JSON:
		return false, fmt.Errorf("%s is a kit.File, the raw request body; with %s put it in the body model", subject, enc)
	case r == RawFile:
		return false, nil
	case enc == Form && FormMap(body):
		return true, nil
	case enc != JSON && body.Class.Kind != Model:
		return false, fmt.Errorf("%s: %s", subject, NotOneModel(enc, body.T.String()))
	}
	return true, nil
}

// FormMap reports whether body is a map sent as a whole form body: a map
// marked body (`kit:",body"`, //kit:body {p}), whose keys are the form's
// keys. The caller checks it as a form writes it (its keys strings, its
// values text or nested values).
func FormMap(body *Field) bool {
	return body.Mark == MarkBody && body.T.Shape() == MapShape
}

// JSONProblem says why a value of type t cannot be written as JSON by
// encoding/json, or "": a channel, a func, a complex number, an interface
// with methods, an io.Reader, a kit.File (which has no JSON form), a map whose keys are
// neither strings, integers nor text marshalers, anywhere in its pointers,
// slices and maps. A struct's fields are checked by the caller as a body
// model's are (JSONField); beyond maxDepth, encoding/json has the word.
func JSONProblem(t Type) string { return jsonProblem(t, 0) }

func jsonProblem(t Type, depth int) string {
	if depth > maxDepth {
		return ""
	}
	if isFile(t) {
		return "type " + t.String() + " is a kit.File, which has no JSON form"
	}
	if t.Is(Time) || implements(t, TextMarshaler) {
		return ""
	}
	if implements(t, Reader) {
		return whyReader
	}
	switch t.Shape() {
	case BasicShape, StructShape:
		return ""
	case PointerShape, SequenceShape:
		return jsonProblem(t.Elem(), depth+1)
	case MapShape:
		k := t.Key()
		if !k.Is(String) && !k.Is(Integer) && !implements(k, TextMarshaler) {
			return "type " + t.String() + ": its key type " + k.String() + " is not a string, an integer or an encoding.TextMarshaler, which encoding/json requires"
		}
		return jsonProblem(t.Elem(), depth+1)
	case InterfaceShape:
		if t.HasMethods() {
			return "type " + t.String() + " is an interface with methods"
		}
		return ""
	}
	return "type " + t.String() + " has no JSON form"
}

// NotOneModel is the refusal of a form or multipart body that is not one
// data model.
func NotOneModel(enc Encoding, typ string) string {
	if enc == Form {
		return fmt.Sprintf("a form body is one data model (a struct) or a map marked body, not %s", typ)
	}
	return fmt.Sprintf("a %s body is one data model (a struct), not %s", enc.noun(), typ)
}

// noun names the encoding's bodies: "form", "multipart".
func (e Encoding) noun() string {
	switch e {
	case Form:
		return "form"
	case Multipart:
		return "multipart"
	}
	return "JSON"
}

// JSONField checks a field of a JSON body model: a kit.File has no JSON
// form. model is the body model's type, field the field's Go name.
func (d *Dialect) JSONField(model, field string, c Class) error {
	if c.Kind == File || c.Kind == FileSlice {
		return fmt.Errorf("field %s of the body model %s is a kit.File: %s to upload it", field, model, d.multipart)
	}
	return nil
}

// JSONMember reports whether a field of a body model is in its JSON: it is
// exported and not tagged `json:"-"`.
func JSONMember(exported bool, jsonTag string) bool { return exported && jsonTag != "-" }

// FormKind is how a field of a form or multipart body model is sent.
type FormKind uint8

// The kinds of form fields.
const (
	FormText      FormKind = iota // one text value
	FormTextSlice                 // one value per element
	FormDynamic                   // decided by the value held
	FormFile                      // a file part (multipart)
	FormFileSlice                 // file parts (multipart)
	FormJSON                      // a JSON part (multipart)
)

// FormMember decides whether a field of a form or multipart body model is
// sent, as encoding/json would: not when it is tagged `json:"-"`, an
// embedded struct without a JSON name (its fields are promoted), or
// unexported. name is its field name: the JSON name, else the Go name.
// shape is that of the field's type, a pointer removed.
func FormMember(exported, embedded bool, shape Shape, goName, jsonTag string) (name string, omitEmpty, omitZero, sent bool) {
	name, opts, _ := strings.Cut(jsonTag, ",")
	switch {
	case jsonTag == "-":
		return "", false, false, false
	case embedded && name == "" && shape == StructShape:
		return "", false, false, false
	case !exported:
		return "", false, false, false
	}
	if name == "" {
		name = goName
	}
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "omitempty":
			omitEmpty = true
		case "omitzero":
			omitZero = true
		}
	}
	return name, omitEmpty, omitZero, true
}

// FormKindOf is how a value of class c is sent in a form or multipart
// body; ok is false when it cannot be.
func FormKindOf(c Class) (k FormKind, ok bool) {
	switch c.Kind {
	case Scalar, Bytes:
		return FormText, true
	case Slice:
		return FormTextSlice, true
	case Interface:
		return FormDynamic, true
	case File:
		return FormFile, true
	case FileSlice:
		return FormFileSlice, true
	case Model, ModelSlice, Map:
		return FormJSON, true
	}
	return 0, false
}

// FormAllows reports whether a form (multipart false) or a multipart body
// takes fields of kind k: a form has text fields only.
func FormAllows(k FormKind, multipart bool) bool {
	return multipart || k == FormText || k == FormTextSlice || k == FormDynamic
}

// FormField decides how a field of the body model (type model) is sent in
// a form (multipart false) or multipart body. field is its Go name, typ
// its type as messages print it.
func (d *Dialect) FormField(model, field, typ string, c Class, multipart bool) (FormKind, error) {
	k, ok := FormKindOf(c)
	switch {
	case !ok && c.Why != "":
		return 0, fmt.Errorf("field %s of %s: %s", field, model, TypeProblem(typ, c.Why))
	case !ok:
		return 0, fmt.Errorf("field %s of %s: type %s cannot be sent in a %s body", field, model, typ, encodingOf(multipart).noun())
	case FormAllows(k, multipart):
		return k, nil
	case k == FormJSON:
		return 0, fmt.Errorf("field %s of %s: type %s has no text form for a form field; %s to send it as a JSON part", field, model, typ, d.multipart)
	}
	return 0, fmt.Errorf("field %s of %s is a kit.File: a form has text fields only; %s to upload files", field, model, d.multipart)
}

// HeldFormProblem says why the value of type typ that an interface field
// holds cannot be sent in a form (multipart false) or multipart body.
func HeldFormProblem(typ string, multipart bool) error {
	if multipart {
		return fmt.Errorf("a value of type %s cannot be sent as a part", typ)
	}
	return fmt.Errorf("a value of type %s has no text form for a form field", typ)
}

func encodingOf(multipart bool) Encoding {
	if multipart {
		return Multipart
	}
	return Form
}

// NestedFormFile says why a value of type typ, which holds a kit.File,
// cannot be written in a form body (FormBody): files go in a multipart one.
func (d *Dialect) NestedFormFile(typ string) string {
	return "type " + typ + " holds a kit.File: a form has text fields only; " + d.multipart + " to upload files"
}

// FormMapKey says why a map of type typ, whose key type key is not a
// string kind, cannot be written in a form body: its keys become form keys.
func FormMapKey(typ, key string) string {
	return "type " + typ + ": a map's keys are written as form keys, and its key type " + key + " is not a string kind"
}

// FormKeyProblem says why a nested form field named name (its JSON name)
// cannot be written, or "": a bracket would split the key.
func FormKeyProblem(name string) string {
	if strings.ContainsAny(name, "[]") {
		return fmt.Sprintf("the name %q holds a bracket, which a form key cannot", name)
	}
	return ""
}
