package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"

	"github.com/kithttp/kit"
)

// status is an endpoint that uses the client's auth.
var status = kit.Get[kit.NoParams, map[string]string]("/status")

// partnerRecord is a record of the partner API in originsTour.
type partnerRecord struct {
	ID int `json:"id"`
}

// originsTour shows that credentials stay on the base URL's origin
// however a request gets elsewhere: a paged endpoint of another API whose
// next link points back at the base API, and a failover interceptor that
// moves calls to a mirror.
func originsTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Origins: credentials stay on the base URL's origin")

	// A partner API on another origin: its second page's next link names
	// a path of our own API, which would be fetched with our credentials.
	var partner *httptest.Server
	partner = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("page") == "" {
			w.Header().Set("Link", "<"+partner.URL+"/feed?page=2>; rel=\"next\"")
			io.WriteString(w, `[{"id":1},{"id":2}]`)
			return
		}
		w.Header().Set("Link", "<"+baseURL+"/admin/export>; rel=\"next\"")
		io.WriteString(w, `[{"id":3}]`)
	}))
	defer partner.Close()

	c, err := kit.NewClient(baseURL+"?api_key=tour-secret", kit.WithHTTPClient(hc), kit.WithAuth(kit.Bearer("tour-token")))
	if err != nil {
		return err
	}
	defer c.Close()
	feed := kit.Paged[kit.NoParams, partnerRecord](partner.URL+"/feed", kit.PagedBy(kit.LinkHeader{}))
	n := 0
	var walkErr error
	for _, err := range feed.Iterate(ctx, c, kit.NoParams{}) {
		if err != nil {
			walkErr = err
			break
		}
		n++
	}
	if !errors.Is(walkErr, kit.ErrCrossOrigin) {
		return fmt.Errorf("the partner's link back to the base API was not refused: %v", walkErr)
	}
	t.say("a paged endpoint on a partner API: %d records from its own origin, without our api_key or token,", n)
	t.say("then its link to our /admin/export is refused (kit.ErrCrossOrigin): a walk stays on its origin")

	// A failover interceptor that moves every call to a mirror: the
	// client's Bearer token and Cookie do not follow it.
	var mu sync.Mutex
	var mirrorSaw http.Header
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		mirrorSaw = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`)
	}))
	defer mirror.Close()
	mirrorURL, _ := url.Parse(mirror.URL)
	failover := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			req.URL.Host = mirrorURL.Host // a mirror on another origin
			return next(ctx, req)
		}
	}
	m, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithAuth(kit.Bearer("tour-token")),
		kit.WithHeader("Cookie", "session=tour"), kit.WithInterceptors(failover))
	if err != nil {
		return err
	}
	defer m.Close()
	if _, err := status.Call(ctx, m, kit.NoParams{}); err != nil {
		return err
	}
	mu.Lock()
	auth, cookie := mirrorSaw.Get("Authorization"), mirrorSaw.Get("Cookie")
	mu.Unlock()
	if auth != "" || cookie != "" {
		return fmt.Errorf("the mirror got credentials: %q, %q", auth, cookie)
	}
	t.say("a failover interceptor moved GET /status to a mirror on another origin: it got no Authorization and no Cookie")
	t.say("(checked where the request finally goes, after every interceptor)")
	return nil
}
