package kitredis_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit/kitredis"
	"github.com/kithttp/kit/kitwebhook"
)

func TestSeenStoreClaimRelease(t *testing.T) {
	rdb := newRedis(t)
	s := kitredis.NewSeenStore(rdb, uniqueKey(t)+":")
	ctx := context.Background()
	if ok, err := s.Claim(ctx, "msg_1", time.Minute); !ok || err != nil {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if ok, err := s.Claim(ctx, "msg_1", time.Minute); ok || err != nil {
		t.Fatalf("second claim: %v %v", ok, err)
	}
	if err := s.Release(ctx, "msg_1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Claim(ctx, "msg_1", time.Minute); !ok || err != nil {
		t.Fatalf("claim after release: %v %v", ok, err)
	}
}

// TestSeenStoreFleet: four receivers sharing one store, each sent the same
// delivery by many goroutines at once: it is handled once in all.
func TestSeenStoreFleet(t *testing.T) {
	rdb := newRedis(t)
	prefix := uniqueKey(t) + ":"
	scheme, err := kitwebhook.StandardWebhooks("whsec_c2VjcmV0LWZvci1raXRyZWRpcy10ZXN0cw==")
	if err != nil {
		t.Fatal(err)
	}
	var handled atomic.Int32
	var urls []string
	for range 4 {
		h, err := kitwebhook.NewHandler(scheme, kitwebhook.WithSeenStore(kitredis.NewSeenStore(rdb, prefix), time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		kitwebhook.Handle(h, "", func(context.Context, *kitwebhook.Delivery[map[string]any]) error {
			handled.Add(1)
			return nil
		})
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
	}
	body := []byte(`{"type":"order.created"}`)
	hdr := http.Header{}
	scheme.Sign(hdr, body, kitwebhook.Meta{ID: "msg_fleet", Time: time.Now()})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, urls[i%len(urls)], bytes.NewReader(body))
			req.Header = hdr.Clone()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	if n := handled.Load(); n != 1 {
		t.Fatalf("handled %d times across the fleet", n)
	}
}
