package kittest

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Upload is what POST /uploads (or PUT /files/{name}) received, as the API
// reports it: the text parts by name, and each file part with its size and
// SHA-256. The API keeps the report, not the content.
type Upload struct {
	ID     int                 `json:"id"`
	Fields map[string][]string `json:"fields"` // text and JSON parts by name, in order
	Files  []UploadedFile      `json:"files"`
}

// UploadedFile is one file part of an Upload (or the raw body of PUT
// /files/{name}).
type UploadedFile struct {
	Field       string `json:"field"`        // the part's name; "" for a raw body
	Name        string `json:"filename"`     // the part's file name (the {name} of a raw upload)
	ContentType string `json:"content_type"` // the part's (or the request's) Content-Type
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"` // lowercase hex
}

// DownloadContent returns a reader of the n bytes that GET
// /download?bytes=n serves: deterministic content, generated as it is read
// (nothing is stored), for checking a download.
func DownloadContent(n int64) io.Reader {
	return &downloadReader{n: max(n, 0)}
}

// Private implementation past this point.

// apiMaxDownload bounds /download?bytes=N.
const apiMaxDownload = 1 << 40

// apiExport is an export started with POST /exports.
type apiExport struct {
	ID     int    `json:"id"`
	Status string `json:"status"`
	Bytes  int64  `json:"bytes"`
}

// oauthToken handles POST /oauth/token, an OAuth 2.0 token endpoint for the
// client credentials grant (RFC 6749 sections 4.4 and 2.3.1).
func (a *API) oauthToken(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.stats.Logins++
	a.mu.Unlock()
	oauthError := func(status int, code, desc string) {
		w.Header().Set("Cache-Control", "no-store")
		apiWriteJSON(w, status, struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
			Message     string `json:"message"`
		}{code, desc, desc})
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		oauthError(http.StatusBadRequest, "invalid_request", "Content-Type must be application/x-www-form-urlencoded")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, apiMaxBody)
	if err := r.ParseForm(); err != nil {
		oauthError(http.StatusBadRequest, "invalid_request", "the request body is not a valid form")
		return
	}
	form := r.PostForm
	if gt := form.Get("grant_type"); gt != "client_credentials" {
		if gt == "" {
			oauthError(http.StatusBadRequest, "invalid_request", "grant_type is missing")
		} else {
			oauthError(http.StatusBadRequest, "unsupported_grant_type", "only grant_type=client_credentials is supported")
		}
		return
	}
	id, secret, basic := r.BasicAuth()
	if basic && (form.Has("client_id") || form.Has("client_secret")) {
		oauthError(http.StatusBadRequest, "invalid_request", "client credentials given both in the Authorization header and in the body")
		return
	}
	if !basic {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	idOK := subtle.ConstantTimeCompare([]byte(id), []byte(a.cfg.username)) == 1
	secretOK := subtle.ConstantTimeCompare([]byte(secret), []byte(a.cfg.password)) == 1
	if !idOK || !secretOK {
		if basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="kittest"`)
		}
		oauthError(http.StatusUnauthorized, "invalid_client", "unknown client or wrong client secret")
		return
	}
	a.issueToken(w)
}

// upload handles POST /uploads: a multipart/form-data body, read as a
// stream.
func (a *API) upload(w http.ResponseWriter, r *http.Request) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		apiWriteError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", "Content-Type must be multipart/form-data")
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		apiBadRequest(w, "malformed multipart body: "+err.Error())
		return
	}
	up := Upload{Fields: map[string][]string{}, Files: []UploadedFile{}}
	parts := 0
	for {
		p, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			apiBadRequest(w, "malformed multipart body: "+err.Error())
			return
		}
		parts++
		name := p.FormName()
		if name == "" {
			apiBadRequest(w, "part "+strconv.Itoa(parts)+" has no form-data name")
			return
		}
		if fname := p.FileName(); fname != "" {
			f, err := apiHashFile(p, name, fname, p.Header.Get("Content-Type"))
			if err != nil {
				apiBadRequest(w, "reading file part "+strconv.Quote(name)+": "+err.Error())
				return
			}
			up.Files = append(up.Files, f)
			continue
		}
		b, err := io.ReadAll(io.LimitReader(p, apiMaxBody+1))
		if err != nil {
			apiBadRequest(w, "reading part "+strconv.Quote(name)+": "+err.Error())
			return
		}
		if len(b) > apiMaxBody {
			apiWriteError(w, http.StatusRequestEntityTooLarge, "payload_too_large", "a text part is limited to 1 MiB")
			return
		}
		if pt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); pt == "application/json" && !json.Valid(b) {
			apiBadRequest(w, "part "+strconv.Quote(name)+" says application/json but is not valid JSON")
			return
		}
		up.Fields[name] = append(up.Fields[name], string(b))
	}
	if parts == 0 {
		apiBadRequest(w, "the multipart body has no parts")
		return
	}
	a.storeUpload(w, &up)
}

// uploadRaw handles PUT /files/{name}: the raw body is the file.
func (a *API) uploadRaw(w http.ResponseWriter, r *http.Request) {
	f, err := apiHashFile(r.Body, "", r.PathValue("name"), r.Header.Get("Content-Type"))
	if err != nil {
		apiBadRequest(w, "reading the body: "+err.Error())
		return
	}
	a.storeUpload(w, &Upload{Fields: map[string][]string{}, Files: []UploadedFile{f}})
}

func apiHashFile(r io.Reader, field, name, ctype string) (UploadedFile, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return UploadedFile{}, err
	}
	return UploadedFile{Field: field, Name: name, ContentType: ctype, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

func (a *API) storeUpload(w http.ResponseWriter, up *Upload) {
	a.mu.Lock()
	up.ID = len(a.uploads) + 1
	a.uploads = append(a.uploads, *up)
	a.mu.Unlock()
	w.Header().Set("Location", "uploads/"+strconv.Itoa(up.ID))
	apiWriteJSON(w, http.StatusCreated, up)
}

// getUpload handles GET /uploads/{id}.
func (a *API) getUpload(w http.ResponseWriter, r *http.Request) {
	id, ok := apiParseID(r.PathValue("id"))
	a.mu.Lock()
	var up Upload
	if ok && id <= len(a.uploads) {
		up = a.uploads[id-1]
	} else {
		ok = false
	}
	a.mu.Unlock()
	if !ok {
		apiNotFound(w, "no upload "+r.PathValue("id"))
		return
	}
	apiWriteJSON(w, http.StatusOK, up)
}

// download handles GET /download?bytes=N&stall_after=K: Range requests
// (If-Range with its ETag) as http.ServeContent serves them, and a stall
// at byte K for a response that starts before it.
func (a *API) download(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n := int64(1 << 20)
	if s := q.Get("bytes"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v > apiMaxDownload {
			apiBadRequest(w, "bytes must be an integer between 0 and "+strconv.Itoa(apiMaxDownload))
			return
		}
		n = v
	}
	stallAt := int64(-1)
	if s := q.Get("stall_after"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 || v >= n {
			apiBadRequest(w, "stall_after must be an integer from 0 to bytes-1")
			return
		}
		stallAt = v
	}
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", `attachment; filename="download.bin"`)
	h.Set("ETag", `"download-`+strconv.FormatInt(n, 10)+`"`)
	content := &downloadReader{n: n}
	var rs io.ReadSeeker = content
	if stallAt >= 0 {
		fl, _ := w.(http.Flusher)
		rs = &stallingReader{r: content, at: stallAt, start: -1, flush: fl, done: r.Context().Done()}
	}
	http.ServeContent(w, r, "", time.Time{}, rs)
}

// stallingReader serves a download that goes silent at byte at, when the
// response started before it: ServeContent seeks to where the response
// starts, then reads; at the stall it flushes what it sent and waits for
// the request to end. A resume from byte at on does not stall.
type stallingReader struct {
	r     *downloadReader
	at    int64
	start int64 // where the response starts; -1 until the first read
	flush http.Flusher
	done  <-chan struct{}
}

func (s *stallingReader) Seek(off int64, whence int) (int64, error) {
	return s.r.Seek(off, whence)
}

func (s *stallingReader) Read(p []byte) (int, error) {
	if s.start < 0 {
		s.start = s.r.off
	}
	if s.start < s.at && s.r.off >= s.at {
		if s.flush != nil {
			s.flush.Flush()
		}
		<-s.done
		return 0, errors.New("kittest: the download stalled")
	}
	if s.start < s.at && int64(len(p)) > s.at-s.r.off {
		p = p[:s.at-s.r.off]
	}
	return s.r.Read(p)
}

// startExport handles POST /exports: 202 Accepted with a Location.
func (a *API) startExport(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Bytes *int64 `json:"bytes"`
	}
	if r.ContentLength != 0 {
		body, ok := apiReadJSON(w, r, '{')
		if !ok {
			return
		}
		if err := json.Unmarshal(body, &req); err != nil {
			apiBadRequest(w, "bytes must be an integer")
			return
		}
	}
	n := int64(1 << 20)
	if req.Bytes != nil {
		if *req.Bytes < 0 || *req.Bytes > apiMaxDownload {
			apiValidationFailed(w, map[string]string{"bytes": "must be between 0 and " + strconv.Itoa(apiMaxDownload)})
			return
		}
		n = *req.Bytes
	}
	a.mu.Lock()
	e := apiExport{ID: len(a.exports) + 1, Status: "pending", Bytes: n}
	a.exports = append(a.exports, e)
	a.mu.Unlock()
	w.Header().Set("Location", "exports/"+strconv.Itoa(e.ID))
	apiWriteJSON(w, http.StatusAccepted, e)
}

// getExport handles GET /exports/{id}: the export is done by the time it
// is asked for.
func (a *API) getExport(w http.ResponseWriter, r *http.Request) {
	id, ok := apiParseID(r.PathValue("id"))
	a.mu.Lock()
	var e apiExport
	if ok && id <= len(a.exports) {
		a.exports[id-1].Status = "done"
		e = a.exports[id-1]
	} else {
		ok = false
	}
	a.mu.Unlock()
	if !ok {
		apiNotFound(w, "no export "+r.PathValue("id"))
		return
	}
	apiWriteJSON(w, http.StatusOK, e)
}

// downloadBlock is the 64 KiB that download content repeats: SHA-256 in
// counter mode, so it does not compress to nothing.
var downloadBlock = sync.OnceValue(func() []byte {
	b := make([]byte, 64<<10)
	for i := 0; i < len(b); i += sha256.Size {
		sum := sha256.Sum256([]byte("kittest download " + strconv.Itoa(i)))
		copy(b[i:], sum[:])
	}
	return b
})

type downloadReader struct {
	n, off int64
}

// Seek moves to an offset of the content, for http.ServeContent.
func (d *downloadReader) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += d.off
	case io.SeekEnd:
		off += d.n
	}
	if off < 0 {
		return 0, errors.New("kittest: seeking before the start of the download")
	}
	d.off = off
	return off, nil
}

func (d *downloadReader) Read(p []byte) (int, error) {
	if d.off >= d.n {
		return 0, io.EOF
	}
	block := downloadBlock()
	want := int(min(int64(len(p)), d.n-d.off))
	n := 0
	for n < want {
		i := int(d.off % int64(len(block)))
		c := copy(p[n:want], block[i:])
		n += c
		d.off += int64(c)
	}
	return n, nil
}
