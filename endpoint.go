package kit

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/kithttp/kit/internal/httpsyntax"
	"github.com/kithttp/kit/internal/pathtmpl"
	"github.com/kithttp/kit/internal/routing"
)

// Endpoint is a typed HTTP endpoint: a method and a path template, a
// parameter type P whose fields are routed into the path, query, headers
// and JSON body, and a result type R into which the response is decoded and
// validated. Declare endpoints once, as package-level variables; an
// Endpoint is immutable and safe for concurrent use.
//
// R may be *Response (the raw response, nothing decoded), any (raw JSON:
// objects decode to map[string]any), io.ReadCloser (the body, unread: see
// below), *Stream[T] (records decoded one at a time as the caller ranges:
// server-sent events, NDJSON, JSON Lines, json-seq or a huge JSON array; see
// [Stream]) or Result[T] (T as R = T would be, with the response). A 2xx
// response with an empty body (such as 204 No Content) gives the zero R (nil
// for pointer, slice, map and any) without validation; a *Response result
// still carries status and headers.
//
// With R = io.ReadCloser (or Result[io.ReadCloser]) the call returns once
// the status and headers of a 2xx response have arrived; the caller reads
// the body, whatever its size ([WithMaxBodySize] does not apply), and must
// close it, which releases the connection, the endpoint's [WithTimeout] and,
// on an [AsyncClient], the request's in-flight slot (so [Limits].MaxInFlight
// bounds open downloads) and the call that Close waits for. The body is
// also closed when the call's context ends. Reading errors say what was
// being read; a body cut short is not retried.
type Endpoint[P, R any] struct {
	d *endpointDecl
}

// Get declares a GET endpoint. It panics with a [*DeclarationError] on a bad
// declaration, so mistakes fail at program start; see [NewEndpoint].
func Get[P, R any](path string, opts ...EndpointOption) *Endpoint[P, R] {
	return mustEndpoint[P, R](http.MethodGet, path, opts)
}

// Post declares a POST endpoint. It panics with a [*DeclarationError] on a bad
// declaration.
func Post[P, R any](path string, opts ...EndpointOption) *Endpoint[P, R] {
	return mustEndpoint[P, R](http.MethodPost, path, opts)
}

// Put declares a PUT endpoint. It panics with a [*DeclarationError] on a bad
// declaration.
func Put[P, R any](path string, opts ...EndpointOption) *Endpoint[P, R] {
	return mustEndpoint[P, R](http.MethodPut, path, opts)
}

// Delete declares a DELETE endpoint. It panics with a [*DeclarationError] on a
// bad declaration.
func Delete[P, R any](path string, opts ...EndpointOption) *Endpoint[P, R] {
	return mustEndpoint[P, R](http.MethodDelete, path, opts)
}

// Patch declares a PATCH endpoint. It panics with a [*DeclarationError] on a
// bad declaration.
func Patch[P, R any](path string, opts ...EndpointOption) *Endpoint[P, R] {
	return mustEndpoint[P, R](http.MethodPatch, path, opts)
}

// NewEndpoint declares an endpoint with any method, returning a
// [*DeclarationError] on a bad declaration: a method that is not an HTTP
// token, a malformed path, a {placeholder} with no field of that name, two
// body fields, or a P that is not a struct, a map or [NoParams].
func NewEndpoint[P, R any](method, path string, opts ...EndpointOption) (*Endpoint[P, R], error) {
	d, err := newEndpointDecl(method, path, reflect.TypeFor[P](), reflect.TypeFor[R](), opts)
	if err != nil {
		return nil, err
	}
	return &Endpoint[P, R]{d: d}, nil
}

// Call sends the request through b's engine, which must implement [Engine],
// and returns the decoded, validated result. A non-2xx status gives an
// [*HTTPError]; a body that does not decode, a [*DecodeError]; a model that does
// not validate, a [*ValidationError] (before sending, for a request body). A
// 401 on an endpoint that uses auth refreshes a [Refresher] auth once and
// resends once. opts apply to this call only (see [CallOption]).
//
// With R = [Result][T], the Result returned with an error is safe to read:
// its Response holds the status and headers of an [*HTTPError], or is empty.
func (e *Endpoint[P, R]) Call(ctx context.Context, b Binding, params P, opts ...CallOption) (R, error) {
	a := &callArgs[P, R]{params: params}
	err := e.decl().call(ctx, b, "Endpoint.Call", &a.params, &a.out, &a.room, opts)
	return a.out, err
}

// Go starts the call on b's engine, which must implement [AsyncEngine], and
// returns at once with a [Future] of what Call would return: the same
// decoded, validated result, or the same [*HTTPError], [*DecodeError] or
// [*ValidationError], with the same refresh-and-resend once on a 401. params
// are read before Go returns; the caller may reuse them.
//
// The returned Future is already done, and nothing is sent, when b is nil,
// when b's engine lacks AsyncEngine (an [*EngineError] naming kit.AsyncEngine
// and the endpoint), when the client was closed (an error matching
// [ErrClosed]), or when params do not make a valid request (a path value, a
// body that does not validate, ...).
//
// ctx bounds the call (Await takes its own context for the waiting):
// cancelling it stops the request, and the Future then holds an error
// matching context.Canceled. A call that Close cancels holds one matching
// both context.Canceled and ErrClosed. Go is safe for concurrent use; each
// call is independent.
//
// opts apply to this call only (see CallOption).
func (e *Endpoint[P, R]) Go(ctx context.Context, b Binding, params P, opts ...CallOption) *Future[R] {
	a := &goArgs[P, R]{params: params, f: Future[R]{fc: futureCore{done: make(chan struct{})}}}
	e.decl().goCall(ctx, b, "Endpoint.Go", &a.params, &a.room, &a.f.fc, &a.f.val, opts)
	return &a.f
}

// String returns the declaration, e.g. "GET /users/{id}".
func (e *Endpoint[P, R]) String() string {
	if e == nil || e.d == nil {
		return "<undeclared kit.Endpoint>"
	}
	return e.d.name
}

// Private implementation past this point.

// decl returns the declaration; nil for a nil or zero Endpoint (one not
// made by Get, Post, ... or NewEndpoint), which call and goCall report.
func (e *Endpoint[P, R]) decl() *endpointDecl {
	if e == nil {
		return nil
	}
	return e.d
}

// undeclared is the error of a call of a nil or zero Endpoint; method is
// "Endpoint.Call" or "Endpoint.Go".
func undeclared(method string) error {
	return errorf(method, "the endpoint was not declared (use kit.Get, kit.Post, kit.Put, kit.Delete, kit.Patch or kit.NewEndpoint)")
}

// call is Call's non-generic core: params is a *P, out a *R set to the
// decoded, validated result (or to what failInto leaves, with the error).
// room, when not nil, holds the call's path values and request.
func (d *endpointDecl) call(ctx context.Context, b Binding, method string, params any, out any, room *callRoom, opts []CallOption) error {
	if d == nil {
		return failInto(out, undeclared(method), nil)
	}
	st, err := d.state(b)
	if err != nil {
		return failInto(out, err, nil)
	}
	chain, err := st.chainFor(false, d.name)
	if err != nil {
		return failInto(out, err, nil)
	}
	req, err := d.requestWith(st, params, room, opts)
	if err != nil {
		return failInto(out, err, nil)
	}
	sc := d.newStreamCall(ctx, st, chain, req)
	req.decodes = true
	resp, err := st.send(ctx, chain, req)
	if err != nil {
		return failInto(out, err, nil)
	}
	err = decodeResultInto(d.result, d.inner, st, resp, sc, req.resultPath(), out)
	return st.decoded(req, resp, err)
}

// goCall is Go's non-generic core: params is a *P routed now; out, a *R,
// is the value beside fc, filled on the call's goroutine.
func (d *endpointDecl) goCall(ctx context.Context, b Binding, method string, params any, room *callRoom, fc *futureCore, out any, opts []CallOption) {
	if d == nil {
		fc.fail(out, undeclared(method))
		return
	}
	st, err := d.state(b)
	if err != nil {
		fc.fail(out, err)
		return
	}
	chain, err := st.chainFor(true, d.name)
	if err != nil {
		fc.fail(out, err)
		return
	}
	if err := st.closedError(d.name); err != nil {
		fc.fail(out, err)
		return
	}
	req, err := d.requestWith(st, params, room, opts)
	if err != nil {
		fc.fail(out, err)
		return
	}
	st.goInto(ctx, d.name, fc, out, func(ctx context.Context) error {
		sc := d.newStreamCall(ctx, st, chain, req)
		req.decodes = true
		resp, err := st.send(ctx, chain, req)
		if err != nil {
			return failInto(out, err, nil)
		}
		err = decodeResultInto(d.result, d.inner, st, resp, sc, req.resultPath(), out)
		return st.decoded(req, resp, err)
	})
}

func mustEndpoint[P, R any](method, path string, opts []EndpointOption) *Endpoint[P, R] {
	e, err := NewEndpoint[P, R](method, path, opts...)
	if err != nil {
		panic(err)
	}
	return e
}

// endpointConfig collects what the endpoint options set.
type endpointConfig struct {
	requestConfig // the request options: this endpoint's, over the client's
	problem       string
	bodyEnc       bodyEncoding // FormBody, Multipart; JSON by default
	paging        pagingConfig // PagedBy: paged endpoints only
	formStyle     FormStyle    // FormBody's style
}

// endpointDecl is everything about an endpoint that does not depend on the
// call: worked out once at declaration. It is not generic, so the typed
// wrappers stay thin.
type endpointDecl struct {
	method string
	name   string
	tmpl   *pathtmpl.Template
	// secretPath: a placeholder of tmpl has a secret-looking name, whose
	// value is redacted wherever the URL is reported.
	secretPath bool
	plan       *paramPlan
	noArgs     bool // P has nothing to route
	// origin is the scheme and host of an absolute path's URL; nil for a
	// path below the base URL.
	origin *url.URL
	result routing.ResultKind
	inner  routing.ResultKind // R = Result[T]: how T is made
	rType  reflect.Type
	// records makes the result of R = *Stream[T] (or Result[*Stream[T]]);
	// nil for other results.
	records recordsOpener
	// decoded says that R (or T of R = Result[T]) is decoded from JSON, for
	// WithResultAt; false for a paged endpoint.
	decoded bool
	// clientTimeout is this declaration's policy with a client's
	// WithTimeout (see clientState.withTimeout).
	clientTimeout atomic.Pointer[clientTimeout]
	endpointConfig
}

var (
	responseType   = reflect.TypeFor[*Response]()
	readCloserType = reflect.TypeFor[io.ReadCloser]()
)

func newEndpointDecl(method, path string, pType, rType reflect.Type, opts []EndpointOption) (*endpointDecl, error) {
	return declare(method, path, pType, rType, opts, false)
}

// declare checks and makes the declaration of an endpoint, or of a paged
// endpoint (paged: rType is the record type, and pagination options apply).
func declare(method, path string, pType, rType reflect.Type, opts []EndpointOption, paged bool) (*endpointDecl, error) {
	declErr := func(format string, args ...any) error {
		return &DeclarationError{Method: method, Path: path, Reason: fmt.Sprintf(format, args...)}
	}
	if !httpsyntax.IsToken(method) {
		return nil, declErr("method %q is not an HTTP method token", method)
	}
	d := &endpointDecl{method: method, name: method + " " + path, rType: rType}
	for _, o := range opts {
		if o != nil {
			o.applyEndpoint(&d.endpointConfig)
		}
	}
	if d.problem != "" {
		return nil, declErr("%s", d.problem)
	}
	if paged {
		if err := d.paging.complete(method); err != nil {
			return nil, declErr("%v", err)
		}
	} else if opt := cmp.Or(d.paging.option, d.pagingOption); opt != "" {
		return nil, declErr("%s applies to a paged endpoint (kit.Paged) or a resource, not to an endpoint declared with kit.%s", opt, declaredWith(method))
	}
	tmpl, err := pathtmpl.Parse(path)
	if err != nil {
		return nil, declErr("%v", err)
	}
	d.tmpl, d.secretPath = tmpl, hasSecretPlaceholder(tmpl)
	if tmpl.Origin != "" {
		if o, err := url.Parse(tmpl.Origin); err == nil {
			d.origin = &url.URL{Scheme: o.Scheme, Host: o.Host}
		}
	}
	if pType == noParamsType || (pType != nil && pType.Kind() == reflect.Struct && pType.NumField() == 0) {
		d.noArgs = true
		if len(tmpl.Placeholders) > 0 {
			return nil, declErr("placeholder {%s} has no field: P is %s", tmpl.Placeholders[0], pType)
		}
	} else {
		plan, err := newParamPlan(pType, tmpl.Placeholders)
		if err != nil {
			return nil, declErr("%v", err)
		}
		d.plan = plan
		if paged {
			for _, f := range plan.fields {
				switch f.route {
				case routing.URL:
					// A walk starts from the collection its path names,
					// on an origin fixed at declaration: a URL given at
					// run time would be ignored, or would move the walk
					// (and the base URL's query) where a server said.
					return nil, declErr("field %s is a `kit:\",url\"` field, which a paged endpoint does not take: its walk starts at its path (declare the collection's URL as the path, or follow a link with an Endpoint)", f.goName)
				case routing.RawFile:
					return nil, declErr("field %s is a kit.File, which would be the request body; a paged endpoint sends GET requests without a body (or, with kit.PagedPost, a JSON object)", f.goName)
				}
			}
		}
	}
	if paged && rType == responseType {
		return nil, declErr("record type *kit.Response: records are decoded from JSON; use a data model, or any for raw JSON (Pages gives each page's *kit.Response)")
	}
	if d.result, d.inner, err = routing.Result(reflectType{rType}); err != nil {
		return nil, declErr("%v", err)
	}
	switch {
	case d.result == routing.ResultRecords:
		d.records = reflect.Zero(rType).Interface().(recordsOpener)
	case d.inner == routing.ResultRecords:
		d.records = reflect.Zero(rType.Field(0).Type).Interface().(recordsOpener)
	}
	d.stream = d.result == routing.ResultBody || d.inner == routing.ResultBody || d.records != nil
	decoded := func(k routing.ResultKind) bool { return k == routing.ResultTyped || k == routing.ResultRaw }
	d.decoded = !paged && (d.result == routing.ResultWrapped && decoded(d.inner) || d.result != routing.ResultWrapped && decoded(d.result))
	if d.resultAt != nil {
		if paged {
			return nil, declErr("WithResultAt applies to an endpoint; a paged endpoint's paginator says where the records are (its ItemsKey)")
		}
		if !d.decoded {
			return nil, declErr("WithResultAt(%q): the result type %s is not decoded from JSON", d.resultAt.String(), rType)
		}
	}
	if err := d.checkBody(); err != nil {
		return nil, declErr("%v", err)
	}
	return d, nil
}

// checkBody checks the body field of P against the method and the body
// encoding of the declaration, by the rules of internal/routing.
func (d *endpointDecl) checkBody() error {
	var body *routing.Field
	route, dynamic := routing.None, d.plan != nil && d.plan.dynamic
	var t reflect.Type
	if bf := d.plan.bodyField(); bf != nil {
		t = d.plan.fieldType(bf)
		body = &routing.Field{GoName: bf.goName, T: reflectType{t}, Class: bf.class.Class, Name: bf.name, Mark: bf.mark}
		route = bf.route
	}
	walk, err := routing.Tags.Body(d.method, d.bodyEnc, body, route, dynamic)
	if err != nil || !walk {
		return err
	}
	if d.bodyEnc == encJSON {
		return jsonFileField(t)
	}
	if d.bodyEnc == encForm {
		_, err = formModelFor(t)
		return err
	}
	_, err = multipartPlanFor(t)
	return err
}

// state returns the binding's client state.
func (d *endpointDecl) state(b Binding) (*clientState, error) {
	if b == nil {
		return nil, errorf(d.name, "%w", ErrNilBinding)
	}
	st := b.binding()
	if st == nil {
		return nil, errorf(d.name, "%w (%T)", ErrNilBinding, b)
	}
	return st, nil
}

// request routes the call's parameters (params is a *P) and builds the
// request to send. It validates and encodes the body; nothing is sent when
// it fails.
func (d *endpointDecl) request(st *clientState, params any, opts []CallOption) (*Request, error) {
	return d.requestWith(st, params, nil, opts)
}

// requestWith is request making the path's values and the request in
// room, when it is not nil (see routeWith and buildIn).
func (d *endpointDecl) requestWith(st *clientState, params any, room *callRoom, opts []CallOption) (*Request, error) {
	var slots *pathSlots
	var box *requestBox
	if room != nil {
		slots, box = &room.slots, &room.box
	}
	r, err := d.routeWith(params, slots)
	if err != nil {
		return nil, err
	}
	if r.call, err = d.settings(st, opts); err != nil {
		return nil, err
	}
	at, err := d.resultPath(st, r.call, d.decoded)
	if err != nil {
		return nil, err
	}
	req, err := st.builder.buildIn(d, &r, "", box)
	if err != nil {
		return nil, err
	}
	req.resultAt = at
	return req, nil
}

// route routes the call's parameters (params is a *P).
func (d *endpointDecl) route(params any) (routed, error) { return d.routeWith(params, nil) }

// routeWith is route putting the path's values in slots when they fit (nil:
// it allocates them).
func (d *endpointDecl) routeWith(params any, slots *pathSlots) (routed, error) {
	r := routed{names: d.tmpl.Placeholders}
	switch n := len(r.names); {
	case n > 0 && n <= len(pathSlots{}.vals):
		if slots == nil {
			slots = new(pathSlots) // one allocation for both
		}
		r.vals, r.filled = slots.vals[:n:n], slots.filled[:n:n]
	case n > 0:
		r.vals = make([]string, n)
		r.filled = make([]bool, n)
	}
	if !d.noArgs {
		v := reflect.ValueOf(params).Elem()
		if err := d.plan.apply(v, &r); err != nil {
			return routed{}, errorf(d.name, "%w", err)
		}
	}
	return r, nil
}

// pathSlots holds the values of a path with few placeholders.
type pathSlots struct {
	vals   [4]string
	filled [4]bool
}

// callArgs is what Call allocates for a call, in one piece: its
// parameters (which escape, being routed by reflection), its result (which
// escapes, being decoded by reflection) and room for its path's values and
// its request.
type callArgs[P, R any] struct {
	params P
	out    R
	room   callRoom
}

// goArgs is what Go allocates for a call, in one piece: its parameters,
// room, and the Future of its result.
type goArgs[P, R any] struct {
	params P
	room   callRoom
	f      Future[R]
}

// callRoom is room for a call's path values and its request.
type callRoom struct {
	slots pathSlots
	box   requestBox
}

// declaredWith names the function that declares endpoints of method.
func declaredWith(method string) string {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch:
		return method[:1] + strings.ToLower(method[1:])
	}
	return "NewEndpoint"
}
