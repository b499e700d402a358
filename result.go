package kit

import (
	"reflect"
	"strings"
)

// Result is a result with the response it came from: R = Result[T] decodes
// and validates Value exactly as R = T would, and keeps the response's
// status, headers (an ETag, rate-limit headers, a Location) and Request
// beside it. It works wherever an R is accepted: Call, Go and the other
// places an endpoint's result is returned. T may be io.ReadCloser (a
// streamed body, with its headers), any, or *Response.
//
//	var getRepo = kit.Get[RepoParams, kit.Result[Repo]]("/repos/{owner}/{repo}")
//
//	r, err := getRepo.Call(ctx, c, p)
//	fmt.Println(r.Value.Name, r.Header.Get("ETag"), r.Header.Get("X-RateLimit-Remaining"))
//
// The Response of a streamed result (T = io.ReadCloser) has no body bytes:
// the body is Value.
type Result[T any] struct {
	Value     T // decoded and validated as R = T would be
	*Response   // status, headers, Request
}

// Private implementation past this point.

// resultCarrier is implemented by *Result[T]: decodeResult fills a Result
// through it without knowing T.
type resultCarrier interface {
	setResponse(*Response)
	valuePtr() any // &Value
}

func (r *Result[T]) setResponse(resp *Response) { r.Response = resp }
func (r *Result[T]) valuePtr() any              { return &r.Value }

var resultCarrierType = reflect.TypeFor[resultCarrier]()

// isResultType reports whether t is an instance of Result (not a type that
// embeds one).
func isResultType(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == responseType.Elem().PkgPath() &&
		strings.HasPrefix(t.Name(), "Result[") && reflect.PointerTo(t).Implements(resultCarrierType)
}
