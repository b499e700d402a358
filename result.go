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
//
// A Result returned with an error is safe to read: its Response is never
// nil. After an *HTTPError it holds that response's status and headers
// (Request-Id, Retry-After); after an error with no response, a zero status
// and empty headers. Value is then the zero T.
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

// zeroFor is the T returned with err when nothing was decoded: the zero T,
// or a Result whose Response is safe to read (see failInto).
func zeroFor[T any](err error) T {
	v, _ := failedResult[T](err, nil)
	return v
}
