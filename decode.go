package kit

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"

	"github.com/kithttp/kit/internal/jsonpath"
	"github.com/kithttp/kit/internal/routing"
)

// Private implementation past this point.

// decodeResultInto turns a response into the endpoint's result in *out
// (out is a *R). kind is how R is made; inner, for R = Result[T], how T
// is. sc is the call of a result that is a Stream; nil for the others.
// at, when set, is the key R (or T) is decoded from (WithResultAt). On
// failure *out is what failInto leaves: never a partly decoded value.
func decodeResultInto(kind, inner routing.ResultKind, st *clientState, resp *Response, sc *streamCall, at jsonpath.Path, out any) error {
	if kind == routing.ResultResponse {
		if p, ok := out.(**Response); ok {
			*p = resp
			return nil
		}
	}
	if kind == routing.ResultWrapped {
		c := out.(resultCarrier)
		c.setResponse(resp)
		if err := decodeInto(inner, st, resp, c.valuePtr(), sc, at); err != nil {
			return failInto(out, err, resp)
		}
		return nil
	}
	if err := decodeInto(kind, st, resp, out, sc, at); err != nil {
		return failInto(out, err, nil)
	}
	return nil
}

// decodeResult is decodeResultInto returning the R.
func decodeResult[R any](kind, inner routing.ResultKind, st *clientState, resp *Response, sc *streamCall, at jsonpath.Path) (R, error) {
	var out R
	err := decodeResultInto(kind, inner, st, resp, sc, at, &out)
	return out, err
}

// failedResult is the R returned with err: the zero R, except that a
// Result[T] gets a Response (see failInto).
func failedResult[R any](err error, resp *Response) (R, error) {
	var out R
	return out, failInto(&out, err, resp)
}

// failInto sets *out (out is a *R) to what is returned with err and
// returns err: the zero R, except that a Result[T] gets a Response (resp,
// else one with the status and headers of an *HTTPError in err, else an
// empty one), so that reading its status or headers does not panic.
func failInto(out any, err error, resp *Response) error {
	if v := reflect.ValueOf(out); v.Kind() == reflect.Pointer && !v.IsNil() && !v.Elem().IsZero() {
		v.Elem().SetZero()
	}
	c, ok := out.(resultCarrier)
	if !ok {
		return err
	}
	if resp == nil {
		resp = &Response{Header: http.Header{}}
		var he *HTTPError
		if errors.As(err, &he) {
			resp.StatusCode, resp.Header = he.StatusCode, he.Header
			if resp.Header == nil {
				resp.Header = http.Header{}
			}
		}
	}
	c.setResponse(resp)
	return err
}

// decodeInto makes the result of the given kind from resp in *ptr.
func decodeInto(kind routing.ResultKind, st *clientState, resp *Response, ptr any, sc *streamCall, at jsonpath.Path) error {
	switch kind {
	case routing.ResultRecords:
		return sc.open.openStream(ptr, st, resp, sc)
	case routing.ResultResponse:
		*ptr.(**Response) = resp
		return nil
	case routing.ResultBody:
		if sc != nil {
			*ptr.(*io.ReadCloser) = newDownload(st, resp, sc)
		} else {
			*ptr.(*io.ReadCloser) = resp.takeStream()
		}
		return nil
	case routing.ResultRaw:
		if len(resp.body) == 0 {
			return nil
		}
		var v any
		if err := decodeValue(resp, at, &v); err != nil {
			return err
		}
		if v != nil {
			reflect.ValueOf(ptr).Elem().Set(reflect.ValueOf(v))
		}
		return nil
	}
	if len(resp.body) == 0 {
		return nil
	}
	if err := decodeValue(resp, at, ptr); err != nil {
		return err
	}
	if err := validateValue(st.validator, reflect.ValueOf(ptr).Elem()); err != nil {
		return errorf(resp.redact.op(resp.Request.Method, resp.Request.URL), "response: %w", err)
	}
	return nil
}

// decodeBody decodes the response body into v, reporting failures as a
// *DecodeError.
func decodeBody(resp *Response, v any) error {
	var err error
	if len(resp.body) == 0 {
		err = errors.New("empty body")
	} else {
		err = unmarshalJSON(resp.body, v)
	}
	if err == nil {
		return nil
	}
	return decodeError(resp, v, err)
}

// decodeValue decodes the body into v, or the value at the key at when set.
func decodeValue(resp *Response, at jsonpath.Path, v any) error {
	if at != nil {
		return decodeAt(resp, at, v)
	}
	return decodeBody(resp, v)
}

// decodeError is the *DecodeError of decoding resp's body into v.
func decodeError(resp *Response, v any, err error) *DecodeError {
	de := &DecodeError{
		ContentType: resp.Header.Get("Content-Type"),
		Want:        fmt.Sprintf("%T", v),
		Offset:      max(jsonErrorOffset(err), 0),
		Err:         err,
	}
	if t := reflect.TypeOf(v); t != nil && t.Kind() == reflect.Pointer {
		de.Want = t.Elem().String()
	}
	if resp.Request != nil {
		de.Method, de.URL = resp.Request.Method, resp.redact.url(resp.Request.URL)
	}
	if mt, _, perr := mime.ParseMediaType(de.ContentType); perr == nil && !isJSONMediaType(mt) && de.ContentType != "" {
		de.Err = fmt.Errorf("content type is not JSON: %w", err)
	}
	return de
}

func isJSONMediaType(mt string) bool {
	return mt == "application/json" || len(mt) > 5 && mt[len(mt)-5:] == "+json" || mt == "text/json"
}
