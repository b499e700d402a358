package kit

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/httpsyntax"
	"github.com/kithttp/kit/internal/jsonpath"
)

// WithErrorModel declares the API's error model: the JSON body of every
// non-2xx response is decoded into a new E and kept, as a *E, in
// HTTPError.Model (nil when the body is empty, does not decode into E, or
// is not the model: see [HTTPError] for what makes a body the model, and
// the `kit:",required"` tag). [WithErrorModelFor] gives a model to some
// statuses only.
// When *E implements error, errors.As finds it through the [*HTTPError]:
//
//	var apiErr *APIError // *APIError implements error
//	if errors.As(err, &apiErr) { ... apiErr.Code ... }
//
// Fields of E (a struct) may be filled from the response rather than the
// body, so that the model found with errors.As knows what support asks for:
// an int field tagged `kit:",status"` gets the status code, and a string
// field tagged `kit:"Request-Id,header"` the value of that header ("" when
// absent). These are set after decoding and win over the body.
//
//	type APIError struct {
//		Message   string `json:"message"`
//		Status    int    `json:"-" kit:",status"`
//		RequestID string `json:"-" kit:"Request-Id,header"`
//	}
//
// It is a [RequestOption]: on a client, the model of every request of the
// client (endpoint calls, resource operations, the pages of walks); on a
// declaration, that endpoint's or resource's model, which wins over the
// client's; on a call, that call's model, which wins over both. The body is read
// once, within [MaxErrorBodySize], and decoded once, whatever the number of
// interceptors that look at the error. A `kit:",status"` field that is not
// an integer, or a header field that is not a string or has no header name,
// makes [NewClient], the declaration or the call fail.
func WithErrorModel[E any]() RequestOption {
	return requestOption[errorModelOption]{errorModelOption{newErrorModel[E](nil, "")}}
}

// WithErrorModelAt is [WithErrorModel] for APIs that wrap their error in an
// envelope: E is decoded from the value at path, a dotted key such as
// "error" for Stripe's {"error":{"type":…,"message":…}}. A body without that
// key gives no model (Model is nil), as a body that does not decode does.
// The fields tagged `kit:",status"` and `kit:"Name,header"` are filled as
// with WithErrorModel. A path that is empty or has an empty segment makes
// NewClient, the declaration or the call fail. It is a [RequestOption],
// like WithErrorModel.
func WithErrorModelAt[E any](path string) RequestOption {
	p, err := jsonpath.Parse(path)
	m := newErrorModel[E](p, path)
	if err != nil && m.problem == "" {
		m.problem = fmt.Sprintf("WithErrorModelAt[%s](%q): %v", m.typ, path, err)
	}
	return requestOption[errorModelOption]{errorModelOption{m}}
}

// Private implementation past this point.

// errorModel decodes error bodies into one type.
type errorModel struct {
	typ     reflect.Type
	at      jsonpath.Path   // the model's key in the body; nil: the whole body
	dotted  string          // at, as given
	fields  *responseFields // the fields filled from the response
	problem string          // a mistake in E's tags, reported where the option is used
	shape   *modelShape     // the members that make a body E; nil: any body that decodes
	decode  func(data []byte, dec *jsontext.Decoder) (any, error)
}

func newErrorModel[E any](at jsonpath.Path, dotted string) *errorModel {
	t := reflect.TypeFor[E]()
	m := &errorModel{typ: t, at: at, dotted: dotted, decode: func(data []byte, dec *jsontext.Decoder) (any, error) {
		v := new(E)
		var err error
		if dec != nil {
			err = unmarshalDecode(dec, v)
		} else {
			err = unmarshalJSON(data, v)
		}
		if err != nil {
			return nil, err
		}
		return v, nil
	}}
	f, err := responseFieldsOf(t)
	if err != nil {
		m.problem = fmt.Sprintf("%s: %v", m.name(), err)
	}
	m.fields = f
	m.shape = shapeOf(t)
	return m
}

func (m *errorModel) name() string {
	if m.at != nil {
		return fmt.Sprintf("WithErrorModelAt[%s](%q)", m.typ, m.dotted)
	}
	return fmt.Sprintf("WithErrorModel[%s]()", m.typ)
}

// model decodes body (at the model's key), fills the fields taken from the
// response, or returns nil when the body is not the model (see isModel).
func (m *errorModel) model(status int, header http.Header, body []byte) any {
	if m == nil {
		return nil
	}
	b := bytes.TrimSpace(body)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	var v any
	if m.at == nil {
		if m.isModel(b) {
			v, _ = m.decode(b, nil)
		}
	} else {
		_ = jsonpath.Walk(b, []jsonpath.Path{m.at}, func(_ int, dec *jsontext.Decoder) error {
			raw, err := dec.ReadValue()
			if err != nil || raw.Kind() == 'n' || !m.isModel(raw) {
				return err
			}
			v, err = m.decode(raw, nil)
			return err
		})
	}
	if v == nil {
		return nil
	}
	m.fields.fill(reflect.ValueOf(v).Elem(), status, header)
	return v
}

// responseFields are the fields of a model filled from the response:
// `kit:",status"` and `kit:"Name,header"`. Worked out once per type.
type responseFields struct {
	status  [][]int // indexes of the status fields
	headers []headerField
}

type headerField struct {
	index []int
	name  string // canonical
}

// responseFieldsOf finds the response fields of t; nil when it has none.
func responseFieldsOf(t reflect.Type) (*responseFields, error) {
	if t.Kind() != reflect.Struct {
		return nil, nil
	}
	var f responseFields
	for _, sf := range reflect.VisibleFields(t) {
		tag, ok := sf.Tag.Lookup("kit")
		if !ok || !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		name = strings.TrimSpace(name)
		switch strings.TrimSpace(opts) {
		case "status":
			switch sf.Type.Kind() {
			case reflect.Int, reflect.Int16, reflect.Int32, reflect.Int64:
			default:
				return nil, fmt.Errorf("field %s is tagged kit:\",status\" and is a %s, not an int", sf.Name, sf.Type)
			}
			f.status = append(f.status, sf.Index)
		case "required":
			// A member the body must have (see modelShape); not filled
			// from the response.
		case "header":
			if sf.Type.Kind() != reflect.String {
				return nil, fmt.Errorf("field %s is tagged kit:%q and is a %s, not a string", sf.Name, tag, sf.Type)
			}
			if name == "" || !httpsyntax.IsToken(name) {
				return nil, fmt.Errorf("field %s is tagged kit:%q: a header field needs a header name, as in kit:\"Request-Id,header\"", sf.Name, tag)
			}
			f.headers = append(f.headers, headerField{index: sf.Index, name: http.CanonicalHeaderKey(name)})
		}
	}
	if f.status == nil && f.headers == nil {
		return nil, nil
	}
	return &f, nil
}

// fill sets the response fields of v, a struct of the type f was made for.
func (f *responseFields) fill(v reflect.Value, status int, header http.Header) {
	if f == nil {
		return
	}
	for _, i := range f.status {
		if fv, err := v.FieldByIndexErr(i); err == nil {
			fv.SetInt(int64(status))
		}
	}
	for _, h := range f.headers {
		if fv, err := v.FieldByIndexErr(h.index); err == nil {
			fv.SetString(header.Get(h.name))
		}
	}
}

// errorModelOption is WithErrorModel and WithErrorModelAt. It holds a
// pointer, so it stays comparable.
type errorModelOption struct{ m *errorModel }

func (o errorModelOption) applyRequest(c *requestConfig, _ level) error {
	if o.m.problem != "" {
		return errors.New(o.m.problem)
	}
	c.errorModel = c.errorModel.with(func(ms *errorModels) { ms.all = o.m })
	return nil
}

func (o errorModelOption) String() string { return "kit." + o.m.name() }
