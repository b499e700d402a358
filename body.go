package kit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"github.com/kithttp/kit/internal/httpsyntax"
	"github.com/kithttp/kit/internal/routing"
)

// File is a file to upload: the raw request body of an endpoint (a P field
// of type File, on an endpoint declared without [Multipart]), or a file part
// of a Multipart body model (a field of type File or []File). Its content is
// streamed from Open, never held in memory by kit.
//
// Open is called once per attempt, and the reader it returns is closed by
// kit: a retry and the resend after a 401 open the file again, so the same
// bytes are sent each time. It may be called from another goroutine than the
// caller's, and, for an interceptor that reads the body (to sign it), more
// than once per attempt. The files of a Multipart body are opened one at a
// time, each when its part's turn comes, and closed once read: an upload of
// thousands of files holds one open. As net/http requires of a request
// body, the reader's Close may be called from another goroutine while a
// Read is under way (when a request is cancelled); the readers of
// [FileFromBytes] and [OpenFile] (an [*os.File]) allow it.
type File struct {
	Name        string                        // the file name sent with a multipart part; default: the part's name
	ContentType string                        // default application/octet-stream
	Open        func() (io.ReadCloser, error) // called once per attempt: retries and the resend after a 401 replay it

	size  int64 // the content's length, when sized
	sized bool  // FileFromBytes and OpenFile know the length, so the request gets a Content-Length
}

// FileFromBytes returns a [File] whose content is content (not copied: do not
// modify it while a call may send it). Its length is known, so a request
// with it gets a Content-Length.
func FileFromBytes(name string, content []byte) File {
	return File{
		Name: name,
		Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(content)), nil
		},
		size:  int64(len(content)),
		sized: true,
	}
}

// OpenFile returns a [File] for the file at path, named by its base name. The
// file is opened again for each attempt (and closed after it); its size is
// taken now, for the request's Content-Length, so a file whose size changes
// before it is sent fails the request. It is an error if path does not name
// a regular file.
func OpenFile(path string) (File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return File{}, errorf("OpenFile", "%w", err)
	}
	if !fi.Mode().IsRegular() {
		return File{}, errorf("OpenFile", "%s is not a regular file", path)
	}
	return File{
		Name: filepath.Base(path),
		Open: func() (io.ReadCloser, error) {
			return os.Open(path)
		},
		size:  fi.Size(),
		sized: true,
	}, nil
}

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

// bodyEncoding is how an endpoint sends its body model.
type bodyEncoding = routing.Encoding

const (
	encJSON      = routing.JSON
	encForm      = routing.Form
	encMultipart = routing.Multipart
)

type bodyEncOption struct {
	enc     bodyEncoding
	style   FormStyle // FormBody's
	problem string    // a bad FormBody style
}

func (o bodyEncOption) applyEndpoint(c *endpointConfig) {
	switch {
	case o.problem != "":
		c.problem = o.problem
	case c.bodyEnc != encJSON && c.bodyEnc != o.enc:
		c.problem = routing.Exclusive(c.bodyEnc, o.enc)
	default:
		c.bodyEnc, c.formStyle = o.enc, o.style
	}
}

func (o bodyEncOption) String() string {
	if o.enc == encForm && o.style != FormRepeat {
		return "kit.FormBody(" + o.style.String() + ")"
	}
	return o.enc.String()
}

// length returns the File's length, or -1 when unknown.
func (f *File) length() int64 {
	if f.sized {
		return f.size
	}
	return -1
}

func (f *File) contentType() string {
	if f.ContentType != "" {
		return f.ContentType
	}
	return "application/octet-stream"
}

// open calls f.Open, turning a nil reader into an error.
func (f *File) open() (io.ReadCloser, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("opening file %q: %w", f.Name, err)
	}
	if rc == nil {
		return nil, fmt.Errorf("opening file %q: Open returned a nil reader", f.Name)
	}
	return rc, nil
}

// fileBody is the GetBody of a raw File body.
func fileBody(f File) func() (io.ReadCloser, error) {
	return f.open
}

type formField struct {
	index     []int
	goName    string
	name      string
	omitEmpty bool // json omitempty: false, 0, "", nil, empty slice or map
	omitZero  bool // json omitzero: the zero value
	kind      routing.FormKind
	class     *typeClass
}

// formPlan is how one body model type is encoded as a form or multipart
// body: worked out once per type and encoding, and cached.
type formPlan struct {
	fields []formField
}

type formPlanKey struct {
	t         reflect.Type
	multipart bool
}

var formPlans sync.Map // formPlanKey -> *formPlan or error

// formPlanFor returns the plan of model type t (a struct or a pointer to
// one) for a form (multipart false) or multipart body.
func formPlanFor(t reflect.Type, multipart bool) (*formPlan, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	key := formPlanKey{t, multipart}
	if p, ok := formPlans.Load(key); ok {
		if err, isErr := p.(error); isErr {
			return nil, err
		}
		return p.(*formPlan), nil
	}
	p, err := newFormPlan(t, multipart)
	if err != nil {
		formPlans.Store(key, err)
		return nil, err
	}
	formPlans.Store(key, p)
	return p, nil
}

func newFormPlan(t reflect.Type, multipart bool) (*formPlan, error) {
	if t.Kind() != reflect.Struct || !isModelType(t) {
		return nil, errors.New(routing.NotOneModel(encodingOf(multipart), t.String()))
	}
	p := &formPlan{}
	for _, sf := range reflect.VisibleFields(t) {
		st := sf.Type
		if st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		name, omitEmpty, omitZero, sent := routing.FormMember(sf.IsExported(), sf.Anonymous, reflectType{st}.Shape(), sf.Name, sf.Tag.Get("json"))
		if !sent {
			continue
		}
		f := formField{index: sf.Index, goName: sf.Name, name: name, omitEmpty: omitEmpty, omitZero: omitZero, class: classify(sf.Type)}
		var err error
		if f.kind, err = routing.Tags.FormField(t.String(), sf.Name, sf.Type.String(), f.class.Class, multipart); err != nil {
			return nil, err
		}
		p.fields = append(p.fields, f)
	}
	return p, nil
}

// encodingOf is the encoding of a form (multipart false) or multipart body.
func encodingOf(multipart bool) bodyEncoding {
	if multipart {
		return encMultipart
	}
	return encForm
}

// jsonFileField checks the fields of the body model t (a struct, or a
// pointer to, slice or map of them) for a File or []File, which a JSON body
// cannot carry.
func jsonFileField(t reflect.Type) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, sf := range reflect.VisibleFields(t) {
		if !routing.JSONMember(sf.IsExported(), sf.Tag.Get("json")) {
			continue
		}
		if err := routing.Tags.JSONField(t.String(), sf.Name, classify(sf.Type).Class); err != nil {
			return err
		}
	}
	return nil
}

// omit reports whether the field's value v is left out of the body.
func (f *formField) omit(v reflect.Value) bool {
	if f.omitZero && v.IsZero() {
		return true
	}
	if f.omitEmpty && isEmptyJSON(v) {
		return true
	}
	return isNilValue(v)
}

// isEmptyJSON is encoding/json's notion of empty, for omitempty.
func isEmptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
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
	segments    []multipartSegment
	length      int64 // -1 when some File's length is unknown
}

type multipartSegment struct {
	data []byte
	file *File
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
	p, err := formPlanFor(v.Type(), true)
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
		body.segments = append(body.segments, multipartSegment{data: bytes.Clone(buf.Bytes())}, multipartSegment{file: &f})
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
		if err != nil || f.omit(fv) {
			continue
		}
		kind, c := f.kind, f.class
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
	body.segments = append(body.segments, multipartSegment{data: buf.Bytes()})
	for _, s := range body.segments {
		body.length += int64(len(s.data))
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
	return &multipartReader{segs: b.segments}, nil
}

// errReadAfterClose is what a multipart body's Read returns once it is
// closed.
var errReadAfterClose = errors.New("read after Close")

// multipartReader reads the segments of a multipart body in turn. Close may
// be called concurrently with Read, as net/http requires of a request
// body (its transport closes the body from another goroutine when a
// request is cancelled): the state is guarded by mu, which is never held
// while a File is opened or read, so Close never waits for a slow File. A
// File being read when Close is called is closed then, concurrently with
// its Read, as net/http would close a raw body.
type multipartReader struct {
	mu     sync.Mutex
	segs   []multipartSegment
	cur    io.ReadCloser // the open File of segment i; nil when none is open
	i      int           // the segment being read
	off    int           // the offset in a data segment
	closed bool
	failed error // an Open that failed: every later Read returns it
}

func (r *multipartReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	for {
		switch {
		case r.closed:
			r.mu.Unlock()
			return 0, errReadAfterClose
		case r.failed != nil:
			r.mu.Unlock()
			return 0, r.failed
		case r.i >= len(r.segs):
			r.mu.Unlock()
			return 0, io.EOF
		}
		s := r.segs[r.i]
		if s.file == nil {
			if r.off < len(s.data) {
				n := copy(p, s.data[r.off:])
				r.off += n
				r.mu.Unlock()
				return n, nil
			}
			r.i, r.off = r.i+1, 0
			continue
		}
		if r.cur == nil {
			r.mu.Unlock()
			rc, err := s.file.open()
			r.mu.Lock()
			if err != nil {
				r.failed = err
				continue
			}
			if r.closed {
				r.mu.Unlock()
				rc.Close()
				return 0, errReadAfterClose
			}
			r.cur = rc
		}
		cur := r.cur
		r.mu.Unlock()
		n, err := cur.Read(p)
		r.mu.Lock()
		if r.closed {
			// Close closed cur, maybe during its Read.
			r.mu.Unlock()
			return 0, errReadAfterClose
		}
		if err == io.EOF {
			r.cur = nil
			r.i++
			r.mu.Unlock()
			cur.Close()
			if n > 0 {
				return n, nil
			}
			r.mu.Lock()
			continue
		}
		r.mu.Unlock()
		if err != nil {
			err = fmt.Errorf("reading file %q: %w", s.file.Name, err)
		}
		return n, err
	}
}

// Close closes the File being read, if any; every later Read fails.
func (r *multipartReader) Close() error {
	r.mu.Lock()
	cur := r.cur
	r.cur, r.closed = nil, true
	r.mu.Unlock()
	if cur != nil {
		return cur.Close()
	}
	return nil
}
