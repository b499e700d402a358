package kit_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// Tests of "The rest of HTTP" (the README's section): results with their response, error
// models, form, multipart and raw File bodies, streamed results, URLs and
// headers per endpoint, and the declarations that cannot be misrouted.

type httpUser struct {
	ID    int    `json:"id"`
	Name  string `json:"name" validate:"required"`
	Email string `json:"email"`
}

type httpUserID struct{ ID int }

var (
	httpGetUser       = kit.Get[httpUserID, kit.Result[httpUser]]("/users/{id}")
	httpGetUserPlain  = kit.Get[httpUserID, httpUser]("/users/{id}")
	httpDownload      = kit.Get[struct{ Bytes int64 }, io.ReadCloser]("/download")
	httpDownloadWithH = kit.Get[struct{ Bytes int64 }, kit.Result[io.ReadCloser]]("/download")
)

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestResultCarriesResponse(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, kittest.NewAPI())
			r, err := twinCall(t.Context(), tw, httpGetUser, b, httpUserID{1})
			if err != nil {
				t.Fatal(err)
			}
			if r.Value.Name != "Ada Lovelace" || r.Value.ID != 1 {
				t.Errorf("Value = %+v, want user 1", r.Value)
			}
			if r.Response == nil || r.StatusCode != 200 || r.Header.Get("ETag") == "" || r.Request.URL.Path != "/users/1" {
				t.Errorf("Response = %+v, want a 200 with an ETag for /users/1", r.Response)
			}
			// Validated as R = T: an invalid value is a *ValidationError.
			srv := serve(t, replyJSON(200, `{"id":1,"name":""}`))
			bad := tw.client(t, srv.URL)
			_, err = twinCall(t.Context(), tw, httpGetUser, bad, httpUserID{1})
			var ve *kit.ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("invalid value: err = %v, want a *kit.ValidationError", err)
			}
		})
	}
}

func TestResultOfRawAndResponse(t *testing.T) {
	t.Parallel()
	_, c := setup(t, replyJSON(200, `{"a":1}`))
	raw, err := kit.Get[kit.NoParams, kit.Result[any]]("/x").Call(t.Context(), c, kit.NoParams{})
	if err != nil || raw.Value.(map[string]any)["a"] != 1.0 || raw.StatusCode != 200 {
		t.Errorf("Result[any] = %+v, %v", raw, err)
	}
	resp, err := kit.Get[kit.NoParams, kit.Result[*kit.Response]]("/x").Call(t.Context(), c, kit.NoParams{})
	if err != nil || resp.Value != resp.Response || string(resp.Bytes()) != `{"a":1}` {
		t.Errorf("Result[*Response] = %+v, %v", resp, err)
	}
	if _, err := kit.NewEndpoint[kit.NoParams, kit.Result[kit.Result[int]]]("GET", "/x"); err == nil {
		t.Error("a Result of a Result was accepted")
	}
}

func TestNotModifiedMatchesErrNotModified(t *testing.T) {
	t.Parallel()
	type P struct {
		ID   int
		ETag string `kit:"If-None-Match,header"`
	}
	ep := kit.Get[P, kit.Result[httpUser]]("/users/{id}")
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			api := kittest.NewAPI()
			// An error model must not hide the 304.
			_, b := tw.setup(t, api, kit.WithErrorModel[kittest.APIError]())
			first, err := twinCall(t.Context(), tw, ep, b, P{ID: 2})
			if err != nil {
				t.Fatal(err)
			}
			_, err = twinCall(t.Context(), tw, ep, b, P{ID: 2, ETag: first.Header.Get("ETag")})
			if !errors.Is(err, kit.ErrNotModified) {
				t.Fatalf("err = %v, want one matching kit.ErrNotModified", err)
			}
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != http.StatusNotModified || he.Model != nil {
				t.Errorf("err = %#v, want an *HTTPError 304 without a model", err)
			}
			if api.Stats().NotModified != 1 {
				t.Errorf("server counted %d 304s, want 1", api.Stats().NotModified)
			}
			_, err = twinCall(t.Context(), tw, ep, b, P{ID: 424242})
			if errors.Is(err, kit.ErrNotModified) {
				t.Errorf("a 404 matches ErrNotModified: %v", err)
			}
		})
	}
}

// valueError implements error with a value receiver.
type valueError struct {
	Code string `json:"error"`
}

func (e valueError) Error() string { return "value error " + e.Code }

// otherModel does not implement error.
type otherModel struct {
	Message string `json:"message"`
}

func TestErrorModel(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, kittest.NewAPI())
			b := tw.client(t, srv.URL, kit.WithErrorModel[kittest.APIError]())
			_, err := twinCall(t.Context(), tw, httpGetUserPlain, b, httpUserID{424242})
			var apiErr *kittest.APIError
			if !errors.As(err, &apiErr) || apiErr.Code != "not_found" {
				t.Fatalf("errors.As(*kittest.APIError): err = %v, model %+v", err, apiErr)
			}
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 404 || he.Model != any(apiErr) {
				t.Errorf("errors.As(*HTTPError) = %v, Model %v, want the 404 holding the same model", he, he.Model)
			}
			// The endpoint's model wins over the client's.
			ep := kit.Get[httpUserID, httpUser]("/users/{id}", kit.WithErrorModel[otherModel]())
			_, err = twinCall(t.Context(), tw, ep, b, httpUserID{424242})
			if errors.As(err, &apiErr) {
				t.Error("the client's model was decoded although the endpoint has its own")
			}
			if !errors.As(err, &he) {
				t.Fatal(err)
			}
			if m, ok := he.Model.(*otherModel); !ok || !strings.Contains(m.Message, "424242") {
				t.Errorf("Model = %#v, want the endpoint's *otherModel", he.Model)
			}
			// A value type implementing error is found as a value.
			ep2 := kit.Get[httpUserID, httpUser]("/users/{id}", kit.WithErrorModel[valueError]())
			_, err = twinCall(t.Context(), tw, ep2, b, httpUserID{424242})
			var ve valueError
			if !errors.As(err, &ve) || ve.Code != "not_found" {
				t.Errorf("errors.As(valueError) = %+v, err %v", ve, err)
			}
			var vp *valueError
			if !errors.As(err, &vp) || vp.Code != "not_found" {
				t.Errorf("errors.As(*valueError) = %+v", vp)
			}
			// Resource operations get the client's model.
			_, err = kit.NewResource[httpUser](b, "/users").Get(t.Context(), 424242)
			if tw.async {
				_, err = kit.NewAsyncResource[httpUser](b, "/users").Get(t.Context(), 424242).Await(t.Context())
			}
			if !errors.As(err, &apiErr) {
				t.Errorf("resource Get: err = %v, want the model", err)
			}
		})
	}
}

func TestErrorModelNotThatJSON(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		io.WriteString(w, "<html>bad gateway</html>")
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) })
	mux.HandleFunc("/array", replyJSON(400, `[1,2]`))
	_, c := setup(t, mux, kit.WithErrorModel[kittest.APIError]())
	for _, path := range []string{"/html", "/empty", "/array"} {
		_, err := kit.Get[kit.NoParams, any](path).Call(t.Context(), c, kit.NoParams{})
		var he *kit.HTTPError
		if !errors.As(err, &he) || he.Model != nil {
			t.Errorf("%s: err = %v, Model %#v, want an *HTTPError without a model", path, err, he)
		}
		var apiErr *kittest.APIError
		if errors.As(err, &apiErr) {
			t.Errorf("%s: errors.As found a model: %+v", path, apiErr)
		}
	}
}

// tokenRequest is the OAuth2 client credentials request of RFC 6749.
type tokenRequest struct {
	GrantType    string `json:"grant_type"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	Scope        string `json:"scope,omitempty"`
}

type tokenReply struct {
	AccessToken string `json:"access_token" validate:"required"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

var httpToken = kit.Post[struct{ Form tokenRequest }, tokenReply]("/oauth/token", kit.FormBody(), kit.NoAuth())

func TestFormBodyTokenEndpoint(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, kittest.NewAPI(), kit.WithErrorModel[kittest.APIError]())
			tok, err := twinCall(t.Context(), tw, httpToken, b, struct{ Form tokenRequest }{tokenRequest{"client_credentials", "demo", "s3cret", ""}})
			if err != nil || tok.TokenType != "Bearer" || tok.ExpiresIn <= 0 {
				t.Fatalf("token = %+v, %v", tok, err)
			}
			_, err = twinCall(t.Context(), tw, httpToken, b, struct{ Form tokenRequest }{tokenRequest{"client_credentials", "demo", "wrong", ""}})
			var apiErr *kittest.APIError
			if !errors.As(err, &apiErr) || apiErr.Code != "invalid_client" {
				t.Errorf("wrong secret: err = %v, want invalid_client", err)
			}
		})
	}
}

type formModel struct {
	Name    string    `json:"name"`
	Count   int       `json:"count"`
	Ratio   float64   `json:"ratio,omitempty"`
	Tags    []string  `json:"tags"`
	When    time.Time `json:"when"`
	Flag    *bool     `json:"flag"`
	Skipped string    `json:"-"`
	Raw     []byte    `json:"raw,omitempty"`
	NoTag   string
	Any     any `json:"any"`
}

func TestFormBodyEncoding(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Post[struct{ Body formModel }, *kit.Response]("/form", kit.FormBody())
	when := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	_, err := ep.Call(t.Context(), c, struct{ Body formModel }{formModel{
		Name: "a b&c", Count: 0, Tags: []string{"x", "y"}, When: when, Skipped: "no", Raw: []byte("r"), NoTag: "n", Any: 7,
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := rec.only(t)
	if ct := got.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
		t.Errorf("Content-Type = %q", ct)
	}
	if got.ContentLength != int64(len(got.Body)) {
		t.Errorf("Content-Length %d for a %d-byte body", got.ContentLength, len(got.Body))
	}
	form, err := url.ParseQuery(string(got.Body))
	if err != nil {
		t.Fatal(err)
	}
	want := url.Values{"name": {"a b&c"}, "count": {"0"}, "tags": {"x", "y"}, "when": {"2024-05-06T07:08:09Z"}, "raw": {"r"}, "NoTag": {"n"}, "any": {"7"}}
	if form.Encode() != want.Encode() {
		t.Errorf("form = %v, want %v", form, want)
	}
}

// uploadModel is a multipart body model: text parts, a JSON part, files.
type uploadModel struct {
	Title string      `json:"title" validate:"required"`
	Count int         `json:"count"`
	Meta  *httpUser   `json:"meta,omitempty"`
	Doc   kit.File    `json:"doc"`
	More  []kit.File  `json:"more,omitempty"`
	Tags  []string    `json:"tags,omitempty"`
	Empty string      `json:"empty,omitempty"`
	Extra interface{} `json:"extra,omitempty"`
}

var httpUpload = kit.Post[struct{ Body uploadModel }, kittest.Upload]("/uploads", kit.Multipart())

// countingFile is a File whose Open calls are counted and whose length is
// not known to kit.
func countingFile(name string, content []byte, opens *atomic.Int32) kit.File {
	return kit.File{Name: name, ContentType: "text/plain", Open: func() (io.ReadCloser, error) {
		opens.Add(1)
		return io.NopCloser(bytes.NewReader(content)), nil
	}}
}

func TestMultipartUpload(t *testing.T) {
	t.Parallel()
	doc := bytes.Repeat([]byte("kit multipart "), 10_000)
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, kittest.NewAPI())
			var opens atomic.Int32
			up, err := twinCall(t.Context(), tw, httpUpload, b, struct{ Body uploadModel }{uploadModel{
				Title: "report", Count: 3, Meta: &httpUser{ID: 9, Name: "n"},
				Doc:  kit.FileFromBytes("doc.txt", doc),
				More: []kit.File{countingFile("a.txt", []byte("aaa"), &opens), kit.FileFromBytes("", []byte("bb"))},
				Tags: []string{"t1", "t2"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := up.Fields["title"]; len(got) != 1 || got[0] != "report" {
				t.Errorf("title = %q", got)
			}
			if got := up.Fields["count"]; len(got) != 1 || got[0] != "0" && got[0] != "3" {
				t.Errorf("count = %q", got)
			}
			if got := up.Fields["tags"]; len(got) != 2 || got[1] != "t2" {
				t.Errorf("tags = %q", got)
			}
			if got := up.Fields["meta"]; len(got) != 1 || !strings.Contains(got[0], `"id":9`) {
				t.Errorf("meta (a JSON part) = %q", got)
			}
			if _, ok := up.Fields["empty"]; ok {
				t.Error("an omitempty field was sent")
			}
			want := []kittest.UploadedFile{
				{Field: "doc", Name: "doc.txt", ContentType: "application/octet-stream", Size: int64(len(doc)), SHA256: sha256Hex(doc)},
				{Field: "more", Name: "a.txt", ContentType: "text/plain", Size: 3, SHA256: sha256Hex([]byte("aaa"))},
				{Field: "more", Name: "more", ContentType: "application/octet-stream", Size: 2, SHA256: sha256Hex([]byte("bb"))},
			}
			if len(up.Files) != len(want) {
				t.Fatalf("files = %+v, want %+v", up.Files, want)
			}
			for i := range want {
				if up.Files[i] != want[i] {
					t.Errorf("file %d = %+v, want %+v", i, up.Files[i], want[i])
				}
			}
			if opens.Load() != 1 {
				t.Errorf("Open called %d times for one attempt", opens.Load())
			}
			// Validation happens before anything is sent.
			_, err = twinCall(t.Context(), tw, httpUpload, b, struct{ Body uploadModel }{uploadModel{Doc: kit.FileFromBytes("x", nil)}})
			var ve *kit.ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("invalid model: err = %v, want a *kit.ValidationError", err)
			}
		})
	}
}

func TestMultipartContentLength(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	ep := kit.Post[struct{ Body uploadModel }, *kit.Response]("/up", kit.Multipart(), kit.WithHeader("Content-Type", "application/json"))
	var opens atomic.Int32
	for _, doc := range []kit.File{kit.FileFromBytes("d", []byte("sized")), countingFile("d", []byte("unsized"), &opens)} {
		if _, err := ep.Call(t.Context(), c, struct{ Body uploadModel }{uploadModel{Title: "t", Doc: doc}}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := rec.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
			t.Fatalf("request %d: Content-Type %q: the multipart type must win over an endpoint header", i, r.Header.Get("Content-Type"))
		}
		mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
		n := 0
		for {
			if _, err := mr.NextPart(); err != nil {
				break
			}
			n++
		}
		if n != 3 {
			t.Errorf("request %d: %d parts, want 3 (title, count, doc)", i, n)
		}
	}
	if reqs[0].ContentLength != int64(len(reqs[0].Body)) {
		t.Errorf("sized File: Content-Length %d, body %d bytes", reqs[0].ContentLength, len(reqs[0].Body))
	}
	if reqs[1].ContentLength != -1 || len(reqs[1].TransferEncoding) == 0 {
		t.Errorf("unsized File: Content-Length %d, Transfer-Encoding %v, want chunked", reqs[1].ContentLength, reqs[1].TransferEncoding)
	}
}

func TestRawFileBody(t *testing.T) {
	t.Parallel()
	type P struct {
		Name string
		Body kit.File
	}
	ep := kit.Put[P, kittest.Upload]("/files/{name}")
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.txt")
	content := []byte(strings.Repeat("notes\n", 1000))
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := kit.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f.ContentType = "text/plain"
	if f.Name != "notes.txt" {
		t.Errorf("OpenFile name = %q", f.Name)
	}
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			_, b := tw.setup(t, kittest.NewAPI())
			up, err := twinCall(t.Context(), tw, ep, b, P{Name: "notes.txt", Body: f})
			if err != nil {
				t.Fatal(err)
			}
			want := kittest.UploadedFile{Name: "notes.txt", ContentType: "text/plain", Size: int64(len(content)), SHA256: sha256Hex(content)}
			if len(up.Files) != 1 || up.Files[0] != want {
				t.Errorf("upload = %+v, want %+v", up.Files, want)
			}
		})
	}
	if _, err := kit.OpenFile(dir); err == nil {
		t.Error("OpenFile of a directory succeeded")
	}
}

// TestFileBodyReplayed checks that a File body (raw and multipart) is
// opened again, and sent whole, on a retry and on the resend after a 401.
func TestFileBodyReplayed(t *testing.T) {
	t.Parallel()
	type rawP struct{ Body kit.File }
	type mpP struct{ Body uploadModel }
	content := []byte("replayed content")
	for _, tw := range twins {
		for _, kind := range []string{"raw", "multipart"} {
			t.Run(tw.name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				var mu sync.Mutex
				var bodies []string
				var n atomic.Int32
				h := func(w http.ResponseWriter, r *http.Request) {
					var got string
					if kind == "raw" {
						b, _ := io.ReadAll(r.Body)
						got = string(b)
					} else {
						_, fh, err := r.FormFile("doc")
						if err == nil {
							f, _ := fh.Open()
							b, _ := io.ReadAll(f)
							f.Close()
							got = string(b)
						}
					}
					mu.Lock()
					bodies = append(bodies, got)
					mu.Unlock()
					switch n.Add(1) {
					case 1:
						w.WriteHeader(http.StatusServiceUnavailable) // retried
					case 2:
						w.WriteHeader(http.StatusUnauthorized) // refreshed and resent
					default:
						replyJSON(200, `{}`)(w, r)
					}
				}
				var fetches atomic.Int32
				auth := kit.TokenAuth(func(context.Context) (kit.Token, error) {
					fetches.Add(1)
					return kit.Token{Value: "t"}, nil
				})
				_, b := tw.setup(t, http.HandlerFunc(h), kit.WithAuth(auth),
					kit.WithRetry(kit.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Microsecond}))
				var opens atomic.Int32
				file := countingFile("doc.txt", content, &opens)
				var err error
				if kind == "raw" {
					ep := kit.Put[rawP, *kit.Response]("/up")
					_, err = twinCall(t.Context(), tw, ep, b, rawP{file})
				} else {
					ep := kit.Put[mpP, *kit.Response]("/up", kit.Multipart())
					_, err = twinCall(t.Context(), tw, ep, b, mpP{uploadModel{Title: "t", Doc: file}})
				}
				if err != nil {
					t.Fatal(err)
				}
				if n.Load() != 3 || opens.Load() != 3 {
					t.Errorf("%d requests, %d opens; want 3 and 3 (first, retry, resend after 401)", n.Load(), opens.Load())
				}
				for i, got := range bodies {
					if got != string(content) {
						t.Errorf("attempt %d sent %q, want the whole file", i+1, got)
					}
				}
			})
		}
	}
}

func TestStreamedDownload(t *testing.T) {
	t.Parallel()
	const size = 3 << 20
	want := sha256.New()
	io.Copy(want, kittest.DownloadContent(size))
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			// The body limit (1 KiB here) does not apply to a stream.
			_, b := tw.setup(t, kittest.NewAPI(), kit.WithMaxBodySize(1<<10))
			body, err := twinCall(t.Context(), tw, httpDownload, b, struct{ Bytes int64 }{size})
			if err != nil {
				t.Fatal(err)
			}
			got := sha256.New()
			n, err := io.Copy(got, body)
			if err != nil || n != size {
				t.Fatalf("read %d bytes, %v", n, err)
			}
			if err := body.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if body.Close() != nil {
				t.Error("a second Close failed")
			}
			if !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
				t.Error("downloaded content differs from kittest.DownloadContent")
			}
			// With the headers: Result[io.ReadCloser].
			r, err := twinCall(t.Context(), tw, httpDownloadWithH, b, struct{ Bytes int64 }{10})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Value.Close()
			if r.Header.Get("Content-Length") != "10" || r.Bytes() != nil {
				t.Errorf("Result headers %v, Bytes %q", r.Header, r.Bytes())
			}
			if b, _ := io.ReadAll(r.Value); len(b) != 10 {
				t.Errorf("read %d bytes, want 10", len(b))
			}
			// A non-2xx status is an *HTTPError, its body read.
			_, err = twinCall(t.Context(), tw, httpDownload, b, struct{ Bytes int64 }{-1})
			var he *kit.HTTPError
			if !errors.As(err, &he) || he.StatusCode != 400 || len(he.Body) == 0 {
				t.Errorf("bad request: err = %v, want an *HTTPError 400 with its body", err)
			}
		})
	}
}

// TestStreamHoldsTimeoutAndSlot checks that a streamed body outlives the
// chain's layers: the endpoint timeout's context is not cancelled when Call
// returns, and the async in-flight slot is held until Close.
func TestStreamHoldsTimeoutAndSlot(t *testing.T) {
	t.Parallel()
	var firstDone atomic.Bool
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/first", func(w http.ResponseWriter, r *http.Request) {
		defer firstDone.Store(true)
		w.WriteHeader(200)
		io.WriteString(w, "part one;")
		w.(http.Flusher).Flush()
		select {
		case <-release:
			io.WriteString(w, "part two")
		case <-r.Context().Done():
		}
	})
	var secondSawFirstDone atomic.Bool
	mux.HandleFunc("/second", func(w http.ResponseWriter, r *http.Request) {
		secondSawFirstDone.Store(firstDone.Load())
		io.WriteString(w, "second")
	})
	_, ac := setupAsync(t, mux, kit.WithMaxInFlight(1))
	first := kit.Get[kit.NoParams, io.ReadCloser]("/first", kit.WithTimeout(time.Minute))
	second := kit.Get[kit.NoParams, io.ReadCloser]("/second")
	body, err := first.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f2 := second.Go(t.Context(), ac, kit.NoParams{}) // waits for the slot
	close(release)
	b, err := io.ReadAll(body) // the timeout's context is still alive
	if err != nil || string(b) != "part one;part two" {
		t.Fatalf("read %q, %v", b, err)
	}
	body.Close()
	body2, err := f2.Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, body2)
	body2.Close()
	if !secondSawFirstDone.Load() {
		t.Error("the second request was sent while the first stream was open (WithMaxInFlight(1))")
	}
}

// TestStreamAsyncCloseGivesUp checks that AsyncClient.Close waits for an
// open stream and, when its context ends, closes it.
func TestStreamAsyncCloseGivesUp(t *testing.T) {
	t.Parallel()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	ac, err := kit.NewAsyncClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ep := kit.Get[kit.NoParams, io.ReadCloser]("/stream")
	body, err := ep.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := ac.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v, want context.Canceled (the stream was open)", err)
	}
	if _, err := io.ReadAll(body); !errors.Is(err, context.Canceled) || !errors.Is(err, kit.ErrClosed) {
		t.Errorf("reading after Close gave up: %v, want context.Canceled and ErrClosed", err)
	}
	body.Close()
}

func TestStreamCancelledByContext(t *testing.T) {
	t.Parallel()
	_, c := setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	ctx, cancel := context.WithCancel(t.Context())
	body, err := kit.Get[kit.NoParams, io.ReadCloser]("/s").Call(ctx, c, kit.NoParams{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err = io.ReadAll(body)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "kit: GET ") {
		t.Errorf("read after cancel: %v, want a kit error matching context.Canceled", err)
	}
	body.Close()
}

func TestStreamInterceptorSeesNoBytes(t *testing.T) {
	t.Parallel()
	var seen []byte
	var sawStream bool
	peek := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			resp, err := next(ctx, req)
			if err == nil {
				seen, sawStream = resp.Bytes(), true
			}
			return resp, err
		}
	}
	_, c := setup(t, kittest.NewAPI(), kit.WithInterceptors(peek))
	body, err := httpDownload.Call(t.Context(), c, struct{ Bytes int64 }{100})
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	if b, _ := io.ReadAll(body); len(b) != 100 || !sawStream || seen != nil {
		t.Errorf("read %d bytes; interceptor saw Bytes() = %q, want nil", len(b), seen)
	}
	// A cache that answers with NewResponse serves a stream from bytes.
	cached := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			return kit.NewResponse(200, nil, []byte("from cache")), nil
		}
	}
	_, c2 := setup(t, kittest.NewAPI(), kit.WithInterceptors(cached))
	body2, err := httpDownload.Call(t.Context(), c2, struct{ Bytes int64 }{100})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(body2); string(b) != "from cache" {
		t.Errorf("cached stream = %q", b)
	}
	body2.Close()
}

// TestAbsoluteURLsAndCredentials checks absolute endpoint URLs and
// `kit:",url"` fields, and that credentials go only to the base URL's
// origin.
func TestAbsoluteURLsAndCredentials(t *testing.T) {
	t.Parallel()
	home, other := newRecorder(nil), newRecorder(nil)
	homeSrv, otherSrv := serve(t, home), serve(t, other)
	type P struct {
		Next string `kit:",url"`
		Q    string `kit:",omitempty"`
	}
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			b := tw.client(t, homeSrv.URL+"/api/v1?tenant=t1", kit.WithAuth(kit.Bearer("tok")),
				kit.WithHeader("Cookie", "c=1"), kit.WithHeader("X-App", "kit"))
			if _, err := kit.NewEndpoint[kit.NoParams, any]("GET", otherSrv.URL+"/upload/{x}"); err == nil {
				t.Fatal("placeholder without a field accepted")
			}
			absOther := kit.Get[struct{ X string }, any](otherSrv.URL + "/upload/{x}")
			absHome := kit.Get[kit.NoParams, any](homeSrv.URL + "/other/path")
			follow := kit.Get[P, any]("/declared")
			calls := []struct {
				name     string
				call     func() error
				rec      *recorder
				wantLine string
				auth     bool
			}{
				{"absolute other origin", func() error {
					_, err := twinCall(t.Context(), tw, absOther, b, struct{ X string }{"a b"})
					return err
				}, other, "GET /upload/a%20b", false},
				{"absolute same origin", func() error { _, err := twinCall(t.Context(), tw, absHome, b, kit.NoParams{}); return err }, home, "GET /other/path?tenant=t1", true},
				{"url field relative", func() error {
					_, err := twinCall(t.Context(), tw, follow, b, P{Next: "exports/7?x=1", Q: "q"})
					return err
				}, home, "GET /api/v1/exports/7?x=1&q=q&tenant=t1", true},
				{"url field absolute path", func() error { _, err := twinCall(t.Context(), tw, follow, b, P{Next: "/jobs/1"}); return err }, home, "GET /jobs/1?tenant=t1", true},
				{"url field other origin", func() error {
					_, err := twinCall(t.Context(), tw, follow, b, P{Next: otherSrv.URL + "/dl?sig=s"})
					return err
				}, other, "GET /dl?sig=s", false},
				{"url field empty", func() error { _, err := twinCall(t.Context(), tw, follow, b, P{}); return err }, home, "GET /api/v1/declared?tenant=t1", true},
			}
			for _, c := range calls {
				before := len(c.rec.requests())
				if err := c.call(); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				reqs := c.rec.requests()
				if len(reqs) != before+1 {
					t.Fatalf("%s: the expected server saw %d new requests", c.name, len(reqs)-before)
				}
				r := reqs[len(reqs)-1]
				if r.line() != c.wantLine {
					t.Errorf("%s: %s, want %s", c.name, r.line(), c.wantLine)
				}
				hasAuth := r.Header.Get("Authorization") != "" || r.Header.Get("Cookie") != ""
				if hasAuth != c.auth {
					t.Errorf("%s: credentials sent = %v, want %v (headers %v)", c.name, hasAuth, c.auth, r.Header)
				}
				if r.Header.Get("X-App") != "kit" {
					t.Errorf("%s: the client's other headers were not sent", c.name)
				}
			}
		})
	}
}

func TestEndpointHeaders(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec, kit.WithHeader("Accept", "application/json"), kit.WithHeader("X-Both", "client"))
	type P struct {
		Trace string `kit:"X-Both,header,omitempty"`
	}
	ep := kit.Get[P, *kit.Response]("/raw", kit.WithHeader("Accept", "application/vnd.github.raw"), kit.WithHeader("X-Both", "endpoint"), kit.WithHeader("X-Multi", "1"), kit.WithHeader("X-Multi", "2"))
	if _, err := ep.Call(t.Context(), c, P{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Call(t.Context(), c, P{Trace: "param"}); err != nil {
		t.Fatal(err)
	}
	reqs := rec.requests()
	if got := reqs[0].Header.Values("Accept"); len(got) != 1 || got[0] != "application/vnd.github.raw" {
		t.Errorf("Accept = %q, want the endpoint's only", got)
	}
	if got := reqs[0].Header.Get("X-Both"); got != "endpoint" {
		t.Errorf("X-Both = %q, want endpoint", got)
	}
	if got := reqs[0].Header.Values("X-Multi"); len(got) != 2 {
		t.Errorf("X-Multi = %q, want both values", got)
	}
	if got := reqs[1].Header.Values("X-Both"); len(got) != 1 || got[0] != "param" {
		t.Errorf("X-Both with a header parameter = %q, want param", got)
	}
	if _, err := kit.NewEndpoint[kit.NoParams, any]("GET", "/x", kit.WithHeader("", "v")); err == nil {
		t.Error("WithHeader with an empty key accepted on an endpoint")
	}
	// A streamed result asks for any media type unless told otherwise.
	if _, err := kit.Get[kit.NoParams, io.ReadCloser]("/dl").Call(t.Context(), newClient(t, serve(t, rec).URL), kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if got := rec.requests()[2].Header.Get("Accept"); got != "*/*" {
		t.Errorf("stream Accept = %q, want */*", got)
	}
}

type moreOptions struct {
	Filter string `kit:",omitempty"`
}

type listOptions struct {
	Page    int    `kit:",omitempty"`
	PerPage int    `kit:"per_page,omitempty"`
	Sort    string `kit:",omitempty"`
}

func TestQueryTag(t *testing.T) {
	t.Parallel()
	type P struct {
		Org  string
		Opts listOptions  `kit:",query"`
		More *moreOptions `kit:",query"`
		Body *httpUser
	}
	runRouteCases(t, []routeCase{
		{
			name: "spread on a GET",
			call: coreCall(kit.Get[struct {
				Opts listOptions `kit:",query"`
			}, *kit.Response]("/x"), struct {
				Opts listOptions `kit:",query"`
			}{listOptions{Page: 2, Sort: "name"}}),
			wantLine: "GET /api/x?page=2&sort=name",
		},
		{
			name:     "spread beside a body, nil pointer dropped",
			call:     coreCall(kit.Post[P, *kit.Response]("/orgs/{org}"), P{Org: "o", Opts: listOptions{PerPage: 5}, Body: &httpUser{Name: "n"}}),
			wantLine: "POST /api/orgs/o?per_page=5",
			wantBody: `{"id":0,"name":"n","email":""}`,
		},
	})
	if _, err := kit.NewEndpoint[struct {
		A listOptions `kit:",query"`
		B listOptions `kit:",query"`
	}, any]("GET", "/x"); err == nil {
		t.Error("two query structs sending the same names were accepted")
	}
}

func TestDeclarationsThatCannotBeMisrouted(t *testing.T) {
	t.Parallel()
	type model struct{ A int }
	bad := []struct {
		name string
		err  error
		want string
	}{
		{"GET body", declErr[struct{ Opts model }, any]("GET", "/x"), "kit:\",query\""},
		{"HEAD body", declErr[struct{ Opts *model }, any]("HEAD", "/x"), "embed the struct"},
		{"GET File", declErr[struct{ F kit.File }, any]("GET", "/x"), "no body"},
		{"[]byte", declErr[struct{ Data []byte }, any]("POST", "/x"), "never sent in the URL"},
		{"[]byte placeholder", declErr[struct{ ID []byte }, any]("POST", "/x/{id}"), "never sent in the URL"},
		{"io.Reader", declErr[struct{ R io.Reader }, any]("POST", "/x"), "kit.File"},
		{"*bytes.Buffer", declErr[struct{ R *bytes.Buffer }, any]("POST", "/x"), "kit.File"},
		{"chan", declErr[struct{ C chan int }, any]("POST", "/x"), "no text form"},
		{"error interface", declErr[struct{ E error }, any]("POST", "/x"), "no text form"},
		{"[]File outside multipart", declErr[struct{ F []kit.File }, any]("POST", "/x"), "Multipart"},
		{"File with Multipart", declErr[struct{ F kit.File }, any]("POST", "/x", kit.Multipart()), "body model"},
		{"File and a body", declErr[struct {
			F kit.File
			B model
		}, any]("POST", "/x"), "would both be the request body"},
		{"form of a slice", declErr[struct{ B []model }, any]("POST", "/x", kit.FormBody()), "one data model"},
		{"form with a File in a nested model", declErr[struct {
			B struct{ M struct{ F kit.File } }
		}, any]("POST", "/x", kit.FormBody()), "Multipart"},
		{"form with a map of int keys", declErr[struct{ B struct{ M map[int]string } }, any]("POST", "/x", kit.FormBody()), "field M of struct { M map[int]string }: type map[int]string: a map's keys are written as form keys"},
		{"form with a func", declErr[struct{ B struct{ F func() } }, any]("POST", "/x", kit.FormBody()), "no text form"},
		{"FormBody with two styles", declErr[struct{ B model }, any]("POST", "/x", kit.FormBody(kit.FormIndexed, kit.FormBrackets)), "one FormStyle"},
		{"FormBody with a bad style", declErr[struct{ B model }, any]("POST", "/x", kit.FormBody(kit.FormStyle(9))), "FormBody(kit.FormStyle(9)): not a FormStyle"},
		{"two url fields", declErr[struct {
			A string `kit:",url"`
			B string `kit:",url"`
		}, any]("GET", "/x"), "would both be the whole URL"},
		{"placeholder in host", declErr[struct{ H string }, any]("GET", "https://{h}/x"), "host"},
	}
	for _, tt := range bad {
		var de *kit.DeclarationError
		if !errors.As(tt.err, &de) || !strings.Contains(de.Reason, tt.want) {
			t.Errorf("%s: err = %v, want a *DeclarationError mentioning %q", tt.name, tt.err, tt.want)
		}
	}
	// Values known only at call time: an interface holding a []byte or a
	// body on a GET.
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	if _, err := kit.Get[struct{ V any }, any]("/x").Call(t.Context(), c, struct{ V any }{[]byte("x")}); err == nil || !strings.Contains(err.Error(), "never sent in the URL") {
		t.Errorf("any holding []byte: %v", err)
	}
	if _, err := kit.Get[struct{ V any }, any]("/x").Call(t.Context(), c, struct{ V any }{model{1}}); err == nil || !strings.Contains(err.Error(), "no body") {
		t.Errorf("any holding a model on a GET: %v", err)
	}
	if n := len(rec.requests()); n != 0 {
		t.Errorf("server saw %d requests, want none", n)
	}
}

func declErr[P, R any](method, path string, opts ...kit.EndpointOption) error {
	_, err := kit.NewEndpoint[P, R](method, path, opts...)
	return err
}

// endlessFile is a File whose reader never ends; it reports its first Read
// and its Close.
type endlessFile struct {
	started, closed chan struct{}
	once, closeOnce sync.Once
}

func (f *endlessFile) Read(p []byte) (int, error) {
	f.once.Do(func() { close(f.started) })
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func (f *endlessFile) Close() error {
	f.closeOnce.Do(func() { close(f.closed) })
	return nil
}

// TestUploadCancelledClosesFiles checks that an upload cancelled while its
// body is being sent closes the Files it opened (multipart is read from
// them directly: there is no goroutine to leak, and TestMain's leak check
// would see one).
func TestUploadCancelledClosesFiles(t *testing.T) {
	t.Parallel()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	type rawP struct{ Body kit.File }
	for _, tw := range twins {
		for _, kind := range []string{"raw", "multipart"} {
			t.Run(tw.name+"/"+kind, func(t *testing.T) {
				t.Parallel()
				b := tw.client(t, srv.URL)
				f := &endlessFile{started: make(chan struct{}), closed: make(chan struct{})}
				file := kit.File{Name: "endless", Open: func() (io.ReadCloser, error) { return f, nil }}
				ctx, cancel := context.WithCancel(t.Context())
				go func() {
					<-f.started
					cancel()
				}()
				var err error
				if kind == "raw" {
					_, err = twinCall(ctx, tw, kit.Put[rawP, *kit.Response]("/up"), b, rawP{file})
				} else {
					_, err = twinCall(ctx, tw, kit.Put[struct{ Body uploadModel }, *kit.Response]("/up", kit.Multipart()), b,
						struct{ Body uploadModel }{uploadModel{Title: "t", Doc: file}})
				}
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
				<-f.closed // the File's reader is closed (the test times out otherwise)
			})
		}
	}
}
