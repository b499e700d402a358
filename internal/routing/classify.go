// Package routing is kit's routing table, written once: where a field of a
// parameter struct (kit, at declaration, by reflection) or a parameter of a
// declared method (kitgen, at generation, with go/types) goes — the path,
// the query, a header, the body, a form or multipart field, a file or the
// whole URL —, in what precedence, which names may not be sent twice, what
// a body may be, what a result may be, and the words of every refusal.
//
// Each side keeps only its type inspection: it answers the questions of
// [Type] about a reflect.Type or a types.Type, and describes a field with a
// [Field]. The decisions are made here, so kit and the kitgen of one
// version cannot disagree.
package routing

// Kind is what the rules know about a Go type.
type Kind uint8

// The kinds of types.
const (
	Scalar     Kind = iota // a value with one text form: a query parameter, a path segment, a header
	Slice                  // a slice or array of scalars (or of interfaces): the key repeats
	Model                  // a struct or *struct: a JSON body
	ModelSlice             // a slice or array of models: a JSON array body
	Map                    // text keys to text (or slices of text): one query parameter per entry
	Interface              // an empty interface: routed by the value it holds, at call time
	Invalid                // cannot be sent
	File                   // kit.File or *kit.File: a raw body, or a multipart file part
	FileSlice              // a slice of kit.File: multipart file parts only
	Bytes                  // []byte or [N]byte: never in the URL; a header, a form value
)

// Class is how values of a type are routed.
type Class struct {
	Kind Kind
	// Text reports whether the type has a single text form (a Scalar,
	// Bytes, or a Model with a String or MarkText method): what fills a
	// placeholder or a header.
	Text bool
	// Why says why an Invalid (or Bytes, FileSlice) type cannot be sent
	// where it was found, when the rules know; see [TypeProblem].
	Why string
}

// Shape is the kind of Go type, as the rules ask about it.
type Shape uint8

// The shapes of types.
const (
	OtherShape     Shape = iota // complex numbers, type parameters, types with errors
	BasicShape                  // bool, integers, floats, strings: a text form of their own
	PointerShape                // *T
	InterfaceShape              // an interface type
	SequenceShape               // a slice or an array
	MapShape                    // a map
	StructShape                 // a struct
	NoTextShape                 // chan, func, unsafe.Pointer
)

// Known names the types the rules single out.
type Known uint8

// The types the rules single out.
const (
	Time            Known = iota // time.Time
	KitFile                      // kit.File
	Byte                         // a type whose underlying type is uint8
	String                       // a type whose underlying type is string
	URLPointer                   // *url.URL
	ResponsePointer              // *kit.Response
	ReadCloser                   // io.ReadCloser
	KitResult                    // kit.Result[T]
	KitStream                    // kit.Stream[T]
	KitNullable                  // kit.Nullable[T]
	Integer                      // a type whose underlying type is an integer
)

// Methods names a method set the rules ask about.
type Methods uint8

// The method sets the rules ask about.
const (
	TextMarshaler Methods = iota // encoding.TextMarshaler
	Stringer                     // fmt.Stringer
	Reader                       // io.Reader
)

// Type is a Go type as the rules see it. kit implements it over
// reflect.Type, kitgen over go/types.
type Type interface {
	Shape() Shape
	// Elem is the element type of a PointerShape, a SequenceShape or a MapShape.
	Elem() Type
	// Key is the key type of a MapShape.
	Key() Type
	// Is reports whether the type is k.
	Is(k Known) bool
	// Implements reports whether the method set of the type has the
	// methods m; PointerImplements, whether that of a pointer to it has.
	Implements(m Methods) bool
	PointerImplements(m Methods) bool
	// HasMethods reports whether an InterfaceShape type has methods.
	HasMethods() bool
	// Arg is the type argument T of kit.Result[T], kit.Stream[T] or
	// kit.Nullable[T].
	Arg() Type
	// String is the type as messages print it.
	String() string
}

// maxDepth bounds how deep the rules look into element types.
const maxDepth = 4

// Classify returns how values of type t are routed.
func Classify(t Type) Class { return classify(t, 0) }

func classify(t Type, depth int) Class {
	if depth > maxDepth {
		return Class{Kind: Invalid}
	}
	shape := t.Shape()
	if isFile(t) {
		return Class{Kind: File}
	}
	if implements(t, Reader) && !implements(t, TextMarshaler) {
		return Class{Kind: Invalid, Why: whyReader}
	}
	if t.Is(KitNullable) {
		// Absent is left out, null an empty value, a value its text: T
		// must have one text form.
		if classify(t.Arg(), depth+1).Kind == Scalar {
			return Class{Kind: Scalar, Text: true}
		}
		return Class{Kind: Invalid, Why: whyNullable}
	}
	if IsModel(t) {
		// A struct is a data model even when it has a String method (for
		// logs, as protobuf messages do); that text only fills a
		// placeholder.
		return Class{Kind: Model, Text: HasTextForm(t)}
	}
	if HasTextForm(t) {
		return Class{Kind: Scalar, Text: true}
	}
	switch shape {
	case BasicShape:
		return Class{Kind: Scalar, Text: true}
	case PointerShape:
		if classify(t.Elem(), depth+1).Kind != Scalar {
			return Class{Kind: Invalid}
		}
		return Class{Kind: Scalar, Text: true}
	case InterfaceShape:
		if t.HasMethods() {
			// Its values would be routed by their dynamic type, but an
			// interface with methods (io.Reader, error, ...) says what
			// they are for, and it is not a parameter.
			return Class{Kind: Invalid, Why: whyNoText + " (an interface with methods)"}
		}
		return Class{Kind: Interface}
	case SequenceShape:
		elem := t.Elem()
		switch {
		case elem.Is(Byte):
			return Class{Kind: Bytes, Text: true, Why: whyBytes}
		case isFile(elem):
			return Class{Kind: FileSlice, Why: whyFileSlice}
		case IsModel(elem):
			return Class{Kind: ModelSlice}
		}
		inner := classify(elem, depth+1)
		switch inner.Kind {
		case Scalar, Interface:
			return Class{Kind: Slice}
		}
		return Class{Kind: Invalid, Why: inner.Why}
	case MapShape:
		if classify(t.Key(), depth+1).Kind != Scalar {
			return Class{Kind: Invalid}
		}
		switch classify(t.Elem(), depth+1).Kind {
		case Scalar, Slice, Interface:
			return Class{Kind: Map}
		case Map: // a map-valued entry is sent as k[key]=v (deepObject)
			if !t.Elem().Key().Is(String) {
				return Class{Kind: Invalid, Why: whyDeepKeys}
			}
			return Class{Kind: Map}
		}
		return Class{Kind: Invalid}
	case NoTextShape:
		return Class{Kind: Invalid, Why: whyNoText}
	}
	return Class{Kind: Invalid}
}

// isFile reports whether t is kit.File or *kit.File.
func isFile(t Type) bool {
	return t.Is(KitFile) || t.Shape() == PointerShape && t.Elem().Is(KitFile)
}

// implements reports whether t, or a pointer to it, has the methods m.
func implements(t Type, m Methods) bool {
	return t.Implements(m) || t.Shape() != PointerShape && t.PointerImplements(m)
}

// IsModel reports whether t is a data model: a struct or a pointer to one,
// other than time.Time, kit.File and types that marshal themselves as text
// or read (a fmt.Stringer struct is a model).
func IsModel(t Type) bool {
	if t.Shape() == PointerShape {
		t = t.Elem()
	}
	return t.Shape() == StructShape && !t.Is(Time) && !t.Is(KitFile) && !t.Is(KitNullable) &&
		!t.PointerImplements(TextMarshaler) && !t.PointerImplements(Reader)
}

// HasTextForm reports whether t has a text form of its own: time.Time
// (RFC 3339), an encoding.TextMarshaler or a fmt.Stringer, by value or by
// pointer. kit formats such values with that method.
func HasTextForm(t Type) bool {
	return t.Is(Time) || implements(t, TextMarshaler) || implements(t, Stringer)
}

// IsURL reports whether t may hold the whole URL of a call: a string or a
// *url.URL.
func IsURL(t Type) bool { return t.Is(String) || t.Is(URLPointer) }
