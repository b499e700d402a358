package kit

import (
	"reflect"

	"github.com/kithttp/kit/internal/routing"
)

// reflectType is a reflect.Type as the routing rules of internal/routing
// ask about it: kit's half of the type inspection (kitgen's is over
// go/types).
type reflectType struct{ t reflect.Type }

func (r reflectType) Shape() routing.Shape {
	switch r.t.Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return routing.BasicShape
	case reflect.Pointer:
		return routing.PointerShape
	case reflect.Interface:
		return routing.InterfaceShape
	case reflect.Slice, reflect.Array:
		return routing.SequenceShape
	case reflect.Map:
		return routing.MapShape
	case reflect.Struct:
		return routing.StructShape
	case reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return routing.NoTextShape
	}
	return routing.OtherShape
}

func (r reflectType) Elem() routing.Type { return reflectType{r.t.Elem()} }
func (r reflectType) Key() routing.Type  { return reflectType{r.t.Key()} }

func (r reflectType) Is(k routing.Known) bool {
	switch k {
	case routing.Time:
		return r.t == timeType
	case routing.KitFile:
		return r.t == fileType
	case routing.Byte:
		return r.t.Kind() == reflect.Uint8
	case routing.String:
		return r.t.Kind() == reflect.String
	case routing.URLPointer:
		return r.t == urlPtrType
	case routing.ResponsePointer:
		return r.t == responseType
	case routing.ReadCloser:
		return r.t == readCloserType
	case routing.KitResult:
		return isResultType(r.t)
	case routing.KitStream:
		return isStreamType(r.t)
	case routing.KitNullable:
		return isNullableType(r.t)
	case routing.Integer:
		switch r.t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			return true
		}
	}
	return false
}

// Arg is T of Result[T], Stream[T] or Nullable[T].
func (r reflectType) Arg() routing.Type {
	if isStreamType(r.t) {
		return reflectType{reflect.Zero(reflect.PointerTo(r.t)).Interface().(recordsOpener).recordType()}
	}
	return reflectType{r.t.Field(0).Type} // the value of Result[T] and of Nullable[T]
}

func (r reflectType) String() string { return r.t.String() }

func (r reflectType) Implements(m routing.Methods) bool {
	return r.t.Implements(methodsType(m))
}

func (r reflectType) PointerImplements(m routing.Methods) bool {
	return reflect.PointerTo(r.t).Implements(methodsType(m))
}

func (r reflectType) HasMethods() bool { return r.t.Kind() == reflect.Interface && r.t.NumMethod() > 0 }

// methodsType is the interface type of a method set the rules ask about.
func methodsType(m routing.Methods) reflect.Type {
	switch m {
	case routing.TextMarshaler:
		return textMarshalerType
	case routing.Stringer:
		return stringerType
	}
	return readerType
}
