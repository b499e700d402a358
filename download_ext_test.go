package kit_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// A download under WithIdleTimeout and a retry policy resumes with Range
// and If-Range when the server can send the rest. The idle timeouts are
// generous; what is checked is the outcome, never how long it took.

type dlParams struct {
	Bytes      int `kit:"bytes"`
	StallAfter int `kit:"stall_after,omitempty"`
}

var dlDownload = kit.Get[dlParams, io.ReadCloser]("/download")

// dlContent is what GET /download?bytes=n serves.
func dlContent(n int) []byte {
	b, _ := io.ReadAll(kittest.DownloadContent(int64(n)))
	return b
}

// dlRead reads the download of p from c through tw, with opts.
func dlRead(t *testing.T, tw twin, c kit.Binding, p dlParams, opts ...kit.CallOption) ([]byte, error) {
	t.Helper()
	body, err := twinCall(t.Context(), tw, dlDownload, c, p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer body.Close()
	return io.ReadAll(body)
}

func TestDownloadResumesAfterIdle(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			srv := serve(t, kittest.NewAPI())
			c := tw.client(t, srv.URL, kit.WithRetry(rtFastRetry(3)), kit.WithIdleTimeout(150*time.Millisecond))
			got, err := dlRead(t, tw, c, dlParams{Bytes: 300000, StallAfter: 70000})
			if err != nil || !bytes.Equal(got, dlContent(300000)) {
				t.Fatalf("read %d bytes, err %v; want the 300000 bytes in order", len(got), err)
			}
		})
	}
}

// The FaultServer's stall in front of the API: the resume is the next
// request, answered with 206 and the rest.
func TestDownloadResumesFaultStallMidBody(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			fs := kittest.NewFaultServer(t, nil)
			fs.Script(kittest.FaultStallMidBody)
			c := tw.client(t, fs.URL(), kit.WithRetry(rtFastRetry(3)), kit.WithIdleTimeout(150*time.Millisecond))
			got, err := dlRead(t, tw, c, dlParams{Bytes: 100000})
			if err != nil || !bytes.Equal(got, dlContent(100000)) {
				t.Fatalf("read %d bytes, err %v; want the 100000 bytes in order", len(got), err)
			}
			if n := fs.Requests(); n != 2 {
				t.Errorf("server saw %d requests, want 2", n)
			}
		})
	}
}

// The resource changed: the resume gets a 200 with the whole body, which
// is not spliced onto the first half.
func TestDownloadChangedOnResume(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			fs := kittest.NewFaultServer(t, nil)
			fs.Script(kittest.FaultStallMidBody, kittest.FaultIgnoreRange)
			c := tw.client(t, fs.URL(), kit.WithRetry(rtFastRetry(3)), kit.WithIdleTimeout(150*time.Millisecond))
			got, err := dlRead(t, tw, c, dlParams{Bytes: 100000})
			if !errors.Is(err, kit.ErrDownloadChanged) {
				t.Fatalf("read %d bytes, err = %v; want ErrDownloadChanged", len(got), err)
			}
			if !bytes.Equal(got, dlContent(100000)[:50000]) {
				t.Errorf("read %d bytes, want the first 50000 only", len(got))
			}
			if kit.Retryable(err) {
				t.Errorf("Retryable(%v) = true", err)
			}
			if !strings.Contains(err.Error(), "whole resource") {
				t.Errorf("error %q does not say what the server sent", err)
			}
		})
	}
}

// rangeServer serves a download of size bytes whose first response stalls
// after half; resumes are answered by resume, given the Range and
// If-Range it received. It counts requests.
type rangeServer struct {
	size    int
	etag    string
	noRange bool // no Accept-Ranges
	// lastModifiedNow: a Last-Modified equal to the Date, a weak
	// validator (RFC 9110 section 8.8.2.2).
	lastModifiedNow bool
	resume          func(w http.ResponseWriter, r *http.Request, content []byte)

	mu       sync.Mutex
	requests int
	ranges   []string
}

func (s *rangeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	n := s.requests
	if rng := r.Header.Get("Range"); rng != "" {
		s.ranges = append(s.ranges, rng+" "+r.Header.Get("If-Range")+" "+r.Header.Get("Accept-Encoding"))
	}
	s.mu.Unlock()
	content := dlContent(s.size)
	if s.etag != "" {
		w.Header().Set("ETag", s.etag)
	}
	if !s.noRange {
		w.Header().Set("Accept-Ranges", "bytes")
	}
	if s.lastModifiedNow {
		now := time.Now().UTC().Format(http.TimeFormat)
		w.Header().Set("Date", now)
		w.Header().Set("Last-Modified", now)
	}
	if n > 1 {
		s.resume(w, r, content)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(s.size))
	w.Write(content[:s.size/2])
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

func (s *rangeServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// partial answers 206 with content[first:last+1] and its Content-Range.
func partial(w http.ResponseWriter, content []byte, first, last int) {
	w.Header().Set("Content-Range", "bytes "+strconv.Itoa(first)+"-"+strconv.Itoa(last)+"/"+strconv.Itoa(len(content)))
	w.Header().Set("Content-Length", strconv.Itoa(last-first+1))
	w.WriteHeader(http.StatusPartialContent)
	w.Write(content[first : last+1])
}

// A server that caps each range: the download asks again for what is
// left, until it has every byte.
func TestDownloadResumesPartialRanges(t *testing.T) {
	t.Parallel()
	rs := &rangeServer{size: 1000, etag: `"v1"`, resume: func(w http.ResponseWriter, r *http.Request, content []byte) {
		first, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.Header.Get("Range"), "bytes="), "-"))
		partial(w, content, first, min(first+199, len(content)-1))
	}}
	srv := serve(t, rs)
	c := newClient(t, srv.URL, kit.WithRetry(rtFastRetry(2)), kit.WithIdleTimeout(150*time.Millisecond))
	got, err := dlRead(t, syncTwin, c, dlParams{Bytes: 1})
	if err != nil || !bytes.Equal(got, dlContent(1000)) {
		t.Fatalf("read %d bytes, err %v; want the 1000 bytes in order", len(got), err)
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	want := []string{`bytes=500- "v1" identity`, `bytes=700- "v1" identity`, `bytes=900- "v1" identity`}
	if strings.Join(rs.ranges, "|") != strings.Join(want, "|") {
		t.Errorf("resumes %q, want %q", rs.ranges, want)
	}
}

// Last-Modified serves as the validator when there is no ETag (and it is
// well before the response's Date, which net/http's server sends).
func TestDownloadResumesWithLastModified(t *testing.T) {
	t.Parallel()
	lm := "Wed, 21 Oct 2015 07:28:00 GMT"
	var gotIfRange string
	rs := &rangeServer{size: 1000, resume: func(w http.ResponseWriter, r *http.Request, content []byte) {
		gotIfRange = r.Header.Get("If-Range")
		partial(w, content, 500, 999)
	}}
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", lm)
		rs.ServeHTTP(w, r)
	}))
	c := newClient(t, srv.URL, kit.WithRetry(rtFastRetry(2)), kit.WithIdleTimeout(150*time.Millisecond))
	got, err := dlRead(t, syncTwin, c, dlParams{Bytes: 1})
	if err != nil || !bytes.Equal(got, dlContent(1000)) {
		t.Fatalf("read %d bytes, err %v", len(got), err)
	}
	if gotIfRange != lm {
		t.Errorf("If-Range %q, want the Last-Modified %q", gotIfRange, lm)
	}
}

// Resumes that a server answers with other bytes than asked end the
// download with ErrDownloadChanged.
func TestDownloadMismatchingContentRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		resume func(w http.ResponseWriter, content []byte)
	}{
		{"another start", func(w http.ResponseWriter, content []byte) { partial(w, content, 0, 999) }},
		{"another length", func(w http.ResponseWriter, content []byte) {
			w.Header().Set("Content-Range", "bytes 500-999/2000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(content[500:])
		}},
		{"no Content-Range", func(w http.ResponseWriter, content []byte) {
			w.WriteHeader(http.StatusPartialContent)
			w.Write(content[500:])
		}},
		{"another ETag", func(w http.ResponseWriter, content []byte) {
			w.Header().Set("ETag", `"v2"`)
			partial(w, content, 500, 999)
		}},
		{"past the length", func(w http.ResponseWriter, content []byte) {
			// Chunked, no Content-Length: more bytes than the range.
			w.Header().Set("Content-Range", "bytes 500-999/1000")
			w.WriteHeader(http.StatusPartialContent)
			w.Write(content[500:])
			w.Write(content[:100])
		}},
		{"204", func(w http.ResponseWriter, content []byte) { w.WriteHeader(http.StatusNoContent) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs := &rangeServer{size: 1000, etag: `"v1"`, resume: func(w http.ResponseWriter, _ *http.Request, content []byte) { tc.resume(w, content) }}
			c := newClient(t, serve(t, rs).URL, kit.WithRetry(rtFastRetry(3)), kit.WithIdleTimeout(150*time.Millisecond))
			got, err := dlRead(t, syncTwin, c, dlParams{Bytes: 1})
			if !errors.Is(err, kit.ErrDownloadChanged) {
				t.Fatalf("read %d bytes, err = %v; want ErrDownloadChanged", len(got), err)
			}
			if !bytes.Equal(got, dlContent(1000)[:len(got)]) || len(got) < 500 || len(got) > 1000 {
				t.Errorf("read %d bytes: not a prefix of the content from 500 to 1000 bytes", len(got))
			}
		})
	}
}

// Without Accept-Ranges, a validator or a retry policy, a download that
// goes idle reports ErrIdleTimeout, as before: nothing is resent.
func TestDownloadWithoutResumeReportsIdleTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		rs    *rangeServer
		retry bool
	}{
		{"no validator", &rangeServer{size: 1000}, true},
		{"weak ETag only", &rangeServer{size: 1000, etag: `W/"v1"`}, true},
		{"Last-Modified now", &rangeServer{size: 1000, lastModifiedNow: true}, true},
		{"no Accept-Ranges", &rangeServer{size: 1000, etag: `"v1"`, noRange: true}, true},
		{"no retry policy", &rangeServer{size: 1000, etag: `"v1"`}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.rs.resume = func(w http.ResponseWriter, _ *http.Request, content []byte) { partial(w, content, 500, 999) }
			opts := []kit.Option{kit.WithIdleTimeout(150 * time.Millisecond)}
			if tc.retry {
				opts = append(opts, kit.WithRetry(rtFastRetry(3)))
			}
			c := newClient(t, serve(t, tc.rs).URL, opts...)
			got, err := dlRead(t, syncTwin, c, dlParams{Bytes: 1})
			if !errors.Is(err, kit.ErrIdleTimeout) || len(got) != 500 {
				t.Fatalf("read %d bytes, err = %v; want 500 and ErrIdleTimeout", len(got), err)
			}
			if n := tc.rs.count(); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

// Resumes that bring no new byte count against MaxAttempts.
func TestDownloadResumesBoundedByRetryPolicy(t *testing.T) {
	t.Parallel()
	rs := &rangeServer{size: 1000, etag: `"v1"`, resume: func(w http.ResponseWriter, r *http.Request, content []byte) {
		// 206, then silence: no byte of the rest.
		w.Header().Set("Content-Range", "bytes 500-999/1000")
		w.Header().Set("Content-Length", "500")
		w.WriteHeader(http.StatusPartialContent)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}}
	c := newClient(t, serve(t, rs).URL, kit.WithRetry(rtFastRetry(3)), kit.WithIdleTimeout(150*time.Millisecond))
	got, err := dlRead(t, syncTwin, c, dlParams{Bytes: 1})
	if !errors.Is(err, kit.ErrIdleTimeout) || len(got) != 500 {
		t.Fatalf("read %d bytes, err = %v; want 500 and ErrIdleTimeout", len(got), err)
	}
	if !strings.Contains(err.Error(), "dropped 3 times") {
		t.Errorf("error %q does not say how many times", err)
	}
	if n := rs.count(); n != 3 {
		t.Errorf("server saw %d requests, want 3 (MaxAttempts)", n)
	}
}

// Cancelling the call's context ends a download while it waits to resume
// or reads the resumed body.
func TestDownloadResumeCancelled(t *testing.T) {
	t.Parallel()
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			t.Parallel()
			resumed := make(chan struct{})
			var once sync.Once
			rs := &rangeServer{size: 1000, etag: `"v1"`, resume: func(w http.ResponseWriter, r *http.Request, content []byte) {
				w.Header().Set("Content-Range", "bytes 500-999/1000")
				w.Header().Set("Content-Length", "500")
				w.WriteHeader(http.StatusPartialContent)
				w.(http.Flusher).Flush()
				once.Do(func() { close(resumed) })
				<-r.Context().Done()
			}}
			srv := serve(t, rs)
			c := tw.client(t, srv.URL, kit.WithRetry(rtFastRetry(3)), kit.WithIdleTimeout(150*time.Millisecond))
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			body, err := twinCall(ctx, tw, dlDownload, c, dlParams{Bytes: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer body.Close()
			go func() {
				<-resumed
				cancel()
			}()
			got, err := io.ReadAll(body)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("read %d bytes, err = %v; want context.Canceled", len(got), err)
			}
		})
	}
}

// Close during a read of a resumable download ends the read.
func TestDownloadCloseEndsRead(t *testing.T) {
	t.Parallel()
	rs := &rangeServer{size: 1000, etag: `"v1"`}
	srv := serve(t, rs)
	c := newClient(t, srv.URL, kit.WithRetry(rtFastRetry(3)), kit.WithIdleTimeout(time.Minute))
	body, err := dlDownload.Call(t.Context(), c, dlParams{Bytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 500)
	if _, err := io.ReadFull(body, buf); err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := body.Read(buf)
		read <- err
	}()
	if err := body.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-read; err == nil {
		t.Error("a read past the stall succeeded after Close")
	}
	if _, err := body.Read(buf); err == nil {
		t.Error("a read after Close succeeded")
	}
	if err := body.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if n := rs.count(); n != 1 {
		t.Errorf("server saw %d requests, want 1: Close does not resume", n)
	}
}
