package kittest_test

import (
	"context"
	"sync"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// Four bursts of 64 concurrent calls through a default kit client: the
// second and later bursts reuse the connections of the first.
func TestCountingServerDefaultClientReusesConnections(t *testing.T) {
	srv, conns := kittest.NewCountingServer(nil)
	defer srv.Close()
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	health := kit.Get[kit.NoParams, map[string]string]("/health", kit.NoAuth())
	const goroutines, bursts = 64, 4
	for range bursts {
		var wg sync.WaitGroup
		for range goroutines {
			wg.Go(func() {
				if _, err := health.Call(context.Background(), c, kit.NoParams{}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	// net/http may dial a spare connection when one frees up just as a call
	// starts, so a burst can open a few more than it has goroutines; a pool
	// smaller than the burst would redial about 30 in each later one.
	if n := conns.Count(); n < 1 || n > goroutines+2*bursts {
		t.Errorf("%d connections for %d calls in %d bursts of %d goroutines, want at most about one per goroutine (%d)", n, goroutines*bursts, bursts, goroutines, goroutines+2*bursts)
	}
}

// A client that keeps no idle connections dials for every call, and the
// count shows it.
func TestCountingServerCountsEveryDial(t *testing.T) {
	srv, conns := kittest.NewCountingServer(nil)
	defer srv.Close()
	hc := srv.Client()
	hc.Transport.(interface{ CloseIdleConnections() }).CloseIdleConnections()
	c, err := kit.NewClient(srv.URL, kit.WithHTTPClient(hc), kit.WithHeader("Connection", "close"))
	if err != nil {
		t.Fatal(err)
	}
	health := kit.Get[kit.NoParams, map[string]string]("/health", kit.NoAuth())
	for range 5 {
		if _, err := health.Call(t.Context(), c, kit.NoParams{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Count(); n != 5 {
		t.Errorf("%d connections for 5 calls with Connection: close, want 5", n)
	}
}
