package kittest

import (
	"net/http"
	"net/http/httptest"

	"github.com/kithttp/kit"
)

// TB is the part of testing.TB that kittest uses, so helpers also work with
// other test frameworks.
type TB interface {
	Helper()
	Cleanup(func())
	Fatalf(format string, args ...any)
}

// NewServer starts h (NewAPI() when h is nil) on a loopback httptest
// server and returns it with a *kit.Client whose base URL is the server's.
// opts are passed to kit.NewClient. The server and the client's idle
// connections are closed when the test ends.
func NewServer(t TB, h http.Handler, opts ...kit.Option) (*httptest.Server, *kit.Client) {
	t.Helper()
	if h == nil {
		h = NewAPI()
	}
	srv := httptest.NewServer(h)
	c, err := kit.NewClient(srv.URL, opts...)
	if err != nil {
		srv.Close()
		t.Fatalf("kittest: NewServer: %v", err)
		return nil, nil
	}
	t.Cleanup(func() {
		c.Close()
		srv.Close()
	})
	return srv, c
}
