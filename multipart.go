package kit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"reflect"
	"strings"
	"sync"

	"github.com/kithttp/kit/internal/httpsyntax"
	"github.com/kithttp/kit/internal/multipartbody"
	"github.com/kithttp/kit/internal/routing"
)

// Multipart declares an endpoint whose body model is sent as
// multipart/form-data (a file upload). Each field of the model is a part
// named as in its json tag: a [File] (or a []File, one part each) is a file
// part with the File's name and content type, a nested data model (or a
// map) is a JSON part (Content-Type application/json), and anything else a
// text part in the text form of a query parameter (a slice gives one part
// per element; a []byte is sent as is). omitempty and omitzero are
// honoured; nil values are left out. The body is streamed: uploading a file
// of any size holds a small buffer, not the file, and the request has a
// Content-Length when every File's length is known ([FileFromBytes],
// [OpenFile]). The model is validated before anything is sent. It is a
// declaration trait: an [EndpointOption] only.
func Multipart() EndpointOption { return bodyEncOption{enc: encMultipart} }

// Private implementation past this point.
//
// A multipart body is planned by the form planner (form.go) at one level:
// the model's fields, named and left out as a form's are, are its parts,
// each with the kind of part it is (text, file, JSON); nested values are
// JSON parts, not brackets. The plan is made once per type and cached.

var multipartPlans sync.Map // reflect.Type -> *formNode or error

// multipartPlanFor returns the plan of the multipart body model type t (a
// struct or a pointer to one): a struct node whose fields carry their part
// kind and class.
func multipartPlanFor(t reflect.Type) (*formNode, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if p, ok := multipartPlans.Load(t); ok {
		if err, isErr := p.(error); isErr {
			return nil, err
		}
		return p.(*formNode), nil
	}
	p, err := newMultipartPlan(t)
	if err != nil {
		multipartPlans.Store(t, err)
		return nil, err
	}
	multipartPlans.Store(t, p)
	return p, nil
}

func newMultipartPlan(t reflect.Type) (*formNode, error) {
	if t.Kind() != reflect.Struct || !isModelType(t) {
		return nil, errors.New(routing.NotOneModel(encMultipart, t.String()))
	}
	fields, err := formStructFields(t, func(sf reflect.StructField, f *formNodeField) error {
		f.class = classify(sf.Type)
		var err error
		f.part, err = routing.Tags.FormField(t.String(), sf.Name, sf.Type.String(), f.class.Class, true)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &formNode{kind: fnStruct, typ: t, fields: fields}, nil
}

// modelValue returns the struct value of a body model (a struct or a
// non-nil pointer to one).
func modelValue(v reflect.Value) reflect.Value {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		v = v.Elem()
	}
	return v
}

// addFormText adds the text of a scalar, []byte or slice value.
func addFormText(v reflect.Value, c *typeClass, add func(string)) error {
	if c.Kind == routing.Bytes {
		s, ok, err := c.format(v)
		if ok {
			add(s)
		}
		return err
	}
	return addText(v, c, add)
}

// multipartBody is a multipart/form-data body worked out for one call: the
// bytes of its text and JSON parts and part headers, and the Files between
// them, which are opened for each attempt. Nothing of a File's content is
// held.
type multipartBody struct {
	contentType string
	segments    []multipartbody.Segment
	length      int64 // -1 when some File's length is unknown
}

// quoteParam escapes s for a quoted Content-Disposition parameter: a
// backslash before '\\' and '"', and control characters (which would break
// the header line) percent-encoded, as browsers do for CR and LF.
func quoteParam(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c == 0x7f:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// encodeMultipart lays out the body model v as a multipart body.
func encodeMultipart(v reflect.Value) (*multipartBody, error) {
	p, err := multipartPlanFor(v.Type())
	if err != nil {
		return nil, err
	}
	v = modelValue(v)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	body := &multipartBody{contentType: mw.FormDataContentType()}
	sized := true
	addFile := func(name string, f File) error {
		if f.Open == nil {
			return fmt.Errorf("kit.File %q has no Open function", f.Name)
		}
		fname := f.Name
		if fname == "" {
			fname = name
		}
		if httpsyntax.HasControl(f.ContentType) {
			return fmt.Errorf("kit.File %q: the content type has a control character", f.Name)
		}
		h := make(textproto.MIMEHeader, 2)
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, quoteParam(name), quoteParam(fname)))
		h.Set("Content-Type", f.contentType())
		if _, err := mw.CreatePart(h); err != nil {
			return err
		}
		body.segments = append(body.segments, multipartbody.Segment{Data: bytes.Clone(buf.Bytes())}, multipartbody.Segment{Name: f.Name, Open: f.open})
		buf.Reset()
		if f.sized {
			body.length += f.size
		} else {
			sized = false
		}
		return nil
	}
	addText := func(name, s string) error {
		h := make(textproto.MIMEHeader, 1)
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"`, quoteParam(name)))
		w, err := mw.CreatePart(h)
		if err == nil {
			_, err = io.WriteString(w, s)
		}
		return err
	}
	addJSON := func(name string, fv reflect.Value) error {
		b, err := marshalJSON(fv.Interface())
		if err != nil {
			return err
		}
		h := make(textproto.MIMEHeader, 2)
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"`, quoteParam(name)))
		h.Set("Content-Type", "application/json")
		w, err := mw.CreatePart(h)
		if err == nil {
			_, err = w.Write(b)
		}
		return err
	}
	for i := range p.fields {
		f := &p.fields[i]
		fv, err := v.FieldByIndexErr(f.index)
		if err != nil || (f.omit != 0 && f.omit.omits(fv)) || isNilValue(fv) {
			continue
		}
		kind, c := f.part, f.class
		if kind == routing.FormDynamic {
			fv = fv.Elem()
			c = classify(fv.Type())
			var ok bool
			if kind, ok = routing.FormKindOf(c.Class); !ok || kind == routing.FormDynamic {
				return nil, fmt.Errorf("field %s: %w", f.goName, routing.HeldFormProblem(fv.Type().String(), true))
			}
		}
		switch kind {
		case routing.FormText, routing.FormTextSlice:
			var werr error
			err = addFormText(fv, c, func(s string) {
				if werr == nil {
					werr = addText(f.name, s)
				}
			})
			if err == nil {
				err = werr
			}
		case routing.FormFile:
			if fv.Kind() == reflect.Pointer {
				fv = fv.Elem()
			}
			err = addFile(f.name, fv.Interface().(File))
		case routing.FormFileSlice:
			for j := 0; j < fv.Len() && err == nil; j++ {
				ev := fv.Index(j)
				if ev.Kind() == reflect.Pointer {
					if ev.IsNil() {
						continue
					}
					ev = ev.Elem()
				}
				err = addFile(f.name, ev.Interface().(File))
			}
		case routing.FormJSON:
			err = addJSON(f.name, fv)
		}
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.goName, err)
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	body.segments = append(body.segments, multipartbody.Segment{Data: buf.Bytes()})
	for _, s := range body.segments {
		body.length += int64(len(s.Data))
	}
	if !sized {
		body.length = -1
	}
	return body, nil
}

// getBody is the request's GetBody: a new reader of the whole body. Each
// File is opened when its part's turn comes and closed once read to the
// end (or by Close), so at most one File of a body is open at a time,
// whatever the number of parts.
func (b *multipartBody) getBody() (io.ReadCloser, error) {
	return multipartbody.NewReader(b.segments), nil
}
