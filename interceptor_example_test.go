package kit_test

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

// signer returns an attempt interceptor that signs each request with key:
// X-Timestamp is the Unix time, X-Signature the hex HMAC-SHA256 of method,
// path, timestamp and body, one per line. It reads the body through
// GetBody, so the transport still gets the whole body to send.
func signer(key []byte) kit.Interceptor {
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

// ExampleWithAttemptInterceptors signs every attempt of every request with
// an HMAC over the method, the path, a timestamp header and the body. It is
// an attempt interceptor, so a retried request is signed again with a fresh
// timestamp, and it runs after credentials are added.
func ExampleWithAttemptInterceptors() {
	key := []byte("shared secret")
	srv := httptest.NewServer(kittest.NewAPI(kittest.WithSigningKey(key)))
	defer srv.Close()

	type User struct {
		ID    int    `json:"id,omitempty"`
		Name  string `json:"name" validate:"required"`
		Email string `json:"email" validate:"required,email"`
	}
	createUser := kit.Post[struct{ User User }, User]("/users")
	ctx := context.Background()

	signed, err := kit.NewClient(srv.URL, kit.WithAttemptInterceptors(signer(key)))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer signed.Close()
	u, err := createUser.Call(ctx, signed, struct{ User User }{User{Name: "Grace Hopper", Email: "grace@example.com"}})
	fmt.Println("signed:", u.Name, err)

	unsigned, _ := kit.NewClient(srv.URL)
	defer unsigned.Close()
	_, err = createUser.Call(ctx, unsigned, struct{ User User }{User{Name: "Mallory", Email: "m@example.com"}})
	var he *kit.HTTPError
	if errors.As(err, &he) {
		fmt.Println("unsigned:", he.StatusCode)
	}
	// Output:
	// signed: Grace Hopper <nil>
	// unsigned: 401
}

// etagCache is a call interceptor that remembers each GET response with an
// ETag, sends If-None-Match when it has one, and answers from memory when
// the server says 304 Not Modified. It is safe for concurrent use.
type etagCache struct {
	mu      sync.Mutex
	entries map[string]cached
}

type cached struct {
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
			return kit.NewResponse(http.StatusOK, entry.header, entry.body), nil
		}
		if err == nil {
			if etag := resp.Header.Get("ETag"); etag != "" {
				c.mu.Lock()
				c.entries[key] = cached{etag, resp.Header, resp.Bytes()}
				c.mu.Unlock()
			}
		}
		return resp, err
	}
}

// ExampleWithInterceptors caches GET responses by ETag: the second call
// sends If-None-Match, gets a 304 without a body, and is answered from
// memory, decoded and validated like any other response. It is a call
// interceptor, so it sees one call however many attempts it takes.
func ExampleWithInterceptors() {
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()

	cache := &etagCache{entries: map[string]cached{}}
	c, err := kit.NewClient(srv.URL, kit.WithInterceptors(cache.intercept))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	type User struct {
		ID   int    `json:"id"`
		Name string `json:"name" validate:"required"`
	}
	getUser := kit.Get[struct{ ID int }, User]("/users/{id}")
	ctx := context.Background()
	for range 3 {
		u, err := getUser.Call(ctx, c, struct{ ID int }{1})
		fmt.Println(u.Name, err)
	}
	fmt.Println("304s from the server:", api.Stats().NotModified)
	// Output:
	// Ada Lovelace <nil>
	// Ada Lovelace <nil>
	// Ada Lovelace <nil>
	// 304s from the server: 2
}

// ExampleNewResponse sheds load on the client side: an attempt interceptor
// answers the first attempt itself with a 503 made by NewResponse. Held to
// the Sender contract, that 503 is an *HTTPError for the layers above, so
// WithRetry retries it like a server's 503 and the call succeeds on the
// second attempt, the only one the API sees.
func ExampleNewResponse() {
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()

	var mu sync.Mutex
	shed := 1 // attempts still to refuse
	loadShedder := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			mu.Lock()
			refuse := shed > 0
			shed--
			mu.Unlock()
			if refuse {
				return kit.NewResponse(http.StatusServiceUnavailable, http.Header{"Retry-After": {"0"}}, []byte("shedding load")), nil
			}
			return next(ctx, req)
		}
	}
	c, err := kit.NewClient(srv.URL,
		kit.WithRetry(kit.RetryPolicy{}),
		kit.WithAttemptInterceptors(loadShedder))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()

	type User struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	getUser := kit.Get[struct{ ID int }, User]("/users/{id}")
	u, err := getUser.Call(context.Background(), c, struct{ ID int }{1})
	fmt.Println(u.Name, err)
	fmt.Println("requests the API saw:", api.Stats().Requests)
	// Output:
	// Ada Lovelace <nil>
	// requests the API saw: 1
}
