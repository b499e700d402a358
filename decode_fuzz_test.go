package kit

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/kithttp/kit/internal/routing"
)

// fuzzResult is a typed result with validate tags.
type fuzzResult struct {
	ID    int            `json:"id" validate:"gte=0"`
	Name  string         `json:"name" validate:"required,max=32"`
	Email string         `json:"email,omitempty" validate:"omitempty,email"`
	Score float64        `json:"score"`
	Tags  []string       `json:"tags" validate:"max=4"`
	Meta  map[string]any `json:"meta"`
	Next  *string        `json:"next"`
	Inner struct {
		A int  `json:"a"`
		B bool `json:"b"`
	} `json:"inner"`
	Raw any `json:"raw"`
}

// FuzzDecodeResult feeds arbitrary bodies and content types to decodeResult
// for a typed struct, for any and for a slice of structs. It never panics;
// it returns a value or a typed error (*DecodeError, or *ValidationError for
// a typed result), never a non-zero value with an error; and where
// encoding/json accepts the body, kit agrees with it.
func FuzzDecodeResult(f *testing.F) {
	for _, s := range [][2]string{
		{`{"id":1,"name":"ann","email":"ann@example.com","tags":["a"],"inner":{"a":2}}`, "application/json"},
		{`{"id":-1,"name":"x"}`, "application/json; charset=utf-8"},
		{`{"name":""}`, "application/problem+json"},
		{`[{"id":1,"name":"a"},{"id":2,"name":"b","tags":["1","2","3","4","5"]}]`, "application/json"},
		{`{"ID":3,"NAME":"case","Meta":{"k":[1,"2",null]}}`, ""},
		{`{"id":"1","name":"s"}`, "text/json"},
		{`{"id":1,"name":"a"} {"id":2}`, "application/json"},
		{`{"id":1.5,"name":"a"}`, "application/json"},
		{`<html>oops</html>`, "text/html"},
		{`null`, "application/json"},
		{`{"name":"a","raw":1e400}`, "application/json"},
		{`{"name":"a","name":"b"}`, "application/json"},
		{"{\"name\":\"\xff\"}", "application/json"},
		{`{"name":"\ud800"}`, "application/json"},
		{"", "application/json"},
		{`{"name":"a","inner":null,"next":"n","tags":null}`, "bad/content/type;;"},
	} {
		f.Add([]byte(s[0]), s[1])
	}
	st := &clientState{validator: defaultValidator}
	reqURL := &url.URL{Scheme: "http", Host: "example.com", Path: "/things", RawQuery: "token=s3cr3tv4lue"}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		resp := &Response{
			StatusCode: http.StatusOK,
			Header:     http.Header{"Content-Type": {contentType}},
			Request:    &http.Request{Method: http.MethodGet, URL: reqURL},
			body:       body,
		}
		// Where kit's codec (go-json-experiment/json with v1 options) and
		// encoding/json may legitimately differ, results are not compared:
		// bodies with invalid UTF-8 (in strings or as escaped lone
		// surrogates; the two codecs replace or reject them differently)
		// and objects with duplicate names (the v1 options allow them, but
		// how a repeated name merges into a struct, map or any differs).
		// jsontext.Value.IsValid with no options rejects exactly those,
		// and any other invalid JSON.
		strict := jsontext.Value(body).IsValid()

		checkTyped[fuzzResult](t, resp, st, body, contentType, strict)
		checkTyped[[]fuzzResult](t, resp, st, body, contentType, strict)

		got, err := decodeResult[any](routing.ResultRaw, 0, st, resp, nil, nil)
		if err != nil {
			if got != nil {
				t.Fatalf("any: value %#v with error %v", got, err)
			}
			checkDecodeError(t, err, body, contentType)
		}
		if !strict {
			return
		}
		var want any
		if werr := json.Unmarshal(body, &want); werr != nil {
			if err == nil && len(body) > 0 {
				t.Fatalf("any: kit decoded %q, encoding/json: %v", body, werr)
			}
			return
		}
		if err != nil {
			t.Fatalf("any: kit: %v; encoding/json decoded %q", err, body)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("any: kit %#v, encoding/json %#v, for %q", got, want, body)
		}
	})
}

// checkTyped decodes body into R through decodeResult and checks it.
func checkTyped[R any](t *testing.T, resp *Response, st *clientState, body []byte, contentType string, strict bool) {
	t.Helper()
	got, err := decodeResult[R](routing.ResultTyped, 0, st, resp, nil, nil)
	var zero R
	if err != nil {
		if !reflect.DeepEqual(got, zero) {
			t.Fatalf("%T: value %#v with error %v", got, got, err)
		}
		var ve *ValidationError
		if !errors.As(err, &ve) {
			checkDecodeError(t, err, body, contentType)
		} else if len(ve.Fields) == 0 && ve.Err == nil {
			t.Fatalf("%T: empty validation error %v", got, err)
		}
	}
	if len(body) == 0 {
		if err != nil || !reflect.DeepEqual(got, zero) {
			t.Fatalf("%T: empty body gave %#v, %v; want the zero value", got, got, err)
		}
		return
	}
	if !strict {
		return
	}
	var want R
	if werr := json.Unmarshal(body, &want); werr != nil {
		if err == nil {
			t.Fatalf("%T: kit decoded %q, encoding/json: %v", got, body, werr)
		}
		return
	}
	if verr := validateValue(st.validator, reflect.ValueOf(&want).Elem()); verr != nil {
		var ve *ValidationError
		if err == nil || !errors.As(err, &ve) {
			t.Fatalf("%T: %q does not validate (%v); kit gave %v", got, body, verr, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%T: kit: %v; encoding/json decoded %q", got, err, body)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%T: kit %#v, encoding/json %#v, for %q", got, got, want, body)
	}
}

// checkDecodeError checks that err is a well-formed *DecodeError.
func checkDecodeError(t *testing.T, err error, body []byte, contentType string) {
	t.Helper()
	var de *DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("error %v (%T) is not a *DecodeError", err, err)
	}
	if de.ContentType != contentType || de.Method != http.MethodGet || de.Err == nil {
		t.Fatalf("DecodeError %+v: want content type %q, method GET and a cause", de, contentType)
	}
	if de.Offset < 0 || de.Offset > int64(len(body)) {
		t.Fatalf("DecodeError offset %d outside a %d-byte body", de.Offset, len(body))
	}
	// The request's token must not show, unless the body or content type
	// itself holds the text.
	const secret = "s3cr3tv4lue"
	msg := de.Error()
	if msg == "" || strings.Contains(msg, secret) && !strings.Contains(string(body)+contentType, secret) {
		t.Fatalf("DecodeError message %q", msg)
	}
}
