package kit

import (
	"bytes"
	"errors"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// The form and multipart encodings of body models take outside input (any
// string or bytes a caller puts in a model): the fuzz targets check that
// whatever goes in comes out of a standard parser unchanged. Their seed
// corpora are in testdata/fuzz/FuzzFormBody and testdata/fuzz/FuzzMultipartBody.

type fuzzFormModel struct {
	Name string   `json:"name"`
	Note string   `json:"note,omitempty"`
	N    int64    `json:"n"`
	F    float64  `json:"f"`
	Tags []string `json:"tags"`
	Raw  []byte   `json:"raw"`
}

func FuzzFormBody(f *testing.F) {
	f.Add("ada", "", "a", "b", int64(7), 1.5, []byte("raw"))
	f.Fuzz(func(t *testing.T, name, note, tag1, tag2 string, n int64, fl float64, raw []byte) {
		m := fuzzFormModel{Name: name, Note: note, N: n, F: fl, Tags: []string{tag1, tag2}, Raw: raw}
		body, err := encodeNestedForm(reflect.ValueOf(&m), FormRepeat)
		if math.IsNaN(fl) || math.IsInf(fl, 0) {
			if err == nil {
				t.Fatalf("%v encoded without an error", fl)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := url.ParseQuery(string(body))
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", body, err)
		}
		want := url.Values{"name": {name}, "n": {strconv.FormatInt(n, 10)}, "tags": {tag1, tag2}, "raw": {string(raw)}}
		if note != "" {
			want["note"] = []string{note}
		}
		fs, _, _ := formatFloat(fl, 64)
		want["f"] = []string{fs}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("form %q decodes to %v, want %v", body, got, want)
		}
		if back, err := strconv.ParseFloat(got.Get("f"), 64); err != nil || back != fl {
			t.Fatalf("float %v sent as %q", fl, got.Get("f"))
		}
	})
}

type fuzzMultipartModel struct {
	Title string     `json:"title"`
	Tags  []string   `json:"tags,omitempty"`
	Meta  *fuzzMeta  `json:"meta,omitempty"`
	Doc   File       `json:"doc"`
	More  []File     `json:"more,omitempty"`
	Skip  string     `json:"-"`
	Ptr   *File      `json:"ptr,omitempty"`
	Inner fuzzNested `json:"inner"`
}

type fuzzMeta struct {
	Text string `json:"text"`
}

type fuzzNested struct {
	V int `json:"v"`
}

var simpleName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func FuzzMultipartBody(f *testing.F) {
	f.Add("title", "tag", "a.txt", "text/plain", []byte("content"), []byte("more"), true)
	f.Fuzz(func(t *testing.T, title, tag, fileName, ctype string, content, more []byte, withMeta bool) {
		m := fuzzMultipartModel{
			Title: title, Tags: []string{tag},
			Doc:  File{Name: fileName, ContentType: ctype, Open: FileFromBytes("", content).Open, size: int64(len(content)), sized: true},
			More: []File{FileFromBytes("more.bin", more)},
		}
		if withMeta {
			m.Meta = &fuzzMeta{Text: title}
		}
		mb, err := encodeMultipart(reflect.ValueOf(m))
		if httpsyntax.HasControl(ctype) {
			if err == nil {
				t.Fatalf("content type %q with a control character accepted", ctype)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		rc, err := mb.getBody()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(body)) != mb.length {
			t.Fatalf("body is %d bytes, Content-Length says %d", len(body), mb.length)
		}
		mt, params, err := mime.ParseMediaType(mb.contentType)
		if err != nil || mt != "multipart/form-data" {
			t.Fatalf("content type %q: %v", mb.contentType, err)
		}
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		type part struct {
			name, file, ctype string
			body              []byte
		}
		var parts []part
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("part %d: %v", len(parts), err)
			}
			b, err := io.ReadAll(p)
			if err != nil {
				t.Fatalf("part %d: %v", len(parts), err)
			}
			parts = append(parts, part{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), b})
		}
		want := []part{{"title", "", "", []byte(title)}, {"tags", "", "", []byte(tag)}}
		if withMeta {
			js, _ := marshalJSON(m.Meta)
			want = append(want, part{"meta", "", "application/json", js})
		}
		wantType := ctype
		if wantType == "" {
			wantType = "application/octet-stream"
		}
		want = append(want, part{"doc", fileName, wantType, content}, part{"more", "more.bin", "application/octet-stream", more},
			part{"inner", "", "application/json", []byte(`{"v":0}`)})
		if len(parts) != len(want) {
			t.Fatalf("%d parts, want %d", len(parts), len(want))
		}
		for i, w := range want {
			g := parts[i]
			if g.name != w.name || !bytes.Equal(g.body, w.body) {
				t.Errorf("part %d: %q %q, want %q %q", i, g.name, g.body, w.name, w.body)
			}
			if w.file != "" && g.file == "" {
				t.Errorf("part %d: no file name", i)
			}
			if simpleName.MatchString(w.file) && w.file != "." && w.file != ".." && g.file != w.file {
				t.Errorf("part %d: file name %q, want %q", i, g.file, w.file)
			}
			// A header value is read back without its surrounding blanks.
			if wt := strings.Trim(w.ctype, " \t"); wt != "" && g.ctype != wt {
				t.Errorf("part %d: content type %q, want %q", i, g.ctype, wt)
			}
		}
	})
}
