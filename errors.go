package kit

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"runtime/debug"
	"strings"
)

// Sentinel errors. Match them with errors.Is; the errors kit returns wrap them
// with what was attempted.
var (
	// ErrNoPath is returned by CRUD methods and iteration of a resource whose
	// path is empty. Nothing is sent.
	ErrNoPath = errors.New("kit: resource has no path")

	// ErrEngineProtocol is matched by an *EngineError: the binding's engine
	// lacks the protocol (Engine or AsyncEngine) that the call needs.
	ErrEngineProtocol = errors.New("kit: engine lacks the protocol this call needs")

	// ErrClosed is returned by calls made through a client after it was closed.
	ErrClosed = errors.New("kit: client is closed")

	// ErrNotModel is returned where a data model (a struct, a pointer to one,
	// or a slice of them) is required and another value, such as a map, was
	// given. A map is never a request body.
	ErrNotModel = errors.New("kit: value is not a data model")

	// ErrBodyTooLarge is returned when a response body exceeds the client's
	// limit (see WithMaxBodySize). The body is not read past the limit.
	ErrBodyTooLarge = errors.New("kit: response body too large")

	// ErrTooManyRedirects is returned when the default engine (or a client
	// given with WithHTTPClient whose CheckRedirect is nil) has followed 10
	// redirects: a redirect loop ends with it instead of hanging.
	ErrTooManyRedirects = errors.New("kit: stopped after 10 redirects")

	// ErrNilBinding is returned when a call is made through a nil Binding.
	ErrNilBinding = errors.New("kit: nil binding")

	// ErrPageLoop ends a walk whose paginator asks for a request the walk
	// has already made, or whose server answers a page with exactly the
	// records of an earlier page (servers that clamp a page number past the
	// end, or that cycle through the same pages under new URLs or cursors).
	// No record is yielded twice: the repeated page is not yielded. A walk
	// remembers a 64-bit hash of each URL and of each non-empty page's raw
	// records for its last 65,536 pages (about 100 bytes a page, whatever
	// the page size), so a cycle shorter than that is always caught. A
	// collection in which two pages are byte for byte the same (records
	// without ids that happen to repeat) cannot be told from a server that
	// cycles: its walk ends with [ErrPageLoop] at the repeat, after every
	// record before it. Empty pages never count as a repeat.
	ErrPageLoop = errors.New("kit: pagination does not advance")

	// ErrCrossOrigin is returned for a next-page URL on another origin than
	// the walk's: the client's base URL for a resource or a paged endpoint
	// on it, the endpoint's own origin for a paged endpoint declared with an
	// absolute URL. It is not requested: credentials never follow it, and a
	// server on another origin cannot make the client fetch (with its
	// credentials) a path of the base API that it chose.
	ErrCrossOrigin = errors.New("kit: URL is on another origin than the base URL")

	// ErrNotModified is matched by the *HTTPError of a 304 Not Modified
	// response (to a conditional request with If-None-Match or
	// If-Modified-Since): errors.Is(err, kit.ErrNotModified).
	ErrNotModified = errors.New("kit: not modified")
)

// HTTPError is returned for a response whose status is not 2xx, whatever the
// endpoint's result type, and for a 2xx response whose body the check of
// [WithBodyCheck] refused (it then wraps the check's error, and Model holds
// the body decoded for the check). Body holds at most [MaxErrorBodySize]
// bytes of the response body.
//
// With an error model (WithErrorModel[E], or WithErrorModelFor[E] for the
// response's status), Model holds the body decoded into a new E, as a *E;
// it is nil when the body is empty, does not decode into E (an HTML page
// from a proxy, say) or is not the model. For a struct E, a body is the
// model when it is a JSON object that has at least one of the members E
// names (its fields' JSON names, matched without regard to case; fields
// filled from the response and [UnknownFields] name none) and every member
// E requires: those of fields tagged `kit:",required"`. So errors.As
// never finds an all-zero model in a proxy's {"error":"not found"}. When *E implements error,
// errors.As finds the model through the HTTPError (with a target of type
// *E, or of type E when E itself implements error), while errors.As(err,
// &httpErr) still finds the HTTPError. A 304 Not Modified matches
// [ErrNotModified].
type HTTPError struct {
	Method string
	// URL is the request's URL as kit reports it, redacted: user info,
	// the values of secret-looking query parameters (and of those the
	// client's Auth adds) and the path segments that a secret-looking
	// path parameter fills ({token}, {token...}) are "REDACTED". It is
	// for reading, not for sending again: the caller has the request.
	URL        string
	StatusCode int
	Header     http.Header
	Body       []byte
	Model      any // the decoded error model (a *E), or nil

	finalURL *url.URL // the URL that answered (after redirects)
	retry    *retrier // the policy in force for the call, for Retryable; nil: none
	cause    error    // what WithBodyCheck's check returned for a 2xx body; nil otherwise
}

// MaxErrorBodySize is how many bytes of a non-2xx response body an [HTTPError]
// keeps. The rest is discarded (a small remainder is drained so the
// connection can be reused).
const MaxErrorBodySize = 64 << 10

// Error reports the method, URL, status and the start of the body; for a
// 2xx body that WithBodyCheck refused, the check's error instead of the
// body.
func (e *HTTPError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "kit: %s %s: %d %s", e.Method, e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.cause != nil {
		b.WriteString(": ")
		b.WriteString(strings.ReplaceAll(e.cause.Error(), "\n", "; "))
	} else if snippet := bodySnippet(e.Body); snippet != "" {
		b.WriteString(": ")
		b.WriteString(snippet)
	}
	return b.String()
}

// Unwrap returns [ErrNotModified] for a 304, the error of [WithBodyCheck]'s
// check for a 2xx body it refused, and the error model when it implements
// error, so that errors.Is and errors.As find them.
func (e *HTTPError) Unwrap() []error {
	var errs []error
	if e.StatusCode == http.StatusNotModified {
		errs = append(errs, ErrNotModified)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	if me, ok := e.Model.(error); ok {
		errs = append(errs, me)
	}
	return errs
}

// As sets target to the error model when target points to its value type
// (an E whose value implements error, where Model holds a *E).
func (e *HTTPError) As(target any) bool {
	if e.Model == nil || target == nil {
		return false
	}
	mv := reflect.ValueOf(e.Model)
	tv := reflect.ValueOf(target)
	if mv.Kind() != reflect.Pointer || mv.IsNil() || tv.Kind() != reflect.Pointer || tv.IsNil() {
		return false
	}
	elem := mv.Elem()
	if tv.Elem().Type() != elem.Type() || !elem.Type().Implements(errorType) {
		return false
	}
	tv.Elem().Set(elem)
	return true
}

var errorType = reflect.TypeFor[error]()

// DecodeError is returned when a 2xx response body cannot be decoded into the
// result type.
type DecodeError struct {
	Method      string
	URL         string // redacted, as HTTPError.URL
	ContentType string // the response's Content-Type
	Want        string // the Go type the body was decoded into
	Offset      int64  // byte offset in the body where decoding failed, when known
	Err         error
}

// Error reports what was decoded into what, where, and why it failed.
func (e *DecodeError) Error() string {
	ct := e.ContentType
	if ct == "" {
		ct = "no content type"
	}
	return fmt.Sprintf("kit: %s %s: decoding %s response into %s at byte %d: %v",
		e.Method, e.URL, ct, e.Want, e.Offset, e.Err)
}

// Unwrap returns the underlying decoding error.
func (e *DecodeError) Unwrap() error { return e.Err }

// DeclarationError reports a mistake in an endpoint declaration: a
// placeholder with no field, two body fields, an unusable parameter type, a
// bad method. [Get], [Post], [Put], [Delete] and [Patch] panic with it; [NewEndpoint]
// returns it.
type DeclarationError struct {
	Method string
	Path   string
	Reason string
}

// Error reports the declaration and what is wrong with it.
func (e *DeclarationError) Error() string {
	return fmt.Sprintf("kit: bad endpoint declaration %s %s: %s", e.Method, e.Path, e.Reason)
}

// EngineError is returned when a call needs a protocol that the binding's
// engine lacks: Call needs kit.Engine, Go needs kit.AsyncEngine. Nothing is
// sent. It matches [ErrEngineProtocol].
type EngineError struct {
	Engine   string // the engine's Go type, or "NewAsyncClient's default engine"
	Lacks    string // "kit.Engine" or "kit.AsyncEngine"
	Endpoint string // "GET /users/{id}"
}

// Error names the endpoint, the engine and the missing protocol.
func (e *EngineError) Error() string {
	engine := "engine " + e.Engine
	if strings.Contains(e.Engine, " ") {
		engine = e.Engine // a description, not a type
	}
	return fmt.Sprintf("kit: %s: %s does not implement %s", e.Endpoint, engine, e.Lacks)
}

// Unwrap returns [ErrEngineProtocol].
func (e *EngineError) Unwrap() error { return ErrEngineProtocol }

// ValidationError reports a data model that failed validation. Fields lists
// each failed field rule; Err holds what the model's own Validate method
// returned, if it failed.
type ValidationError struct {
	Model  string // the Go type, e.g. "api.User"
	Fields []FieldError
	Err    error
}

// FieldError is one failed rule of one field.
type FieldError struct {
	Path    string // e.g. "Users[2].Email"; "[2].Email" for the third element of a slice body
	Rule    string // the failed rule, e.g. "required", "email", "min"
	Message string // e.g. "is required"
}

// Error lists the failed fields on one line.
func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "invalid %s:", e.Model)
	for i, f := range e.Fields {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " %s %s", f.Path, f.Message)
	}
	if e.Err != nil {
		if len(e.Fields) > 0 {
			b.WriteByte(';')
		}
		b.WriteString(" ")
		// One line, even for joined errors (of slice elements, or from a
		// Validate method that uses errors.Join).
		b.WriteString(strings.ReplaceAll(e.Err.Error(), "\n", "; "))
	}
	return b.String()
}

// Unwrap returns the error of the model's Validate method, if any.
func (e *ValidationError) Unwrap() error { return e.Err }

// PanicError is returned for a panic in code that kit ran on a goroutine of
// its own: a validator, an interceptor, an auth, a paginator or a decoder
// of an async call, a walk's prefetching, a token fetch, an [Observer]'s
// StreamEnd or CallEnd run when a stream's context ends. Without it such a
// panic would end the process; with it the caller gets an error. Error is
// one line; %+v also prints the stack.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the stack of the goroutine that panicked
}

// Error reports the panic's value.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Format prints Error, and with %+v the stack too.
func (e *PanicError) Format(f fmt.State, verb rune) { formatError(f, verb, e.Error(), e) }

// Unwrap returns the panic's value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Private implementation past this point.

// newPanicOrExit is newPanicError, or an error for a goroutine that ended
// with runtime.Goexit (r == nil).
func newPanicOrExit(r any) error {
	if r == nil {
		return errors.New("the goroutine exited without returning (runtime.Goexit)")
	}
	return newPanicError(r)
}

// newPanicError is the error of a panic with value r, recovered in a
// deferred function (so that the stack is the panicking goroutine's).
func newPanicError(r any) *PanicError {
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// bodySnippet renders the first part of an error body on one line.
func bodySnippet(body []byte) string {
	const max = 200
	s := string(body)
	if len(s) > max {
		s = s[:max] + "…"
	}
	s = strings.Join(strings.Fields(s), " ")
	return strings.ToValidUTF8(s, "�")
}

// opError is how kit reports a failure: "kit: <what was attempted>: <what
// went wrong>", one "kit:" and one statement of what was attempted however
// deep the wrapping. It unwraps to the cause.
type opError struct {
	op  string // what was attempted: "GET https://h/users/1", "NewClient", ...
	err error
}

func (e *opError) Error() string { return "kit: " + e.op + ": " + detail(e.op, e.err) }

// Format prints Error, and with %+v the stack of a panic it wraps.
func (e *opError) Format(f fmt.State, verb rune) {
	formatError(f, verb, e.Error(), e.err)
}

// formatError writes text with the verb's own formatting (%q quotes it),
// and with %+v the stack of a *PanicError in err's chain.
func formatError(f fmt.State, verb rune, text string, err error) {
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), text)
	var pe *PanicError
	if verb == 'v' && f.Flag('+') && errors.As(err, &pe) {
		_, _ = fmt.Fprintf(f, "\n%s", pe.Stack)
	}
}
func (e *opError) Unwrap() error { return e.err }

// errorf returns "kit: <op>: <format>". Errors among args are written
// without their own "kit:" prefix (and without op, when they repeat it),
// and %w wraps them as fmt.Errorf does.
func errorf(op, format string, args ...any) error {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = bare{op, err}
		}
	}
	return &opError{op: op, err: fmt.Errorf(format, args...)}
}

// bare is an error as part of another kit error's text: without the "kit: "
// prefix and without the op they share. It unwraps to the error itself.
type bare struct {
	op  string
	err error
}

func (b bare) Error() string { return detail(b.op, b.err) }
func (b bare) Unwrap() error { return b.err }

// detail is err's text without kit's prefix and without a leading op.
func detail(op string, err error) string {
	s := strings.TrimPrefix(err.Error(), "kit: ")
	return strings.TrimPrefix(s, op+": ")
}

// finalError marks an error that retrying cannot cure (credentials that
// cannot be added, a body that cannot be opened): the retry layer returns it
// at once. Its text and chain are the wrapped error's.
type finalError struct{ err error }

func (e finalError) Error() string { return e.err.Error() }

// Format formats the wrapped error (so %+v shows a panic's stack).
func (e finalError) Format(f fmt.State, verb rune) { formatError(f, verb, e.Error(), e.err) }
func (e finalError) Unwrap() error                 { return e.err }
