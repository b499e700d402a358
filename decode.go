package kit

import (
	"errors"
	"fmt"
	"mime"
	"reflect"
)

// Private implementation past this point.

// decodeResult turns a read response into the endpoint's result.
func decodeResult[R any](kind resultKind, st *clientState, resp *Response) (R, error) {
	var out R
	switch kind {
	case resultResponse:
		*any(&out).(**Response) = resp
		return out, nil
	case resultRaw:
		if len(resp.body) == 0 {
			return out, nil
		}
		var v any
		if err := decodeBody(resp, &v); err != nil {
			return out, err
		}
		out, _ = v.(R)
		return out, nil
	}
	if len(resp.body) == 0 {
		return out, nil
	}
	if err := decodeBody(resp, &out); err != nil {
		var zero R // not a partly decoded value
		return zero, err
	}
	if err := validateValue(st.validator, reflect.ValueOf(&out).Elem()); err != nil {
		var zero R
		return zero, errorf(st.opOf(resp.Request.Method, resp.Request.URL), "response: %w", err)
	}
	return out, nil
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
