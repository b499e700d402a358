package kit

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/jsonpath"
	"github.com/kithttp/kit/internal/pagescan"
)

// WithQuery sets the query parameter key to value on a request, replacing
// every value the request's parameters (or the base URL, or a next-page
// link) gave it. It is for what the endpoint's declaration does not
// name: a parameter the API added after the client was written, a debug
// flag, an undocumented filter:
//
//	users, err := listUsers.Call(ctx, c, p, kit.WithQuery("include", "deleted"))
//
// It is a [RequestOption]: given to a client, it is on every request of
// the client; to a declaration, on every request of that endpoint or
// resource; to a call, on every request of that call (every page of a
// walk too: a parameter that the walk's paginator sets, such as its page
// number or cursor, is then the option's on every page, and the walk ends
// with [ErrPageLoop]). When several levels set the same key, the call's
// value wins over the declaration's, which wins over the client's; at one
// level the last given wins. An empty key makes NewClient, the
// declaration or the call fail. Its String leaves the value out, as a
// value may be a secret.
func WithQuery(key, value string) RequestOption {
	return requestOption[extraOption]{extraOption{&extraField{query: true, key: key, value: value}}}
}

// WithJSONField sets the member at path of a request's JSON body to value,
// encoded as kit encodes bodies, replacing what the body model gave it. It
// is for what the body model does not name: a member the API added after
// the model was written, or a value the model cannot express:
//
//	_, err := createUser.Call(ctx, c, p, kit.WithJSONField("metadata.source", "import"))
//
// path is a member name, or dotted names for a member of a member
// ("metadata.source"); the objects on the way are made when the body has
// none. A request without a body (a POST whose P has no body field) gets
// one: a JSON object of the fields set. For a form body ([FormBody]), the
// member is a form field, written with brackets for a dotted path
// (metadata[source]), and value must be a string, a number, a boolean or
// nil (nil removes the field). A multipart or file body, a member on the
// way that is not an object, or a GET or HEAD request makes the call fail
// before anything is sent. value is encoded when WithJSONField is called:
// changing it afterwards changes nothing.
//
// It is a [RequestOption], with the levels of [WithQuery]: the client's
// fields are set first, then the declaration's, then the call's, so that
// the nearest wins for the same path. A path that is empty or has an empty
// segment, or a value that cannot be encoded, makes NewClient, the
// declaration or the call fail. Its String leaves the value out.
func WithJSONField(path string, value any) RequestOption {
	f := &extraField{key: path}
	p, err := jsonpath.Parse(path)
	if err != nil {
		f.problem = fmt.Sprintf("%s: %v", f, err)
		return requestOption[extraOption]{extraOption{f}}
	}
	f.path = p
	b, err := marshalJSON(value)
	if err != nil {
		f.problem = fmt.Sprintf("%s: encoding the value: %v", f, err)
	}
	f.json = jsontext.Value(b)
	return requestOption[extraOption]{extraOption{f}}
}

// Private implementation past this point.

// extraField is one WithQuery or WithJSONField.
type extraField struct {
	query   bool           // WithQuery; else WithJSONField
	key     string         // the query parameter, or the dotted path
	value   string         // WithQuery's value
	path    jsonpath.Path  // WithJSONField's path
	json    jsontext.Value // WithJSONField's value, encoded
	problem string
}

func (f *extraField) String() string {
	if f.query {
		return fmt.Sprintf("WithQuery(%q, ...)", f.key)
	}
	return fmt.Sprintf("WithJSONField(%q, ...)", f.key)
}

// extraFields is what WithQuery and WithJSONField set at one level.
type extraFields struct {
	query []*extraField
	json  []*extraField
}

// extraOption is WithQuery and WithJSONField. It holds a pointer, so it
// stays comparable.
type extraOption struct{ f *extraField }

func (o extraOption) applyRequest(c *requestConfig, _ level) error {
	f := o.f
	if f.problem != "" {
		return fmt.Errorf("%s", f.problem)
	}
	if f.query && f.key == "" {
		return fmt.Errorf("%s: empty key", f)
	}
	// A level's settings are copied before they change: a declaration's
	// are shared with the calls already made.
	x := &extraFields{}
	if c.extra != nil {
		x.query = append(x.query, c.extra.query...)
		x.json = append(x.json, c.extra.json...)
	}
	if f.query {
		x.query = append(x.query, f)
	} else {
		x.json = append(x.json, f)
	}
	c.extra = x
	return nil
}

func (o extraOption) String() string { return "kit." + o.f.String() }

// addExtras sets on req (built for a call of d routed as r, with the
// headers h) the query parameters and body members that WithQuery and
// WithJSONField give at the client's, the declaration's and the call's
// level, in that order. It costs a few comparisons when none is given.
func (rb *requestBuilder) addExtras(req *Request, d *endpointDecl, r *routed, h http.Header) error {
	var call *extraFields
	if r.call != nil {
		call = r.call.extra
	}
	if rb.extra == nil && d.extra == nil && call == nil {
		return nil
	}
	levels := [3]*extraFields{rb.extra, d.extra, call}
	var q url.Values
	for _, x := range levels {
		if x == nil {
			continue
		}
		for _, f := range x.query {
			if q == nil {
				q = req.URL.Query()
			}
			q[f.key] = []string{f.value}
		}
	}
	if q != nil {
		var b strings.Builder
		encodeQuery(&b, q)
		req.URL.RawQuery, req.URL.ForceQuery = b.String(), false
	}
	for _, x := range levels {
		if x == nil || len(x.json) == 0 {
			continue
		}
		if err := rb.addJSONFields(req, d, r, h, x.json); err != nil {
			return err
		}
	}
	return nil
}

// addJSONFields sets the members fields give in req's body.
func (rb *requestBuilder) addJSONFields(req *Request, d *endpointDecl, r *routed, h http.Header, fields []*extraField) error {
	switch {
	case d.method == http.MethodGet || d.method == http.MethodHead:
		return errorf(d.name, "%s: %s requests have no body", fields[0], d.method)
	case r.file != nil || d.bodyEnc == encMultipart:
		return errorf(d.name, "%s: the body is not JSON or a form (a file, or multipart)", fields[0])
	}
	var body []byte
	if req.GetBody != nil {
		rc, err := req.GetBody()
		if err != nil {
			return errorf(d.name, "%s: reading the body: %w", fields[0], err)
		}
		body, err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return errorf(d.name, "%s: reading the body: %w", fields[0], err)
		}
	}
	for _, f := range fields {
		var err error
		if d.bodyEnc == encForm {
			body, err = setFormField(body, f)
		} else {
			body, err = setJSONMember(body, f.path, f.json)
		}
		if err != nil {
			return errorf(d.name, "%s: %w", f, err)
		}
	}
	if req.GetBody == nil {
		if d.bodyEnc == encForm {
			h["Content-Type"] = formMediaType
		} else {
			h["Content-Type"] = []string{"application/json"}
		}
	}
	req.GetBody = bytesBody(body)
	req.ContentLength = int64(len(body))
	return nil
}

// setJSONMember returns the JSON object obj (nil: {}) with the member at
// path set to value: in place of the member of that name, else last.
func setJSONMember(obj []byte, path jsonpath.Path, value jsontext.Value) ([]byte, error) {
	var buf bytes.Buffer
	enc := jsontext.NewEncoder(&buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if err := writeWithMember(enc, obj, path, value); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// writeWithMember writes obj (nil: {}) with the member at path set to value.
func writeWithMember(enc *jsontext.Encoder, obj []byte, path jsonpath.Path, value jsontext.Value) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	done := false
	set := func(raw jsontext.Value) error {
		done = true
		if err := enc.WriteToken(jsontext.String(path[0])); err != nil {
			return err
		}
		if len(path) == 1 {
			return enc.WriteValue(value)
		}
		if raw != nil && raw.Kind() != '{' {
			if raw.Kind() == 'n' {
				raw = nil
			} else {
				return fmt.Errorf("the body's %q is %s, not an object", path[0], pagescan.KindName(raw.Kind()))
			}
		}
		return writeWithMember(enc, raw, path[1:], value)
	}
	if len(obj) > 0 {
		dec := jsontext.NewDecoder(bytes.NewReader(obj), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if tok.Kind() != '{' {
			return fmt.Errorf("the body is %s, not an object", pagescan.KindName(tok.Kind()))
		}
		for dec.PeekKind() == '"' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			name := tok.String() // tok is valid until the next read
			raw, err := dec.ReadValue()
			if err != nil {
				return err
			}
			switch {
			case name != path[0]:
				if err := enc.WriteToken(jsontext.String(name)); err != nil {
					return err
				}
				if err := enc.WriteValue(raw); err != nil {
					return err
				}
			case !done: // a repeated name is left out: the set value stands
				if err := set(raw); err != nil {
					return err
				}
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
	}
	if !done {
		if err := set(nil); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// setFormField returns the form body (nil: empty) with f's field set.
func setFormField(body []byte, f *extraField) ([]byte, error) {
	q, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, err
	}
	key := f.path[0]
	for _, seg := range f.path[1:] {
		key += "[" + seg + "]"
	}
	switch f.json.Kind() {
	case 'n':
		delete(q, key)
	case '"':
		var s string
		if err := unmarshalJSON(f.json, &s); err != nil {
			return nil, err
		}
		q[key] = []string{s}
	case '0', 't', 'f':
		q[key] = []string{string(f.json)}
	default:
		return nil, fmt.Errorf("a form field is a string, a number or a boolean, not %s", pagescan.KindName(f.json.Kind()))
	}
	var b strings.Builder
	encodeQuery(&b, q)
	return []byte(b.String()), nil
}
