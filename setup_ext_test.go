package kit_test

import (
	"bytes"
	"context"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// The shared setup of the black-box tests. Test servers are started here,
// with kittest.NewServer, and clients made here, so that all are stopped
// the same way when the test ends. (Tests of the client constructors and
// Close themselves, and the fault suite, call kit directly.) Helpers that
// belong to one concern (the scripted retry server, the gate of the async
// tests, the token server of the auth tests) stay in their files and build
// on these.

// setup starts h (kittest.NewAPI() when nil) on a loopback server and
// returns it with a *kit.Client, made with opts, whose base URL is the
// server's. Both are closed when the test ends.
func setup(t testing.TB, h http.Handler, opts ...kit.Option) (*httptest.Server, *kit.Client) {
	t.Helper()
	return kittest.NewServer(t, h, opts...)
}

// serve is setup for tests that make their own clients (at a path under the
// server, or several): it returns only the server.
func serve(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv, _ := setup(t, h)
	return srv
}

// setupAsync is setup's async twin: h on a loopback server, and a
// *kit.AsyncClient for it. When the test ends the client is closed (an
// error from Close fails the test), then the server.
func setupAsync(t testing.TB, h http.Handler, opts ...kit.Option) (*httptest.Server, *kit.AsyncClient) {
	t.Helper()
	srv := serve(t, h)
	return srv, newAsyncClient(t, srv.URL, opts...)
}

// setupAPI is setup with a new kittest.NewAPI, returned for its counters.
func setupAPI(t testing.TB, opts ...kit.Option) (*kittest.API, *kit.Client) {
	t.Helper()
	api := kittest.NewAPI()
	_, c := setup(t, api, opts...)
	return api, c
}

// newClient returns a *kit.Client for base (a path under a test server, or
// a host a fake engine answers for), failing the test on error. It is
// closed when the test ends.
func newClient(t testing.TB, base string, opts ...kit.Option) *kit.Client {
	t.Helper()
	c, err := kit.NewClient(base, opts...)
	if err != nil {
		t.Fatalf("NewClient(%q): %v", base, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// newAsyncClient is newClient's async twin. It is closed when the test
// ends, and an error from Close fails the test.
func newAsyncClient(t testing.TB, base string, opts ...kit.Option) *kit.AsyncClient {
	t.Helper()
	ac, err := kit.NewAsyncClient(base, opts...)
	if err != nil {
		t.Fatalf("NewAsyncClient(%q): %v", base, err)
	}
	t.Cleanup(func() {
		if err := ac.Close(context.Background()); err != nil {
			t.Errorf("Close at cleanup: %v", err)
		}
	})
	return ac
}

// replyJSON answers with status and body as application/json.
func replyJSON(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// recorder is an http.Handler that records every request, body included,
// before handing it on.
type recorder struct {
	next http.HandlerFunc
	mu   sync.Mutex
	reqs []seenReq
}

// seenReq is what a recorder saw of one request: a copy of it, with the
// body read into Body.
type seenReq struct {
	*http.Request
	Body []byte // the body sent (it shadows Request.Body)
}

// line is the request line without the protocol: "GET /api/users?x=1".
func (r seenReq) line() string { return r.Method + " " + r.RequestURI }

// newRecorder returns a recorder that hands requests to h (nil: a 200 with
// "{}"). h can still read the body.
func newRecorder(h http.HandlerFunc) *recorder {
	if h == nil {
		h = replyJSON(http.StatusOK, `{}`)
	}
	return &recorder{next: h}
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	seen := r.Clone(context.Background())
	seen.Body = http.NoBody
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, seenReq{Request: seen, Body: body})
	rec.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	rec.next.ServeHTTP(w, r)
}

// requests returns a copy of the requests seen so far.
func (rec *recorder) requests() []seenReq {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]seenReq(nil), rec.reqs...)
}

// only returns the one request seen, failing the test otherwise.
func (rec *recorder) only(t *testing.T) seenReq {
	t.Helper()
	reqs := rec.requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	return reqs[0]
}

// twin is one of the two ways to make the same calls; tests that check that
// sync and async calls behave alike have one row for each of twins.
type twin struct {
	name string
	// async: Endpoint.Go(...).Await and AsyncResource, on a
	// *kit.AsyncClient; otherwise Endpoint.Call and Resource, on a
	// *kit.Client.
	async bool
}

var (
	syncTwin  = twin{"sync", false}
	asyncTwin = twin{"async", true}
	twins     = []twin{syncTwin, asyncTwin}
)

// setup is setup or setupAsync.
func (tw twin) setup(t testing.TB, h http.Handler, opts ...kit.Option) (*httptest.Server, kit.Binding) {
	t.Helper()
	if tw.async {
		return setupAsync(t, h, opts...)
	}
	return setup(t, h, opts...)
}

// client is newClient or newAsyncClient.
func (tw twin) client(t testing.TB, base string, opts ...kit.Option) kit.Binding {
	t.Helper()
	if tw.async {
		return newAsyncClient(t, base, opts...)
	}
	return newClient(t, base, opts...)
}

// twinCall makes one call of ep: ep.Call, or ep.Go then Await.
func twinCall[P, R any](ctx context.Context, tw twin, ep *kit.Endpoint[P, R], b kit.Binding, p P, opts ...kit.CallOption) (R, error) {
	if tw.async {
		return ep.Go(ctx, b, p, opts...).Await(ctx)
	}
	return ep.Call(ctx, b, p, opts...)
}

// twinAll walks the collection at path with Resource.All or
// AsyncResource.All.
func twinAll[T any](ctx context.Context, tw twin, b kit.Binding, path string, opts ...kit.ResourceOption) iter.Seq2[T, error] {
	if tw.async {
		return kit.NewAsyncResource[T](b, path, opts...).All(ctx)
	}
	return kit.NewResource[T](b, path, opts...).All(ctx)
}
