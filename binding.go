package kit

// Binding is what every call goes through: it carries the client's base URL,
// engine, auth and settings. [*Client], [*AsyncClient], *Resource[T] and
// *AsyncResource[T] implement it, and so does any struct that embeds one of
// them. The method is unexported: only kit's types are bindings.
type Binding interface {
	binding() *clientState
}
