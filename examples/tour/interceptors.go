package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// interceptorTour shows the send chain's two extension points on a second
// demo API that requires signed requests: an attempt interceptor that
// signs, and a call interceptor that caches by ETag.
func interceptorTour(ctx context.Context, t *tour, hc *http.Client) error {
	t.section("Interceptors: request signing and an ETag cache")
	key := []byte("tour signing key")
	api := kittest.NewAPI(kittest.WithSigningKey(key))
	srv := httptest.NewServer(api)
	defer srv.Close()

	cache := &etagCache{entries: map[string]cachedResponse{}}
	c, err := kit.NewClient(srv.URL, kit.WithHTTPClient(hc),
		kit.WithInterceptors(cache.intercept),
		kit.WithAttemptInterceptors(sign(key)))
	if err != nil {
		return err
	}
	defer c.Close()
	t.say("every request is signed by an attempt interceptor (X-Timestamp, X-Signature: HMAC-SHA256 of method, path, time, body)")
	for i := range 3 {
		u, err := getUser.Call(ctx, c, struct{ ID int }{1})
		if err != nil {
			return err
		}
		if i == 0 {
			t.say("GET /users/1 = %s, ETag remembered by the call interceptor", u.Name)
		}
	}
	t.say("two more calls sent If-None-Match, got 304 Not Modified and were answered from memory: %d hits, %d 304s at the server",
		cache.hits, api.Stats().NotModified)

	plain, err := kit.NewClient(srv.URL, kit.WithHTTPClient(hc))
	if err != nil {
		return err
	}
	defer plain.Close()
	_, err = getUser.Call(ctx, plain, struct{ ID int }{1})
	var he *kit.HTTPError
	if !errors.As(err, &he) {
		return fmt.Errorf("an unsigned request was accepted: %v", err)
	}
	t.say("the same call without the signing interceptor: *kit.HTTPError %d %s", he.StatusCode, bodySnippet(he.Body))
	return nil
}

// sign is an attempt interceptor: it runs on every attempt, after
// credentials, and reads the body through GetBody without taking it from
// the transport.
func sign(key []byte) kit.Interceptor {
	return func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			ts := strconv.FormatInt(time.Now().Unix(), 10)
			mac := hmac.New(sha256.New, key)
			fmt.Fprintf(mac, "%s\n%s\n%s\n", req.Method, req.URL.EscapedPath(), ts)
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, err
				}
				_, err = io.Copy(mac, body)
				body.Close()
				if err != nil {
					return nil, err
				}
			}
			req.Header.Set("X-Timestamp", ts)
			req.Header.Set("X-Signature", hex.EncodeToString(mac.Sum(nil)))
			return next(ctx, req)
		}
	}
}

// etagCache is a call interceptor: it sends If-None-Match for a GET it has
// seen, and answers a 304 from memory with kit.NewResponse.
type etagCache struct {
	mu      sync.Mutex
	entries map[string]cachedResponse
	hits    int
}

type cachedResponse struct {
	etag   string
	header http.Header
	body   []byte
}

func (c *etagCache) intercept(next kit.Sender) kit.Sender {
	return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
		if req.Method != http.MethodGet {
			return next(ctx, req)
		}
		key := req.URL.String()
		c.mu.Lock()
		entry, ok := c.entries[key]
		c.mu.Unlock()
		if ok {
			req.Header.Set("If-None-Match", entry.etag)
		}
		resp, err := next(ctx, req)
		var he *kit.HTTPError
		if ok && errors.As(err, &he) && he.StatusCode == http.StatusNotModified {
			c.mu.Lock()
			c.hits++
			c.mu.Unlock()
			return kit.NewResponse(http.StatusOK, entry.header, entry.body), nil
		}
		if err == nil && resp.Header.Get("ETag") != "" {
			c.mu.Lock()
			c.entries[key] = cachedResponse{resp.Header.Get("ETag"), resp.Header, resp.Bytes()}
			c.mu.Unlock()
		}
		return resp, err
	}
}

// bodySnippet is the first part of an error body, on one line.
func bodySnippet(b []byte) string {
	if len(b) > 60 {
		b = b[:60]
	}
	return string(b)
}
