package kit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// labelSet is a JSON body that is a map of models.
type labelSet map[string]apiUser

// TestBodyTag sends fields tagged `kit:",body"` as the JSON body, whatever
// their type: a map of anything, a map of models (validated entry by
// entry), a slice of text, a string, an interface; nil sends no body, and
// a kit.File so tagged is the raw body.
func TestBodyTag(t *testing.T) {
	t.Parallel()
	rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		b, _ := io.ReadAll(r.Body)
		if len(b) == 0 {
			b = []byte("null")
		}
		w.Write(b) // echo
	})
	_, c := setup(t, rec)
	type mapBody struct {
		ID   int
		Body map[string]any `kit:",body"`
	}
	conv := kit.Post[mapBody, map[string]any]("/app-manifests/{id}/conversions")
	got, err := conv.Call(t.Context(), c, mapBody{ID: 7, Body: map[string]any{"name": "app", "n": 2, "nested": map[string]any{"ok": true}}})
	if err != nil {
		t.Fatal(err)
	}
	if got["name"] != "app" || got["n"] != 2.0 || got["nested"].(map[string]any)["ok"] != true {
		t.Errorf("echoed %v", got)
	}
	if _, err := conv.Call(t.Context(), c, mapBody{ID: 8}); err != nil {
		t.Fatal(err)
	}

	users := kit.Put[struct {
		Users labelSet `kit:",body"`
	}, labelSet]("/labels")
	set := labelSet{"a": {Name: "ann", Email: "ann@example.com"}}
	back, err := users.Call(t.Context(), c, struct {
		Users labelSet `kit:",body"`
	}{set})
	if err != nil || back["a"].Name != "ann" {
		t.Fatalf("%v %v", back, err)
	}
	_, err = users.Call(t.Context(), c, struct {
		Users labelSet `kit:",body"`
	}{labelSet{"z": {Name: "zed", Email: "nope"}, "b": {Name: "bob", Email: "not-an-address"}, "a": {Name: "ann", Email: "ann@example.com"}}})
	var ve *kit.ValidationError
	if !errors.As(err, &ve) || len(ve.Fields) != 2 || ve.Fields[0].Path != "[b].Email" || ve.Fields[1].Path != "[z].Email" {
		t.Errorf("invalid entries, reported in key order: %v", err)
	}

	names := kit.Post[struct {
		Names []string `kit:",body"`
	}, []string]("/names")
	if ns, err := names.Call(t.Context(), c, struct {
		Names []string `kit:",body"`
	}{[]string{"a", "b"}}); err != nil || strings.Join(ns, ",") != "a,b" {
		t.Errorf("%v %v", ns, err)
	}
	text := kit.Post[struct {
		S string `kit:",body"`
	}, string]("/text")
	if s, err := text.Call(t.Context(), c, struct {
		S string `kit:",body"`
	}{`say "hi"`}); err != nil || s != `say "hi"` {
		t.Errorf("%q %v", s, err)
	}
	dyn := kit.Patch[struct {
		V any `kit:",body"`
	}, json.RawMessage]("/dyn")
	if raw, err := dyn.Call(t.Context(), c, struct {
		V any `kit:",body"`
	}{map[string]int{"k": 1}}); err != nil || string(raw) != `{"k":1}` {
		t.Errorf("%s %v", raw, err)
	}
	file := kit.Post[struct {
		F kit.File `kit:",body"`
	}, *kit.Response]("/raw")
	if _, err := file.Call(t.Context(), c, struct {
		F kit.File `kit:",body"`
	}{kit.FileFromBytes("a.bin", []byte("raw bytes"))}); err != nil {
		t.Fatal(err)
	}

	reqs := rec.requests()
	wantBodies := []string{
		`{"n":2,"name":"app","nested":{"ok":true}}`, "",
		`{"a":{"name":"ann","email":"ann@example.com","team_id":0,"active":false}}`,
		`["a","b"]`, `"say \"hi\""`, `{"k":1}`, "raw bytes",
	}
	if len(reqs) != len(wantBodies) {
		t.Fatalf("%d requests, want %d (nothing sent for the invalid body)", len(reqs), len(wantBodies))
	}
	for i, r := range reqs {
		if string(r.Body) != wantBodies[i] {
			t.Errorf("request %d body %s, want %s", i, r.Body, wantBodies[i])
		}
		wantType := "application/json"
		switch wantBodies[i] {
		case "":
			wantType = ""
		case "raw bytes":
			wantType = "application/octet-stream"
		}
		if ct := r.Header.Get("Content-Type"); ct != wantType {
			t.Errorf("request %d Content-Type %q, want %q", i, ct, wantType)
		}
	}
	if reqs[0].URL.Path != "/app-manifests/7/conversions" || reqs[0].URL.RawQuery != "" {
		t.Errorf("the map went elsewhere too: %s", reqs[0].URL)
	}
}

// TestBodyTagForm: a map tagged `kit:",body"` is a whole form body with
// FormBody: its keys are the form's keys, nested values in brackets.
func TestBodyTagForm(t *testing.T) {
	t.Parallel()
	rec := newRecorder(nil)
	_, c := setup(t, rec)
	type formMap struct {
		F map[string]any `kit:",body"`
	}
	ep := kit.Post[formMap, any]("/settings", kit.FormBody(kit.FormIndexed))
	if _, err := ep.Call(t.Context(), c, formMap{map[string]any{"theme": "dark", "tags": []string{"a", "b"}, "limits": map[string]int{"n": 3}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Call(t.Context(), c, formMap{map[string]any{"bad]key": 1}}); err == nil || !strings.Contains(err.Error(), `map key "bad]key" cannot be written`) {
		t.Errorf("a bracket in a key: %v", err)
	}
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if got, _ := url.QueryUnescape(string(reqs[0].Body)); got != "limits[n]=3&tags[0]=a&tags[1]=b&theme=dark" || reqs[0].Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Errorf("body %s (%s)", got, reqs[0].Header.Get("Content-Type"))
	}
}

// TestBodyTagRefused: a `kit:",body"` field that cannot be a JSON body,
// or would be a second body, or is on a GET, is a *DeclarationError.
func TestBodyTagRefused(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		decl func() error
		want string
	}{
		"GET": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]any `kit:",body"`
			}, any]("GET", "/x")
			return err
		}, "field M (map[string]interface {}) would be the request body, and GET requests have no body"},
		"channel": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]chan int `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "field M (map[string]chan int) cannot be the JSON request body: type chan int has no JSON form"},
		"bool keys": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[bool]int `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "its key type bool is not a string, an integer or an encoding.TextMarshaler"},
		"file inside": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]kit.File `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "type kit.File is a kit.File, which has no JSON form"},
		"file in a model": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]struct{ F kit.File } `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "field F of the body model struct { F kit.File } is a kit.File"},
		"bytes": {func() error {
			_, err := kit.NewEndpoint[struct {
				B []byte `kit:",body"`
			}, any]("POST", "/x")
			return err
		}, "send raw bytes as a kit.File"},
		"named": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]any `kit:"m,body"`
			}, any]("POST", "/x")
			return err
		}, `is the request body, which has no name: drop the name "m"`},
		"two bodies": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]any `kit:",body"`
				U apiUser
			}, any]("POST", "/x")
			return err
		}, "field M and field U would both be the request body"},
		"with query": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]any `kit:",body,query"`
			}, any]("POST", "/x")
			return err
		}, "the kit tag option body excludes header, query and url"},
		"a form of a slice": {func() error {
			_, err := kit.NewEndpoint[struct {
				S []string `kit:",body"`
			}, any]("POST", "/x", kit.FormBody())
			return err
		}, "a form body is one data model (a struct) or a map marked body, not []string"},
		"a form with int keys": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[int]string `kit:",body"`
			}, any]("POST", "/x", kit.FormBody())
			return err
		}, "a map's keys are written as form keys, and its key type int is not a string kind"},
		"an unmarked map form": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]string
			}, any]("POST", "/x", kit.FormBody())
			return err
		}, "kit.FormBody() needs a body model"},
		"a multipart map": {func() error {
			_, err := kit.NewEndpoint[struct {
				M map[string]string `kit:",body"`
			}, any]("POST", "/x", kit.Multipart())
			return err
		}, "a multipart body is one data model (a struct), not map[string]string"},
	}
	for name, tc := range cases {
		err := tc.decl()
		var de *kit.DeclarationError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *DeclarationError with %q", name, err, tc.want)
		}
	}
}

// ---------------------------------------------------------------------------
// Defect 4: data race in the multipart body: Read and Close share state
// with no lock, and net/http closes a request body from another goroutine
// while its write loop reads it ("Body must allow Read to be called
// concurrently with Close"). Checked on every body kit makes: multipart,
// raw File, form and JSON, by an attempt interceptor that reads a body of
// its own (GetBody) while another goroutine closes it. Run under -race.

func TestHostileSecBodyReadCloseRace(t *testing.T) { // defect 4
	type upload struct {
		Note  string     `json:"note"`
		Files []kit.File `json:"files"`
	}
	type form struct {
		A string `json:"a"`
	}
	big := strings.Repeat("x", 64<<10)
	files := func() []kit.File {
		fs := make([]kit.File, 8)
		for i := range fs {
			fs[i] = kit.FileFromBytes("f"+strconv.Itoa(i), []byte(big))
		}
		return fs
	}
	type rawParams struct{ Body kit.File }
	type jsonParams struct{ Body form }
	calls := map[string]func(ctx context.Context, c *kit.Client) error{
		"multipart": func(ctx context.Context, c *kit.Client) error {
			_, err := kit.Post[struct{ Form upload }, hxRec]("/rec", kit.Multipart()).Call(ctx, c, struct{ Form upload }{upload{Note: "n", Files: files()}})
			return err
		},
		"raw_File": func(ctx context.Context, c *kit.Client) error {
			_, err := kit.Post[rawParams, hxRec]("/rec").Call(ctx, c, rawParams{files()[0]})
			return err
		},
		"form": func(ctx context.Context, c *kit.Client) error {
			_, err := kit.Post[jsonParams, hxRec]("/rec", kit.FormBody()).Call(ctx, c, jsonParams{form{big}})
			return err
		},
		"json": func(ctx context.Context, c *kit.Client) error {
			_, err := kit.Post[jsonParams, hxRec]("/rec").Call(ctx, c, jsonParams{form{big}})
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":1}`)
			})
			var afterClose atomic.Value
			race := func(next kit.Sender) kit.Sender {
				return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
					for range 20 {
						body, err := req.GetBody()
						if err != nil {
							return nil, err
						}
						started := make(chan struct{})
						done := make(chan error, 1)
						go func() {
							buf := make([]byte, 1024)
							close(started)
							for {
								if _, err := body.Read(buf); err != nil {
									done <- err
									return
								}
							}
						}()
						<-started
						body.Close()
						err = <-done
						if err == io.EOF {
							continue // read to the end before Close: nothing to check
						}
						if _, err := body.Read(buf1k()); err == nil {
							afterClose.Store(fmt.Sprintf("a Read after Close returned no error (%T)", body))
						}
					}
					return next(ctx, req)
				}
			}
			c := hxClient(t, srv.URL, kit.WithAttemptInterceptors(race))
			if err := call(hxCtx(t), c); err != nil {
				t.Fatal(err)
			}
			if v := afterClose.Load(); v != nil && name == "multipart" {
				t.Error(v)
			}
		})
	}
}

func buf1k() []byte { return make([]byte, 1024) }

// ---------------------------------------------------------------------------
// Defect 9: a multipart upload opens every kit.File before sending a byte
// (64 of 64 open at once; 25,000 files hit the descriptor limit). Each part
// is opened when its turn comes, and closed once read.

func TestHostileSecMultipartOpensInTurn(t *testing.T) { // defect 9
	type upload struct {
		Files []kit.File `json:"files"`
	}
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async_%v", async), func(t *testing.T) {
			srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":1}`)
			})
			var open, maxOpen, opened atomic.Int32
			files := make([]kit.File, 64)
			for i := range files {
				files[i] = kit.File{Name: "f" + strconv.Itoa(i), Open: func() (io.ReadCloser, error) {
					n := open.Add(1)
					opened.Add(1)
					for {
						m := maxOpen.Load()
						if n <= m || maxOpen.CompareAndSwap(m, n) {
							break
						}
					}
					return &hsCountedReader{r: strings.NewReader("content " + strconv.Itoa(i)), open: &open}, nil
				}}
			}
			ep := kit.Post[struct{ Form upload }, hxRec]("/rec", kit.Multipart())
			var err error
			if async {
				_, err = ep.Go(hxCtx(t), hxAsyncClient(t, srv.URL), struct{ Form upload }{upload{files}}).Await(hxCtx(t))
			} else {
				_, err = ep.Call(hxCtx(t), hxClient(t, srv.URL), struct{ Form upload }{upload{files}})
			}
			if err != nil {
				t.Fatal(err)
			}
			if maxOpen.Load() != 1 || opened.Load() != 64 || open.Load() != 0 {
				t.Errorf("%d files open at once at most, %d opened, %d left open; want 1, 64, 0", maxOpen.Load(), opened.Load(), open.Load())
			}
		})
	}
	t.Run("open_error_mid_body", func(t *testing.T) {
		var hits atomic.Int32
		srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id":1}`)
		})
		boom := errors.New("hs open boom")
		files := []kit.File{kit.FileFromBytes("a", []byte("a")), {Name: "b", Open: func() (io.ReadCloser, error) { return nil, boom }}}
		_, err := kit.Post[struct{ Form upload }, hxRec]("/rec", kit.Multipart()).Call(hxCtx(t), hxClient(t, srv.URL), struct{ Form upload }{upload{files}})
		if !errors.Is(err, boom) || !strings.Contains(err.Error(), `"b"`) {
			t.Errorf("upload whose second file fails to open: %v; want an error naming file \"b\" and wrapping its error", err)
		}
	})
}

// hsCountedReader decrements open when closed (once).
type hsCountedReader struct {
	r      io.Reader
	open   *atomic.Int32
	closed atomic.Bool
}

func (c *hsCountedReader) Read(p []byte) (int, error) { return c.r.Read(p) }
func (c *hsCountedReader) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.open.Add(-1)
	}
	return nil
}

// TestHostileSecMultipartHTTP2Cancel is defect 4 as it shows in use: an
// upload over HTTP/2 cancelled while the transport's write loop reads the
// body, which the transport then closes from another goroutine. Under
// -race the unguarded body reports a data race; the call must end with
// the context's error, and every File opened must be closed.
func TestHostileSecMultipartHTTP2Cancel(t *testing.T) { // defect 4
	type upload struct {
		Files []kit.File `json:"files"`
	}
	got := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 64<<10)
		io.ReadFull(r.Body, buf)
		select {
		case got <- struct{}{}:
		default:
		}
		io.Copy(io.Discard, r.Body)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := hxClient(t, srv.URL, kit.WithHTTPClient(srv.Client()))
	ep := kit.Post[struct{ Form upload }, hxRec]("/up", kit.Multipart())
	var open atomic.Int32
	part := strings.Repeat("y", 1<<20)
	for round := range 5 {
		files := make([]kit.File, 16)
		for i := range files {
			files[i] = kit.File{Name: "f" + strconv.Itoa(i), Open: func() (io.ReadCloser, error) {
				open.Add(1)
				return &hsCountedReader{r: strings.NewReader(part), open: &open}, nil
			}}
		}
		ctx, cancel := context.WithCancel(hxCtx(t))
		go func() {
			select {
			case <-got:
			case <-ctx.Done():
			}
			cancel()
		}()
		_, err := ep.Call(ctx, c, struct{ Form upload }{upload{files}})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: cancelled upload: %v; want an error matching context.Canceled", round, err)
		}
	}
	// The transport closes the body after the call returns; wait for it.
	for i := 0; open.Load() != 0 && i < 5000; i++ {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d files left open", n)
	}
}
