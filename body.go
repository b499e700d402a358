package kit

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"

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

// bodyType is the Content-Type of a request's body: value, nil when there
// is no body; forced when no header may replace it (a multipart body's
// boundary must be the body's).
type bodyType struct {
	value  []string
	forced bool
}

var formMediaType = []string{"application/x-www-form-urlencoded"}

// buildBody validates and encodes the body of a call of d, if it has one,
// setting req's GetBody and ContentLength, and returns its content type.
// jsonType is the header value of a JSON body, which build shares with
// kit's other default values.
func (rb *requestBuilder) buildBody(d *endpointDecl, r *routed, req *Request, jsonType []string) (bodyType, error) {
	if !r.body.IsValid() && r.file == nil {
		return bodyType{}, nil
	}
	if d.method == http.MethodGet || d.method == http.MethodHead {
		return bodyType{}, errorf(d.name, "%s requests have no body: send a struct's fields as query parameters by embedding it in P or with `kit:\",query\"`", d.method)
	}
	if r.file != nil {
		if httpsyntax.HasControl(r.file.ContentType) {
			return bodyType{}, errorf(d.name, "kit.File %q: the content type has a control character", r.file.Name)
		}
		req.GetBody = fileBody(*r.file)
		req.ContentLength = r.file.length()
		return bodyType{value: []string{r.file.contentType()}}, nil
	}
	if err := validateValue(rb.validator, r.body); err != nil {
		return bodyType{}, errorf(d.name, "request body: %w", err)
	}
	switch d.bodyEnc {
	case encForm:
		body, err := encodeNestedForm(r.body, d.formStyle)
		if err != nil {
			return bodyType{}, errorf(d.name, "encoding the form body: %w", err)
		}
		req.GetBody = bytesBody(body)
		req.ContentLength = int64(len(body))
		return bodyType{value: formMediaType}, nil
	case encMultipart:
		mb, err := encodeMultipart(r.body)
		if err != nil {
			return bodyType{}, errorf(d.name, "encoding the multipart body: %w", err)
		}
		req.GetBody = mb.getBody
		req.ContentLength = mb.length
		return bodyType{value: []string{mb.contentType}, forced: true}, nil
	}
	body, err := marshalJSON(r.body.Interface())
	if err != nil {
		return bodyType{}, errorf(d.name, "encoding the request body: %w", err)
	}
	req.GetBody = bytesBody(body)
	req.ContentLength = int64(len(body))
	return bodyType{value: jsonType}, nil
}

// bytesBody is a GetBody over b: each call gets a new reader of the same
// bytes, so every attempt sends them again.
func bytesBody(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}
}
