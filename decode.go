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

// decodeResult turns a response into the endpoint's result. kind is how R
// is made; inner, for R = Result[T], how T is. sc is the call of a result
// that is a Stream; nil for the others.
// at, when set, is the key R (or T) is decoded from (WithResultAt).
func decodeResult[R any](kind, inner routing.ResultKind, st *clientState, resp *Response, sc *streamCall, at jsonpath.Path) (R, error) {
	if kind == routing.ResultResponse {
		if r, ok := any(resp).(R); ok {
			return r, nil // without the boxing of &out below
		}
	}
	var out R
	if kind == routing.ResultWrapped {
		c := any(&out).(resultCarrier)
		c.setResponse(resp)
		if err := decodeInto(inner, st, resp, c.valuePtr(), sc, at); err != nil {
			return failedResult[R](kind, err, resp) // not a partly decoded value
		}
		return out, nil
	}
	if err := decodeInto(kind, st, resp, &out, sc, at); err != nil {
		var zero R
		return zero, err
	}
	return out, nil
}

// failedResult is the R returned with err: the zero R, except that a
// Result[T] gets a Response (resp, else one with the status and headers of
// an *HTTPError in err, else an empty one), so that reading its status or
// headers does not panic.
func failedResult[R any](kind routing.ResultKind, err error, resp *Response) (R, error) {
	var out R
	if kind != routing.ResultWrapped {
		return out, err
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
	any(&out).(resultCarrier).setResponse(resp)
	return out, err
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
		*ptr.(*io.ReadCloser) = resp.takeStream()
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
