package kit_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/textdiff"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestErrorGrammar provokes the errors kit produces, one of each kind, and
// checks them against testdata/golden/errors.golden and against the
// grammar every kit error follows: "kit: <what was attempted>: <what went
// wrong>", one "kit:" however deep the wrapping, no "kit." stutter, one
// line. Run with -update to rewrite the golden file after a deliberate
// change.
func TestErrorGrammar(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"error":"not_found"}`)
	})
	mux.HandleFunc("GET /busy", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "try later", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("GET /text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "hello")
	})
	mux.HandleFunc("GET /user", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"name":""}`)
	})
	mux.HandleFunc("GET /big", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `"`+strings.Repeat("a", 100)+`"`)
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(2 * time.Second):
		}
	})
	mux.HandleFunc("GET /etag", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.WriteHeader(http.StatusNotModified)
	})
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("GET /cycle", func(w http.ResponseWriter, r *http.Request) {
		cur := r.URL.Query().Get("cursor")
		next := map[string]string{"": "a", "a": "b", "b": "a"}[cur]
		fmt.Fprintf(w, `{"data":[{"name":%q}],"next_cursor":%q}`, "n"+cur+next, next)
	})
	mux.HandleFunc("GET /echo", func(w http.ResponseWriter, r *http.Request) {
		// New cursors forever, the records of pages 1 and 2 again and again.
		n, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
		fmt.Fprintf(w, `{"data":[{"name":"n%d"}],"next_cursor":"%d"}`, n%2, n+1)
	})
	mux.HandleFunc("GET /away", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `<https://elsewhere.example/away?page=2>; rel="next"`)
		fmt.Fprint(w, `[{"name":"x"}]`)
	})
	mux.HandleFunc("GET /records", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprint(w, "{\"name\":\"a\"}\n{\"name\":\""+strings.Repeat("b", 20)+"\"}\n{\"name\":nope}\n")
	})
	mux.HandleFunc("GET /feed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if r.Header.Get("Last-Event-ID") == "" {
			fmt.Fprint(w, "id: 1\ndata: {\"name\":\"a\"}\n\n")
		}
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // a dropped connection
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ctx := t.Context()

	type user struct {
		Name string `json:"name" validate:"required"`
	}
	type idParams struct{ ID string }
	c, err := kit.NewClient(srv.URL + "/?api_key=sekrit")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	retrying, _ := kit.NewClient(srv.URL, kit.WithRetry(kit.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}))
	small, _ := kit.NewClient(srv.URL, kit.WithMaxBodySize(10))
	failingAuth, _ := kit.NewClient(srv.URL, kit.WithAuth(kit.TokenAuth(func(context.Context) (kit.Token, error) {
		return kit.Token{}, errors.New("login server down")
	})))
	refreshing, _ := kit.NewClient(srv.URL, kit.WithAuth(kit.TokenAuth(func(context.Context) (kit.Token, error) {
		return kit.Token{Value: "t"}, nil
	})))
	silent, _ := kit.NewClient(srv.URL, kit.WithInterceptors(func(kit.Sender) kit.Sender {
		return func(context.Context, *kit.Request) (*kit.Response, error) { return nil, nil }
	}))
	ac, _ := kit.NewAsyncClient(srv.URL)
	closed, _ := kit.NewAsyncClient(srv.URL)
	closed.Close(ctx)
	t.Cleanup(func() { ac.Close(context.Background()) })
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	get := func(path string) *kit.Endpoint[kit.NoParams, user] { return kit.Get[kit.NoParams, user](path) }
	getID := kit.Get[idParams, user]("/users/{id}")
	post := kit.Post[struct{ Body user }, user]("/users")
	firstErr := func(seq func(func(user, error) bool)) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	firstAny := func(seq func(func(any, error) bool)) error {
		for _, err := range seq {
			if err != nil {
				return err
			}
		}
		return nil
	}
	errOf := func(_ any, err error) error { return err }
	stream := func(b kit.Binding, path string) *kit.Stream[user] {
		s, err := kit.Get[kit.NoParams, *kit.Stream[user]](path).Call(ctx, b, kit.NoParams{})
		if err != nil {
			t.Errorf("stream %s: %v", path, err)
		}
		return s
	}
	rangedTwice := stream(c, "/records")
	for range rangedTwice.All() {
		break
	}
	bigRecords, _ := kit.NewClient(srv.URL, kit.WithMaxBodySize(16))

	cases := []struct {
		name string
		err  error
	}{
		{"bad base URL", errOf(kit.NewClient("ftp://h"))},
		{"empty bearer token", errOf(kit.NewClient("https://h", kit.WithAuth(kit.Bearer(""))))},
		{"negative retry policy", errOf(kit.NewClient("https://h", kit.WithRetry(kit.RetryPolicy{MaxAttempts: -1})))},
		{"zero max in flight", errOf(kit.NewAsyncClient("https://h", kit.WithMaxInFlight(0)))},
		{"nil engine", errOf(kit.NewClient("https://h", kit.WithEngine(nil)))},
		{"header with an empty key", errOf(kit.NewClient("https://h", kit.WithHeader("", "secret")))},
		{"endpoint header with an empty key", errOf(kit.NewEndpoint[kit.NoParams, user]("GET", "/x", kit.WithHeader("", "secret")))},
		{"paginator with a bad items key", errOf(kit.NewPaged[kit.NoParams, user]("/x", kit.WithPaginator(kit.Cursor{ItemsKey: "a..b"})))},
		{"bad declaration", errOf(kit.NewEndpoint[kit.NoParams, user]("GET", "/users/{id}"))},
		{"nil binding", errOf(get("/user").Call(ctx, nil, kit.NoParams{}))},
		{"path value ..", errOf(getID.Call(ctx, c, idParams{".."}))},
		{"invalid request body", errOf(post.Call(ctx, c, struct{ Body user }{}))},
		{"404", errOf(get("/missing").Call(ctx, c, kit.NoParams{}))},
		{"retries exhausted", errOf(get("/busy").Call(ctx, retrying, kit.NoParams{}))},
		{"not JSON", errOf(get("/text").Call(ctx, c, kit.NoParams{}))},
		{"invalid response", errOf(get("/user").Call(ctx, c, kit.NoParams{}))},
		{"body too large", errOf(kit.Get[kit.NoParams, string]("/big").Call(ctx, small, kit.NoParams{}))},
		{"cancelled", errOf(get("/user").Call(cancelled, c, kit.NoParams{}))},
		{"endpoint timeout", errOf(kit.Get[kit.NoParams, user]("/slow", kit.WithTimeout(10*time.Millisecond)).Call(ctx, c, kit.NoParams{}))},
		{"Call on an async client", errOf(get("/user").Call(ctx, ac, kit.NoParams{}))},
		{"Go after Close", errOf(get("/user").Go(ctx, closed, kit.NoParams{}).Await(ctx))},
		{"token fetch fails", errOf(get("/user").Call(ctx, failingAuth, kit.NoParams{}))},
		{"401 after refresh", errOf(get("/me").Call(ctx, refreshing, kit.NoParams{}))},
		{"interceptor answers nothing", errOf(get("/user").Call(ctx, silent, kit.NoParams{}))},
		{"resource without path", errOf(kit.NewResource[user](c, "").Get(ctx, 1))},
		{"resource id nil", errOf(kit.NewResource[user](c, "/users").Get(ctx, nil))},
		{"map as a body", errOf(kit.NewResource[any](c, "/users").Create(ctx, map[string]any{"a": 1}))},
		{"bad resource path", errOf(kit.NewResource[user](c, "/users/{id}").Get(ctx, 1))},
		{"query of a bad type", firstErr(kit.NewResource[user](c, "/users").Iterate(ctx, struct{ C chan int }{}))},
		{"cycling cursor", firstErr(kit.NewResource[user](c, "/cycle", kit.WithPaginator(kit.Cursor{})).All(ctx))},
		{"pages repeating by content", firstErr(kit.NewResource[user](c, "/echo", kit.WithPaginator(kit.Cursor{})).All(ctx))},
		{"next link to another origin", firstAny(kit.NewResource[any](c, "/away", kit.WithPaginator(kit.LinkHeader{})).All(ctx))},
		{"304 not modified", errOf(get("/etag").Call(ctx, c, kit.NoParams{}))},
		{"body field on a GET", errOf(kit.NewEndpoint[struct{ Opts user }, user]("GET", "/users"))},
		{"[]byte parameter", errOf(kit.NewEndpoint[struct{ Data []byte }, user]("POST", "/upload"))},
		{"io.Reader parameter", errOf(kit.NewEndpoint[struct{ R io.Reader }, user]("POST", "/upload"))},
		{"func parameter", errOf(kit.NewEndpoint[struct{ F func() }, user]("POST", "/upload"))},
		{"File in a JSON body", errOf(kit.NewEndpoint[struct{ Body struct{ Doc kit.File } }, user]("POST", "/upload"))},
		{"File in a form body", errOf(kit.NewEndpoint[struct{ Body struct{ Doc kit.File } }, user]("POST", "/upload", kit.FormBody()))},
		{"form body without a model", errOf(kit.NewEndpoint[kit.NoParams, user]("POST", "/token", kit.FormBody()))},
		{"query tag on a struct with a body", errOf(kit.NewEndpoint[struct {
			Opts struct{ Body user } `kit:",query"`
		}, user]("GET", "/users"))},
		{"url field of a bad type", errOf(kit.NewEndpoint[struct {
			Next int `kit:",url"`
		}, user]("GET", "/users"))},
		{"absolute URL of another scheme", errOf(kit.NewEndpoint[kit.NoParams, user]("GET", "ftp://files.example/x"))},
		{"url field of another scheme", errOf(kit.Get[struct {
			Next string `kit:",url"`
		}, user]("/users").Call(ctx, c, struct {
			Next string `kit:",url"`
		}{"ftp://files.example/x"}))},
		{"File that cannot be opened", errOf(kit.Post[struct{ Doc kit.File }, user]("/upload").Call(ctx, c, struct{ Doc kit.File }{kit.File{Name: "a.txt", Open: func() (io.ReadCloser, error) {
			return nil, errors.New("permission denied")
		}}}))},
		{"File without Open", errOf(kit.Post[struct{ Doc kit.File }, user]("/upload").Call(ctx, c, struct{ Doc kit.File }{kit.File{Name: "a.txt"}}))},
		{"OpenFile of a missing file", errOf(kit.OpenFile(filepath.Join("testdata", "no-such-file")))},
		{"download result of type File", errOf(kit.NewEndpoint[kit.NoParams, kit.File]("GET", "/file"))},
		{"FormBody and Multipart", errOf(kit.NewEndpoint[struct{ Body user }, user]("POST", "/x", kit.FormBody(), kit.Multipart()))},
		{"pagination option on a plain endpoint", errOf(kit.NewEndpoint[kit.NoParams, []user]("GET", "/users", kit.WithPrefetch(2)))},
		{"GoIterate on a sync client", firstErr(kit.Paged[idParams, user]("/teams/{id}/members").GoIterate(ctx, c, idParams{"1"}))},
		{"pipelined walk after Close", firstErr(kit.Paged[idParams, user]("/teams/{id}/members", kit.WithPrefetch(4)).GoIterate(ctx, closed, idParams{"1"}))},
		{"stream record that does not decode", firstErr(stream(c, "/records").All())},
		{"stream record over the limit", firstErr(stream(bigRecords, "/records").All())},
		{"stream dropped, resuming gives up", firstErr(stream(retrying, "/feed").All())},
		{"stream dropped, not resumed", firstErr(stream(c, "/feed").All())},
		{"stream ranged twice", firstErr(rangedTwice.All())},
		{"stream of another content type", errOf(kit.Get[kit.NoParams, *kit.Stream[user]]("/text").Call(ctx, c, kit.NoParams{}))},
		{"Stream result that is not a pointer", errOf(kit.NewEndpoint[kit.NoParams, kit.Stream[int]]("GET", "/records"))},
		{"Stream of ReadClosers", errOf(kit.NewEndpoint[kit.NoParams, *kit.Stream[io.ReadCloser]]("GET", "/records"))},
	}
	var b strings.Builder
	for _, tc := range cases {
		if tc.err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		text := strings.ReplaceAll(tc.err.Error(), srv.URL, "http://API")
		fmt.Fprintf(&b, "%s\n\t%s\n", tc.name, text)
		switch {
		case !strings.HasPrefix(text, "kit: "):
			t.Errorf("%s: %q does not start with \"kit: \"", tc.name, text)
		case strings.Count(text, "kit: ") != 1:
			t.Errorf("%s: %q says \"kit: \" more than once", tc.name, text)
		case strings.Contains(text, "kit.Resource") || strings.Contains(text, "kit.NewClient") || strings.Contains(text, "kit.Bearer"):
			t.Errorf("%s: %q stutters", tc.name, text)
		case strings.Contains(text, "\n"):
			t.Errorf("%s: %q is not one line", tc.name, text)
		case strings.Contains(text, "sekrit"):
			t.Errorf("%s: %q shows the API key", tc.name, text)
		}
	}
	golden := filepath.Join("testdata", "golden", "errors.golden")
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestErrorGrammar -update . to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("errors differ from %s (rerun with -update after a deliberate change):\n%s", golden, textdiff.Lines(string(want), got))
	}
}
