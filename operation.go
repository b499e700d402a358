package kit

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"net/http"
	"reflect"
	"sync/atomic"

	"github.com/kithttp/kit/internal/routing"
)

// Operation is an endpoint whose parameter and result types are given as
// [reflect.Type] values instead of type parameters: the non-generic form of
// [Endpoint] and [PagedEndpoint], for generated code. A typed method
// written around it (var out R; err := op.CallInto(ctx, b, &params, &out))
// costs the compiler and the binary one small function, where an Endpoint
// with types of its own stencils kit's generic code once per pair of types.
// Hand-written clients keep the generic API, which is a thin layer over the
// same code.
//
// An Operation routes, sends, decodes and validates exactly as the
// Endpoint or PagedEndpoint of the same declaration: the same options,
// errors, retries, caches and observers. It is immutable and safe for
// concurrent use. Declare one with [NewOperation] or [NewPagedOperation],
// or lazily with a [LazyOperation].
type Operation struct {
	d     *endpointDecl
	err   error        // the declaration's error, reported by every call; d is nil
	pPtr  reflect.Type // *P: the type params must have
	rPtr  reflect.Type // *R: the type out must have; nil for a paged operation
	slice reflect.Type // []T: a paged operation's records
	typed bool         // a paged operation's records are data models, validated
}

// NewOperation declares an operation with any method, like [NewEndpoint]
// with P = params and R = result: it returns the same [*DeclarationError]
// on a bad declaration. A nil params is [NoParams]; a nil result is
// *[Response] (the raw response, nothing decoded).
func NewOperation(method, path string, params, result reflect.Type, opts ...EndpointOption) (*Operation, error) {
	params, result = orType(params, noParamsType), orType(result, responseType)
	d, err := newEndpointDecl(method, path, params, result, opts)
	if err != nil {
		return nil, err
	}
	return &Operation{d: d, pPtr: reflect.PointerTo(params), rPtr: reflect.PointerTo(result)}, nil
}

// NewPagedOperation declares a paged operation, walked page by page like a
// [PagedEndpoint] with P = params and T = record: with GET requests (as
// [NewPaged]) or with POST requests (as [NewPagedPost]). It returns the
// [*DeclarationError] those return on a bad declaration, and one for any
// other method. A nil params is [NoParams]; a nil record is any (raw JSON).
func NewPagedOperation(method, path string, params, record reflect.Type, opts ...EndpointOption) (*Operation, error) {
	params, record = orType(params, noParamsType), orType(record, anyType)
	if method != http.MethodGet && method != http.MethodPost {
		return nil, &DeclarationError{Method: method, Path: path, Reason: "a paged operation is walked with GET or POST requests"}
	}
	d, err := declarePaged(method, path, params, record, opts)
	if err != nil {
		return nil, err
	}
	return &Operation{
		d: d, pPtr: reflect.PointerTo(params), slice: reflect.SliceOf(record),
		typed: resultKindOf(record) == routing.ResultTyped,
	}, nil
}

// CallInto sends the request of a call, as [Endpoint.Call] does, and
// decodes the validated result into out. params is a pointer to a value of
// the operation's parameter type (nil when that is [NoParams]); out is a
// pointer to a value of its result type, or nil to drop the result. On an
// error *out holds what Call would return with it (the zero value; a
// [Result] with a Response safe to read). Arguments of other types are an
// error, and nothing is sent. A paged operation is walked with Pages, not
// called.
func (op *Operation) CallInto(ctx context.Context, b Binding, params, out any, opts ...CallOption) error {
	if err := op.check("CallInto", params, false); err != nil {
		return err
	}
	if out == nil {
		// Decoded (and validated) into a value that nobody reads.
		out = reflect.New(op.rPtr.Elem()).Interface()
	} else if t := reflect.TypeOf(out); t != op.rPtr {
		return errorf(op.d.name, "Operation.CallInto: out is %v, want %v", t, op.rPtr)
	}
	// One allocation for the path's values and the request (two without).
	return op.d.call(ctx, b, "Operation.CallInto", params, out, new(callRoom), opts)
}

// GoOperation starts a call of op on b's engine, which must implement
// [AsyncEngine], as [Endpoint.Go] does, and returns at once with a [Future]
// of its result. R must be op's result type (an error in the Future
// otherwise); params is read before GoOperation returns, as CallInto
// reads it.
func GoOperation[R any](ctx context.Context, op *Operation, b Binding, params any, opts ...CallOption) *Future[R] {
	f := pendingFuture[R]()
	op.goInto(ctx, b, params, &f.fc, &f.val, opts)
	return f
}

// goInto is GoOperation's non-generic core: out is the *R beside fc.
func (op *Operation) goInto(ctx context.Context, b Binding, params any, fc *futureCore, out any, opts []CallOption) {
	if err := op.check("GoOperation", params, false); err != nil {
		fc.fail(out, err)
		return
	}
	if t := reflect.TypeOf(out); t != op.rPtr {
		fc.fail(out, errorf(op.d.name, "GoOperation: the Future's value is %v, want %v", t.Elem(), op.rPtr.Elem()))
		return
	}
	op.d.goCall(ctx, b, "GoOperation", params, new(callRoom), fc, out, opts)
}

// Pages walks a paged operation through b's engine, which must implement
// [Engine], as [PagedEndpoint.Pages] does: lazily, yielding every page
// fetched with its records and response. params is a pointer to a value of
// the operation's parameter type (nil when that is [NoParams]), routed when
// the loop starts; a wrong type is the walk's one error, and nothing is
// sent. Calling Pages on an operation that is not paged is such an error
// too.
func (op *Operation) Pages(ctx context.Context, b Binding, params any, opts ...CallOption) iter.Seq2[*OperationPage, error] {
	return op.pages(ctx, b, params, false, "Pages", opts)
}

// GoPages is Pages through b's engine's async protocol, as
// [PagedEndpoint.GoPages] is: b's engine must implement [AsyncEngine], and
// [WithPrefetch] keeps pages in flight ahead of the caller.
func (op *Operation) GoPages(ctx context.Context, b Binding, params any, opts ...CallOption) iter.Seq2[*OperationPage, error] {
	return op.pages(ctx, b, params, true, "GoPages", opts)
}

// String returns the declaration, e.g. "GET /users/{id}".
func (op *Operation) String() string {
	if op == nil || op.d == nil {
		return "<undeclared kit.Operation>"
	}
	return op.d.name
}

// OperationPage is one page of an [Operation]'s walk: its records, decoded
// and validated, and the response it came from (status, headers, and JSON()
// for totals and other page metadata).
type OperationPage struct {
	// Records is a []T of the operation's record type (the record given
	// to NewPagedOperation): recs := page.Records.([]Repo). It is never a
	// nil interface.
	Records  any
	Response *Response
}

// LazyOperation declares an [Operation] on first use and keeps it: generated
// code puts one in a package-level variable, which needs no code at
// program start, so that the linker can drop the operations a program never
// calls. Its zero value is ready to use; it is safe for concurrent use.
type LazyOperation struct {
	op atomic.Pointer[Operation]
}

// Get returns the operation, calling declare the first time (or, when
// goroutines race to be first, in each of them: declare must be free of
// side effects; one result is kept). An error from declare is kept too:
// every call of the returned Operation reports it.
func (l *LazyOperation) Get(declare func() (*Operation, error)) *Operation {
	if op := l.op.Load(); op != nil {
		return op
	}
	op, err := declare()
	if err != nil || op == nil {
		if err == nil {
			err = fmt.Errorf("kit: LazyOperation.Get: the declare function returned no operation")
		}
		op = &Operation{err: err}
	}
	return l.store(op)
}

// Of returns the operation [NewOperation] declares for method, path and
// the types params and result point to, declaring it on first use as Get
// does. params and result are typed nil pointers, (*P)(nil) and (*R)(nil);
// a nil params is [NoParams] and a nil result *[Response]. Generated code
// calls Of with constants, which the compiler turns into static data: the
// call costs one atomic load once the operation is declared, and the
// operation no function of its own (Get's declare function is one per
// operation, compiled and linked for each). A params or result that is
// not a pointer makes an operation whose every use reports the mistake.
func (l *LazyOperation) Of(method, path string, params, result any) *Operation {
	if op := l.op.Load(); op != nil {
		return op
	}
	return l.store(declareOf(method, path, params, result, nil))
}

// PagedOf is [LazyOperation.Of] for a paged operation:
// [NewPagedOperation] with record the typed nil pointer (*T)(nil) of the
// records' type (nil: any) and [PagedBy](p). A composite literal of
// constants, such as kit.LinkHeader{}, passed as p is static data too.
func (l *LazyOperation) PagedOf(method, path string, params, record any, p Paginator) *Operation {
	if op := l.op.Load(); op != nil {
		return op
	}
	return l.store(declareOf(method, path, params, record, p))
}

// Private implementation past this point.

// store keeps op unless another goroutine kept one first, and returns the
// kept one.
func (l *LazyOperation) store(op *Operation) *Operation {
	if l.op.CompareAndSwap(nil, op) {
		return op
	}
	return l.op.Load()
}

// declareOf is Of and PagedOf (paged when p is not nil): a declaration
// error, or a typed pointer missing, makes an operation that reports it.
func declareOf(method, path string, params, result any, p Paginator) *Operation {
	pt, err := pointedTo("params", params)
	rt, rerr := pointedTo("result", result)
	if err = cmp.Or(err, rerr); err != nil {
		return &Operation{err: fmt.Errorf("kit: LazyOperation declaring %s %s: %w", method, path, err)}
	}
	var op *Operation
	if p != nil {
		op, err = NewPagedOperation(method, path, pt, rt, PagedBy(p))
	} else {
		op, err = NewOperation(method, path, pt, rt)
	}
	if err != nil {
		return &Operation{err: err}
	}
	return op
}

// pointedTo returns the type x, a typed nil pointer such as (*P)(nil),
// points to; nil for a nil x.
func pointedTo(what string, x any) (reflect.Type, error) {
	if x == nil {
		return nil, nil
	}
	t := reflect.TypeOf(x)
	if t.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("%s is a %v, want a typed nil pointer such as (*%v)(nil)", what, t, t)
	}
	return t.Elem(), nil
}

var anyType = reflect.TypeFor[any]()

func orType(t, def reflect.Type) reflect.Type {
	if t == nil {
		return def
	}
	return t
}

// check reports why op cannot be used by method with params: an
// undeclared operation, a declaration error, a walk of a call or a call of
// a walk, or params of another type.
func (op *Operation) check(method string, params any, paged bool) error {
	switch {
	case op == nil || (op.d == nil && op.err == nil):
		return errorf("Operation."+method, "the operation was not declared (use kit.NewOperation, kit.NewPagedOperation or a kit.LazyOperation)")
	case op.err != nil:
		return errorf("Operation."+method, "%w", op.err)
	case paged && op.slice == nil:
		return errorf(op.d.name, "Operation.%s: the operation is not paged (declare it with kit.NewPagedOperation); call it with CallInto", method)
	case !paged && op.slice != nil:
		return errorf(op.d.name, "Operation.%s: the operation is paged; walk it with Pages or GoPages", method)
	}
	if params == nil {
		if op.d.noArgs {
			return nil
		}
		return errorf(op.d.name, "Operation.%s: params is nil, want %v", method, op.pPtr)
	}
	if t := reflect.TypeOf(params); t != op.pPtr {
		return errorf(op.d.name, "Operation.%s: params is %v, want %v", method, t, op.pPtr)
	}
	if reflect.ValueOf(params).IsNil() {
		return errorf(op.d.name, "Operation.%s: params is a nil %v", method, op.pPtr)
	}
	return nil
}

// pages is Pages and GoPages. It is not inlined: its closures would be
// compiled again in every generated method that walks, for no gain.
//
//go:noinline
func (op *Operation) pages(ctx context.Context, b Binding, params any, async bool, method string, opts []CallOption) iter.Seq2[*OperationPage, error] {
	return func(yield func(*OperationPage, error) bool) {
		walkAny(ctx, async, opPages{op}, func() (*walk, error) {
			if err := op.check(method, params, true); err != nil {
				return nil, err
			}
			return op.d.newWalk(b, params, async, opts)
		}, func(p any, err error) bool {
			page, _ := p.(*OperationPage)
			return yield(page, err)
		})
	}
}

// opPages makes the pages of an Operation's walk.
type opPages struct{ op *Operation }

func (m opPages) newPage(resp *Response) (any, any) {
	return &OperationPage{Response: resp}, reflect.New(m.op.slice).Interface()
}
func (m opPages) typed() bool { return m.op.typed }
func (m opPages) decoded(page, recs any) {
	page.(*OperationPage).Records = reflect.ValueOf(recs).Elem().Interface()
}
