package kit

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"reflect"

	"github.com/kithttp/kit/internal/routing"
)

// Private implementation past this point.

// decodeResult turns a response into the endpoint's result. kind is how R
// is made; inner, for R = Result[T], how T is. sc is the call of a result
// that is a Stream; nil for the others.
func decodeResult[R any](kind, inner routing.ResultKind, st *clientState, resp *Response, sc *streamCall) (R, error) {
	var out R
	if kind == routing.ResultWrapped {
		c := any(&out).(resultCarrier)
		c.setResponse(resp)
		if err := decodeInto(inner, st, resp, c.valuePtr(), sc); err != nil {
			var zero R // not a partly decoded value
			return zero, err
		}
		return out, nil
	}
	if err := decodeInto(kind, st, resp, &out, sc); err != nil {
		var zero R
		return zero, err
	}
	return out, nil
}

// decodeInto makes the result of the given kind from resp in *ptr.
func decodeInto(kind routing.ResultKind, st *clientState, resp *Response, ptr any, sc *streamCall) error {
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
		if err := decodeBody(resp, &v); err != nil {
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
	if err := decodeBody(resp, ptr); err != nil {
		return err
	}
	if err := validateValue(st.validator, reflect.ValueOf(ptr).Elem()); err != nil {
		return errorf(st.opOf(resp.Request.Method, resp.Request.URL), "response: %w", err)
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
		de.Method, de.URL = resp.Request.Method, resp.secrets.redact(resp.Request.URL)
	}
	if mt, _, perr := mime.ParseMediaType(de.ContentType); perr == nil && !isJSONMediaType(mt) && de.ContentType != "" {
		de.Err = fmt.Errorf("content type is not JSON: %w", err)
	}
	return de
}

func isJSONMediaType(mt string) bool {
	return mt == "application/json" || len(mt) > 5 && mt[len(mt)-5:] == "+json" || mt == "text/json"
}
