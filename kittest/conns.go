package kittest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
)

// Connections counts the connections a server has accepted. A client that
// keeps its idle connections dials about once per connection it needs,
// however many calls it makes: 64 goroutines calling in bursts open about
// 64 connections in all, not 64 per burst. NewCountingServer makes one.
type Connections struct {
	n atomic.Int64
}

// Count returns the number of connections accepted so far.
func (c *Connections) Count() int { return int(c.n.Load()) }

// NewCountingServer starts h (NewAPI() when h is nil) on a loopback
// httptest server that counts the connections it accepts. Close the server
// when done. Unlike NewServer it needs no testing.TB and makes no client:
// give the server's URL to the client under test.
//
//	srv, conns := kittest.NewCountingServer(api)
//	defer srv.Close()
//	c, _ := kit.NewClient(srv.URL)
//	... 64 goroutines, 4 bursts ...
//	if conns.Count() > 64 { t.Errorf("%d connections for 64 goroutines", conns.Count()) }
func NewCountingServer(h http.Handler) (*httptest.Server, *Connections) {
	if h == nil {
		h = NewAPI()
	}
	c := &Connections{}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			c.n.Add(1)
		}
	}
	srv.Start()
	return srv, c
}
