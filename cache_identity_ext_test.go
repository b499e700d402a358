package kit_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// The tests of this file share one store between clients of different
// users whose credentials are added below the cache layer (a cookie jar,
// an attempt interceptor, the URL's user info): no user may be served
// another's response.

// whoServer answers /doc with the credentials the request carried, as a
// response every cache may keep for a minute (private, as a per-user
// response should say, and without).
func whoServer(t *testing.T, cc string) *cacheServer {
	t.Helper()
	return &cacheServer{h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", cc)
		w.Header().Set("Etag", `"same-for-all"`)
		who := r.Header.Get("Authorization")
		if u, p, ok := r.BasicAuth(); ok {
			who = u + ":" + p
		}
		if c, err := r.Cookie("session"); err == nil {
			who += "session=" + c.Value
		}
		fmt.Fprint(w, who)
	}}
}

// getWho gets /doc through c, a *kit.Client or (async) a *kit.AsyncClient.
func getWho(t *testing.T, c kit.Binding) string {
	t.Helper()
	var r *kit.Response
	var err error
	if ac, ok := c.(*kit.AsyncClient); ok {
		r, err = cacheGet.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	} else {
		r, err = cacheGet.Call(t.Context(), c, kit.NoParams{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(r.Bytes())
}

// newBinding is newClient, or newAsyncClient when async.
func newBinding(t *testing.T, async bool, base string, opts ...kit.Option) kit.Binding {
	t.Helper()
	if async {
		return newAsyncClient(t, base, opts...)
	}
	return newClient(t, base, opts...)
}

// jarWith returns a cookie jar holding session=value for base.
func jarWith(t *testing.T, base, value string) http.CookieJar {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: value, Path: "/"}})
	return jar
}

// bearerBelow is an attempt interceptor that signs every attempt as who.
func bearerBelow(who string) kit.Option {
	return kit.WithAttemptInterceptors(func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			req.Header.Set("Authorization", "Bearer "+who)
			return next(ctx, req)
		}
	})
}

func forSyncAndAsync(t *testing.T, f func(t *testing.T, async bool)) {
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			t.Parallel()
			f(t, async)
		})
	}
}

func TestCacheSharedStoreKeysByJarCookies(t *testing.T) {
	t.Parallel()
	for _, cc := range []string{"private, max-age=60", "max-age=60"} {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			forSyncAndAsync(t, func(t *testing.T, async bool) {
				s := whoServer(t, cc)
				srv := serve(t, s)
				store := kit.NewMemoryCache(0)
				alice := newBinding(t, async, srv.URL, kit.WithCache(store),
					kit.WithHTTPClient(&http.Client{Jar: jarWith(t, srv.URL, "alice")}))
				bob := newBinding(t, async, srv.URL, kit.WithCache(store),
					kit.WithHTTPClient(&http.Client{Jar: jarWith(t, srv.URL, "bob")}))
				for _, step := range []struct {
					c    kit.Binding
					want string
				}{{alice, "session=alice"}, {bob, "session=bob"}, {alice, "session=alice"}, {bob, "session=bob"}} {
					if got := getWho(t, step.c); got != step.want {
						t.Errorf("got %q, want %q", got, step.want)
					}
				}
				if n := s.hits.Load(); n != 2 {
					t.Errorf("server saw %d requests, want 2 (one per session, then hits)", n)
				}
			})
		})
	}
}

func TestCacheSharedStoreNeverKeepsCredentialsAddedByAttemptInterceptors(t *testing.T) {
	t.Parallel()
	for _, cc := range []string{"private, max-age=60", "max-age=60"} {
		t.Run(cc, func(t *testing.T) {
			t.Parallel()
			forSyncAndAsync(t, func(t *testing.T, async bool) {
				s := whoServer(t, cc)
				srv := serve(t, s)
				store := kit.NewMemoryCache(0)
				alice := newBinding(t, async, srv.URL, kit.WithCache(store), bearerBelow("alice"))
				bob := newBinding(t, async, srv.URL, kit.WithCache(store), bearerBelow("bob"))
				anon := newBinding(t, async, srv.URL, kit.WithCache(store))
				for _, step := range []struct {
					c    kit.Binding
					want string
				}{{alice, "Bearer alice"}, {bob, "Bearer bob"}, {anon, ""}, {alice, "Bearer alice"}, {bob, "Bearer bob"}} {
					if got := getWho(t, step.c); got != step.want {
						t.Errorf("got %q, want %q", got, step.want)
					}
				}
			})
		})
	}
}

// An attempt interceptor that adds no credential leaves the cache working.
func TestCacheAttemptInterceptorWithoutCredentialsStillCaches(t *testing.T) {
	t.Parallel()
	forSyncAndAsync(t, func(t *testing.T, async bool) {
		s := whoServer(t, "max-age=60")
		srv := serve(t, s)
		trace := kit.WithAttemptInterceptors(func(next kit.Sender) kit.Sender {
			return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
				req.Header.Set("X-Trace", "t1")
				return next(ctx, req)
			}
		})
		c := newBinding(t, async, srv.URL, kit.WithCache(kit.NewMemoryCache(0)), kit.WithAuth(kit.Bearer("carol")), trace)
		for range 3 {
			if got := getWho(t, c); got != "Bearer carol" {
				t.Errorf("got %q", got)
			}
		}
		if n := s.hits.Load(); n != 1 {
			t.Errorf("server saw %d requests, want 1", n)
		}
	})
}

// The URL's user info is a credential (the transport sends it as Basic
// auth): two users set by a call interceptor do not share entries.
func TestCacheKeysByURLUserInfo(t *testing.T) {
	t.Parallel()
	s := whoServer(t, "max-age=60")
	srv := serve(t, s)
	store := kit.NewMemoryCache(0)
	as := func(user string) kit.Option {
		return kit.WithInterceptors(func(next kit.Sender) kit.Sender {
			return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
				req.URL.User = url.UserPassword(user, "pw")
				return next(ctx, req)
			}
		})
	}
	alice := newClient(t, srv.URL, kit.WithCache(store), as("alice"))
	bob := newClient(t, srv.URL, kit.WithCache(store), as("bob"))
	if got := getWho(t, alice); got != "alice:pw" {
		t.Fatalf("alice got %q", got)
	}
	if got := getWho(t, bob); got != "bob:pw" {
		t.Errorf("bob got %q, want bob:pw", got)
	}
}

// A Set-Cookie is the session of whoever got the response: a hit never
// hands it to another client.
func TestCacheHitNeverReplaysSetCookie(t *testing.T) {
	t.Parallel()
	forSyncAndAsync(t, func(t *testing.T, async bool) {
		s := &cacheServer{h: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cache-Control", "max-age=60")
			w.Header().Set("Set-Cookie", "session=for-the-first-caller; Path=/")
			fmt.Fprint(w, "doc")
		}}
		srv := serve(t, s)
		store := kit.NewMemoryCache(0)
		first := newBinding(t, async, srv.URL, kit.WithCache(store))
		other := newBinding(t, async, srv.URL, kit.WithCache(store))
		getWho(t, first)
		var r *kit.Response
		var err error
		if ac, ok := other.(*kit.AsyncClient); ok {
			r, err = cacheGet.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
		} else {
			r, err = cacheGet.Call(t.Context(), other, kit.NoParams{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if !r.FromCache() {
			t.Fatal("not a hit")
		}
		if sc := r.Header.Values("Set-Cookie"); len(sc) != 0 {
			t.Errorf("hit carries Set-Cookie %q", sc)
		}
	})
}

// recordingStore is a memory store that keeps every entry it is given.
type recordingStore struct {
	kit.CacheStore
	mu      sync.Mutex
	entries [][]byte
}

func (r *recordingStore) Set(ctx context.Context, key string, entry []byte, ttl time.Duration) error {
	r.mu.Lock()
	r.entries = append(r.entries, append([]byte(key+"\x00"), entry...))
	r.mu.Unlock()
	return r.CacheStore.Set(ctx, key, entry, ttl)
}

// A response that varies on a credential header keeps a hash of the
// request's value, never the value itself, in the store.
func TestCacheVaryOnCredentialStoresNoSecret(t *testing.T) {
	t.Parallel()
	s := &cacheServer{h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Vary", "Authorization, X-Api-Key")
		fmt.Fprint(w, "doc")
	}}
	srv := serve(t, s)
	store := &recordingStore{CacheStore: kit.NewMemoryCache(0)}
	c := newClient(t, srv.URL, kit.WithCache(store), kit.WithHeader("Authorization", "Bearer s3cret-token"), kit.WithHeader("X-Api-Key", "s3cret-key"))
	getDoc(t, c)
	if !getDoc(t, c).FromCache() {
		t.Error("second call not a hit")
	}
	other := newClient(t, srv.URL, kit.WithCache(store), kit.WithHeader("Authorization", "Bearer other"), kit.WithHeader("X-Api-Key", "s3cret-key"))
	if getDoc(t, other).FromCache() {
		t.Error("another credential was served the first's entry")
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.entries) == 0 {
		t.Fatal("nothing stored")
	}
	for _, e := range store.entries {
		if bytes.Contains(e, []byte("s3cret")) {
			t.Errorf("a stored entry holds a credential: %q", e)
		}
	}
}
