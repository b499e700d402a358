package kit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

var (
	cacheGet  = kit.Get[kit.NoParams, *kit.Response]("/doc")
	cachePost = kit.Post[kit.NoParams, *kit.Response]("/doc")
)

// cacheServer counts requests and answers /doc with its handler.
type cacheServer struct {
	hits atomic.Int64
	mu   sync.Mutex
	h    http.HandlerFunc
	last http.Header // the headers of the last request
}

func (s *cacheServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	s.mu.Lock()
	s.last = r.Header.Clone()
	h := s.h
	s.mu.Unlock()
	h(w, r)
}

func (s *cacheServer) lastHeader() http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func newCacheServer(t *testing.T, h http.HandlerFunc, opts ...kit.Option) (*cacheServer, *kit.Client) {
	t.Helper()
	s := &cacheServer{h: h}
	srv := serve(t, s)
	return s, newClient(t, srv.URL, opts...)
}

func getDoc(t *testing.T, c kit.Binding) *kit.Response {
	t.Helper()
	r, err := cacheGet.Call(t.Context(), c, kit.NoParams{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCacheFreshHitSendsNothing(t *testing.T) {
	t.Parallel()
	s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, `{"v":1}`)
	}, kit.WithCache(kit.NewMemoryCache(0)))
	first := getDoc(t, c)
	second := getDoc(t, c)
	if first.FromCache() || !second.FromCache() {
		t.Errorf("FromCache = %v, %v; want false, true", first.FromCache(), second.FromCache())
	}
	if got := string(second.Bytes()); got != `{"v":1}` || second.StatusCode != 200 {
		t.Errorf("cached response = %d %q", second.StatusCode, got)
	}
	if second.Header.Get("Age") == "" || second.Request == nil {
		t.Errorf("cached response: Age %q, Request %v", second.Header.Get("Age"), second.Request)
	}
	if n := s.hits.Load(); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

func TestCacheRevalidatesWithValidators(t *testing.T) {
	t.Parallel()
	var round atomic.Int64
	s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := round.Add(1)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.Header().Set("X-Round", fmt.Sprint(n))
			w.Header().Set("Cache-Control", "max-age=0")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Etag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		w.Header().Set("Cache-Control", "max-age=0")
		w.Header().Set("X-Round", fmt.Sprint(n))
		fmt.Fprint(w, `{"v":1}`)
	}, kit.WithCache(kit.NewMemoryCache(0)))
	getDoc(t, c)
	r := getDoc(t, c)
	h := s.lastHeader()
	if h.Get("If-None-Match") != `"v1"` || h.Get("If-Modified-Since") != "Mon, 02 Jan 2006 15:04:05 GMT" {
		t.Errorf("revalidation sent If-None-Match %q, If-Modified-Since %q", h.Get("If-None-Match"), h.Get("If-Modified-Since"))
	}
	if !r.FromCache() || r.StatusCode != 200 || string(r.Bytes()) != `{"v":1}` {
		t.Errorf("after a 304: FromCache %v, %d %q", r.FromCache(), r.StatusCode, r.Bytes())
	}
	if got := r.Header.Get("X-Round"); got != "2" {
		t.Errorf("X-Round = %q, want the 304's 2 (headers updated)", got)
	}
	// The updated headers were stored too.
	r = getDoc(t, c)
	if got := r.Header.Get("X-Round"); got != "3" || s.hits.Load() != 3 {
		t.Errorf("third call: X-Round %q, %d requests", got, s.hits.Load())
	}
}

// A caller's own conditional request still gets the 304 as ErrNotModified.
func TestCacheLeavesCallersConditionalRequestsAlone(t *testing.T) {
	t.Parallel()
	ep := kit.Get[struct {
		ETag string `kit:"If-None-Match,header"`
	}, *kit.Response]("/doc")
	_, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") != "" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Etag", `"v1"`)
		fmt.Fprint(w, `{}`)
	}, kit.WithCache(kit.NewMemoryCache(0)))
	getDoc(t, c)
	_, err := ep.Call(t.Context(), c, struct {
		ETag string `kit:"If-None-Match,header"`
	}{`"v1"`})
	if !errors.Is(err, kit.ErrNotModified) {
		t.Errorf("err = %v, want ErrNotModified", err)
	}
}

func TestCacheDirectives(t *testing.T) {
	t.Parallel()
	lastModified := time.Now().Add(-100 * time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		header map[string]string
		status int
		want   int64 // requests the server sees for three calls
	}{
		{"no-store", map[string]string{"Cache-Control": "no-store, max-age=60"}, 200, 3},
		{"no-cache revalidates", map[string]string{"Cache-Control": "no-cache, max-age=60", "Etag": `"x"`}, 200, 3},
		{"no validator, stale", map[string]string{"Cache-Control": "max-age=0"}, 200, 3},
		{"Expires in the future", map[string]string{"Expires": time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}, 200, 1},
		{"Expires invalid", map[string]string{"Expires": "0", "Last-Modified": lastModified}, 200, 3},
		{"heuristic from Last-Modified", map[string]string{"Last-Modified": lastModified}, 200, 1},
		{"no heuristic for a 202", map[string]string{"Last-Modified": lastModified}, 202, 3},
		{"a 202 with max-age", map[string]string{"Cache-Control": "max-age=60"}, 202, 1},
		{"Vary: *", map[string]string{"Cache-Control": "max-age=60", "Vary": "*"}, 200, 3},
		{"a 500 with max-age", map[string]string{"Cache-Control": "max-age=60"}, 500, 3},
		{"a 404 with max-age", map[string]string{"Cache-Control": "max-age=60"}, 404, 3},
		{"max-age beats Expires", map[string]string{"Cache-Control": "max-age=0", "Expires": time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}, 200, 3},
		{"Age past max-age", map[string]string{"Cache-Control": "max-age=60", "Age": "100"}, 200, 3},
		{"garbage max-age", map[string]string{"Cache-Control": "max-age=soon"}, 200, 3},
		{"huge max-age", map[string]string{"Cache-Control": "max-age=99999999999999999999999"}, 200, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, `{}`)
			}, kit.WithCache(kit.NewMemoryCache(0)))
			for range 3 {
				_, err := cacheGet.Call(t.Context(), c, kit.NoParams{})
				if (err != nil) != (tc.status >= 400) {
					t.Fatalf("err = %v", err)
				}
			}
			if n := s.hits.Load(); n != tc.want {
				t.Errorf("server saw %d requests, want %d", n, tc.want)
			}
		})
	}
}

func TestCacheRequestDirectives(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header string
		want   int64
	}{{"no-cache", 2}, {"no-store", 2}, {"max-age=0", 2}, {"min-fresh=120", 2}, {"max-age=3600", 1}} {
		t.Run(tc.header, func(t *testing.T) {
			t.Parallel()
			ep := kit.Get[kit.NoParams, *kit.Response]("/doc", kit.WithHeader("Cache-Control", tc.header))
			s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Etag", `"x"`)
				fmt.Fprint(w, `{}`)
			}, kit.WithCache(kit.NewMemoryCache(0)))
			getDoc(t, c) // stored by a plain request
			if _, err := ep.Call(t.Context(), c, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			if n := s.hits.Load(); n != tc.want {
				t.Errorf("server saw %d requests, want %d", n, tc.want)
			}
		})
	}
}

func TestCacheVary(t *testing.T) {
	t.Parallel()
	type lang struct {
		Lang string `kit:"Accept-Language,header"`
	}
	ep := kit.Get[lang, *kit.Response]("/doc")
	s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Vary", "Accept-Language")
		fmt.Fprint(w, r.Header.Get("Accept-Language"))
	}, kit.WithCache(kit.NewMemoryCache(0)))
	for i, l := range []string{"en", "en", "fr", "fr", "en"} {
		r, err := ep.Call(t.Context(), c, lang{l})
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Bytes()) != l {
			t.Errorf("call %d for %s got %q", i, l, r.Bytes())
		}
	}
	// One variant is kept: en, (en hit), fr, (fr hit), en again.
	if n := s.hits.Load(); n != 3 {
		t.Errorf("server saw %d requests, want 3", n)
	}
}

func TestCacheInvalidatedByWrites(t *testing.T) {
	t.Parallel()
	s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Cache-Control", "max-age=60")
		}
		fmt.Fprint(w, `{}`)
	}, kit.WithCache(kit.NewMemoryCache(0)))
	getDoc(t, c)
	getDoc(t, c)
	if _, err := cachePost.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	if r := getDoc(t, c); r.FromCache() {
		t.Error("served from the cache after a POST to its URL")
	}
	if n := s.hits.Load(); n != 3 {
		t.Errorf("server saw %d requests, want 3", n)
	}
}

func TestCacheKeysByCredentials(t *testing.T) {
	t.Parallel()
	s := &cacheServer{h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, r.Header.Get("Authorization"))
	}}
	srv := serve(t, s)
	store := kit.NewMemoryCache(0)
	alice := newClient(t, srv.URL, kit.WithCache(store), kit.WithAuth(kit.Bearer("alice")))
	alice2 := newClient(t, srv.URL, kit.WithCache(store), kit.WithAuth(kit.Bearer("alice")))
	bob := newClient(t, srv.URL, kit.WithCache(store), kit.WithAuth(kit.Bearer("bob")))
	custom := newClient(t, srv.URL, kit.WithCache(store), kit.WithAuth(headerAuth("carol")))
	token := newClient(t, srv.URL, kit.WithCache(store), kit.WithAuth(kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		return kit.Token{Value: "dave"}, nil
	})))
	for _, tc := range []struct {
		c    *kit.Client
		want string
	}{
		{alice, "Bearer alice"}, {bob, "Bearer bob"}, {alice2, "Bearer alice"}, {custom, "Custom carol"},
		{token, "Bearer dave"}, {bob, "Bearer bob"}, {custom, "Custom carol"}, {token, "Bearer dave"},
	} {
		if got := string(getDoc(t, tc.c).Bytes()); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	if n := s.hits.Load(); n != 4 {
		t.Errorf("server saw %d requests, want 4 (one per identity)", n)
	}
}

type headerAuth string

func (a headerAuth) Authenticate(r *http.Request) error {
	r.Header.Set("Authorization", "Custom "+string(a))
	return nil
}

// A hit takes no rate-limit token and is not logged.
func TestCacheHitTakesNoTokenAndIsNotLogged(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))
	s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, `{}`)
	}, kit.WithCache(kit.NewMemoryCache(0)), kit.WithRateLimit(1.0/86400, 1), kit.WithLogger(logger),
		kit.WithRetry(kit.RetryPolicy{}))
	getDoc(t, c) // the only token
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for range 5 {
		if _, err := cacheGet.Call(ctx, c, kit.NoParams{}); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "kit request"); n != 1 || s.hits.Load() != 1 {
		t.Errorf("%d log records, %d requests; want 1 and 1:\n%s", n, s.hits.Load(), logs.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// brokenStore fails every operation, or returns garbage.
type brokenStore struct {
	garbage bool
	mu      sync.Mutex
	deleted []string
}

var errStoreDown = errors.New("store is down")

func (b *brokenStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if b.garbage {
		return []byte("kitc\x01 written by someone else"), true, nil
	}
	return nil, false, errStoreDown
}

func (b *brokenStore) Set(ctx context.Context, key string, entry []byte, ttl time.Duration) error {
	if b.garbage {
		return nil
	}
	return errStoreDown
}

func (b *brokenStore) Delete(ctx context.Context, key string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.deleted = append(b.deleted, key)
	if b.garbage {
		return nil
	}
	return errStoreDown
}

func TestCacheStoreErrorsNeverFailACall(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))
	s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, `{}`)
	}, kit.WithCache(&brokenStore{}), kit.WithLogger(logger))
	for range 2 {
		if r := getDoc(t, c); r.FromCache() {
			t.Error("FromCache with a broken store")
		}
	}
	if _, err := cachePost.Call(t.Context(), c, kit.NoParams{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	out := logs.String()
	for _, want := range []string{"reading the cache: store is down", "writing the cache: store is down", "deleting the cache: store is down"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q:\n%s", want, out)
		}
	}
	if s.hits.Load() != 3 {
		t.Errorf("server saw %d requests, want 3", s.hits.Load())
	}
}

func TestCacheEntryThatDoesNotDecodeIsDeleted(t *testing.T) {
	t.Parallel()
	store := &brokenStore{garbage: true}
	s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, `{}`)
	}, kit.WithCache(store))
	if r := getDoc(t, c); r.FromCache() || s.hits.Load() != 1 {
		t.Errorf("FromCache %v, %d requests", r.FromCache(), s.hits.Load())
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if len(store.deleted) != 1 {
		t.Errorf("deleted %v, want the one key", store.deleted)
	}
}

func TestMemoryCacheEvictsByBytes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	m := kit.NewMemoryCache(100)
	entry := bytes.Repeat([]byte("x"), 39) // 40 bytes with a one-byte key
	for _, k := range []string{"a", "b"} {
		if err := m.Set(ctx, k, entry, 0); err != nil {
			t.Fatal(err)
		}
	}
	m.Get(ctx, "a") // a is now the most recently used
	m.Set(ctx, "c", entry, 0)
	for k, want := range map[string]bool{"a": true, "b": false, "c": true} {
		if _, ok, _ := m.Get(ctx, k); ok != want {
			t.Errorf("Get(%s) = %v, want %v", k, ok, want)
		}
	}
	m.Set(ctx, "big", make([]byte, 200), 0)
	if _, ok, _ := m.Get(ctx, "big"); ok {
		t.Error("an entry larger than the cache was kept")
	}
	m.Set(ctx, "short", entry, time.Nanosecond)
	time.Sleep(time.Millisecond)
	if _, ok, _ := m.Get(ctx, "short"); ok {
		t.Error("an entry past its ttl was returned")
	}
	m.Delete(ctx, "a")
	if _, ok, _ := m.Get(ctx, "a"); ok {
		t.Error("Delete left the entry")
	}
}

func TestWithCacheNil(t *testing.T) {
	t.Parallel()
	if _, err := kit.NewClient("http://127.0.0.1:1", kit.WithCache(nil)); err == nil || !strings.Contains(err.Error(), "WithCache(nil)") {
		t.Errorf("err = %v", err)
	}
}

// Credentials set as plain headers (not through an Auth) key entries too.
func TestCacheKeysByCredentialHeaders(t *testing.T) {
	t.Parallel()
	s := &cacheServer{h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, r.Header.Get("Authorization")+r.Header.Get("X-Api-Key"))
	}}
	srv := serve(t, s)
	store := kit.NewMemoryCache(0)
	for _, tc := range []struct {
		opt  kit.Option
		want string
	}{
		{kit.WithHeader("Authorization", "Bearer alice"), "Bearer alice"},
		{kit.WithHeader("Authorization", "Bearer bob"), "Bearer bob"},
		{kit.WithHeader("X-Api-Key", "k1"), "k1"},
		{kit.WithHeader("X-Api-Key", "k2"), "k2"},
		{kit.WithHeader("X-Trace", "anything"), ""},
		{kit.WithHeader("X-Trace", "other"), ""},
	} {
		c := newClient(t, srv.URL, kit.WithCache(store), tc.opt)
		if got := string(getDoc(t, c).Bytes()); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.opt, got, tc.want)
		}
	}
	if n := s.hits.Load(); n != 5 {
		t.Errorf("server saw %d requests, want 5 (X-Trace is not a credential)", n)
	}
}

// An AsyncClient's calls go through the cache too.
func TestCacheAsync(t *testing.T) {
	t.Parallel()
	s := &cacheServer{h: func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, `{}`)
	}}
	srv := serve(t, s)
	ac := newAsyncClient(t, srv.URL, kit.WithCache(kit.NewMemoryCache(0)))
	var from []bool
	for range 3 {
		r, err := cacheGet.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		from = append(from, r.FromCache())
	}
	if fmt.Sprint(from) != "[false true true]" || s.hits.Load() != 1 {
		t.Errorf("FromCache %v, %d requests", from, s.hits.Load())
	}
}

// The tests of this file are a server's hostile or broken answers to a
// client made WithCache: dates centuries away, huge ages and lifetimes, a
// 304 for another representation, and callers that change what a hit
// returns.

// checkAge fails unless r's Age is a number of seconds in [0, 2^31].
func checkAge(t *testing.T, r *kit.Response) {
	t.Helper()
	if !r.FromCache() {
		return
	}
	age, err := strconv.ParseInt(r.Header.Get("Age"), 10, 64)
	if err != nil || age < 0 || age > 1<<31 {
		t.Errorf("Age %q, want seconds in [0, 2^31]", r.Header.Get("Age"))
	}
}

func TestCacheExtremeDatesAndAges(t *testing.T) {
	t.Parallel()
	now := time.Now().UTC()
	past := time.Date(1700, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	future := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	year1 := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat)
	for _, tc := range []struct {
		name   string
		header map[string]string
		fresh  bool // the second call is served without a request
	}{
		{"Date in 1700", map[string]string{"Date": past, "Cache-Control": "max-age=60"}, false},
		{"Date in 1700, Expires far", map[string]string{"Date": past, "Expires": future}, false},
		{"Date in 1700, heuristic", map[string]string{"Date": past, "Last-Modified": year1}, false},
		{"Date in 9999", map[string]string{"Date": future, "Cache-Control": "max-age=60"}, true},
		{"Date in 9999, heuristic", map[string]string{"Date": future, "Last-Modified": now.Format(http.TimeFormat)}, true},
		{"huge Age", map[string]string{"Age": "99999999999999999999", "Cache-Control": "max-age=60"}, false},
		{"huge Age and max-age", map[string]string{"Age": "9223372036854775807", "Cache-Control": "max-age=9223372036854775808"}, false},
		{"max-age 2^63", map[string]string{"Cache-Control": "max-age=9223372036854775808"}, true},
		{"negative max-age", map[string]string{"Cache-Control": "max-age=-60"}, false},
		{"negative Age", map[string]string{"Age": "-9999999", "Cache-Control": "max-age=0"}, false},
		{"Expires in year 1", map[string]string{"Expires": year1}, false},
		{"Expires in 9999", map[string]string{"Expires": future}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Etag", `"v1"`) // always stored; always a 200
				fmt.Fprint(w, "doc")
			}, kit.WithCache(kit.NewMemoryCache(0)))
			getDoc(t, c)
			second := getDoc(t, c)
			checkAge(t, second)
			if second.FromCache() != tc.fresh {
				t.Errorf("second call FromCache = %v, want %v (Age %q)", second.FromCache(), tc.fresh, second.Header.Get("Age"))
			}
			want := int64(2)
			if tc.fresh {
				want = 1
			}
			if n := s.hits.Load(); n != want {
				t.Errorf("server saw %d requests, want %d", n, want)
			}
		})
	}
}

// RFC 9111 §4.3.4: a 304 updates the stored response only when its
// validator selects it. A 304 that names another representation is not
// the stored one's: the request is sent again, unconditionally.
func TestCache304ForAnotherValidatorDoesNotUpdate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name              string
		first, notMod     map[string]string
		wantBody, wantTag string
	}{
		{"another strong ETag",
			map[string]string{"Etag": `"v1"`}, map[string]string{"Etag": `"v2"`}, "two", `"v2"`},
		{"strong ETag against a weak one",
			map[string]string{"Etag": `W/"v1"`}, map[string]string{"Etag": `"v2"`}, "two", `"v2"`},
		{"another Last-Modified, no ETag",
			map[string]string{"Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"},
			map[string]string{"Last-Modified": "Tue, 02 Jan 2024 00:00:00 GMT"}, "two", ""},
		{"the same strong ETag", map[string]string{"Etag": `"v1"`}, map[string]string{"Etag": `"v1"`}, "one", `"v1"`},
		{"the same weak ETag", map[string]string{"Etag": `W/"v1"`}, map[string]string{"Etag": `W/"v1"`}, "one", `W/"v1"`},
		{"no validator in the 304", map[string]string{"Etag": `"v1"`}, map[string]string{}, "one", `"v1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			s, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=0")
				if n.Add(1) == 1 {
					for k, v := range tc.first {
						w.Header().Set(k, v)
					}
					fmt.Fprint(w, "one")
					return
				}
				for k, v := range tc.notMod {
					w.Header().Set(k, v)
				}
				if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, "two")
			}, kit.WithCache(kit.NewMemoryCache(0)))
			getDoc(t, c)
			second := getDoc(t, c)
			if got := string(second.Bytes()); got != tc.wantBody || second.Header.Get("Etag") != tc.wantTag {
				t.Errorf("second call: body %q ETag %q, want %q %q", got, second.Header.Get("Etag"), tc.wantBody, tc.wantTag)
			}
			if tc.wantBody == "two" {
				if second.FromCache() || s.hits.Load() != 3 {
					t.Errorf("FromCache %v after %d requests, want false after 3 (304, then unconditional)", second.FromCache(), s.hits.Load())
				}
				// What is stored now is the second representation.
				if got := string(getDoc(t, c).Bytes()); got != "two" {
					t.Errorf("third call: body %q, want two", got)
				}
			}
		})
	}
}

// A caller may change the headers of a hit, in the map or a value in
// place: later hits see the stored ones.
func TestCacheHitHeadersAreTheCallers(t *testing.T) {
	t.Parallel()
	for _, revalidate := range []bool{false, true} {
		t.Run(fmt.Sprintf("revalidate=%v", revalidate), func(t *testing.T) {
			t.Parallel()
			_, c := newCacheServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Etag", `"v1"`)
				if revalidate {
					w.Header().Set("Cache-Control", "no-cache")
				} else {
					w.Header().Set("Cache-Control", "max-age=60")
				}
				w.Header()["X-Multi"] = []string{"a", "b"}
				if r.Header.Get("If-None-Match") == `"v1"` {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprint(w, "doc")
			}, kit.WithCache(kit.NewMemoryCache(0)))
			getDoc(t, c)
			for i := range 3 {
				hit := getDoc(t, c)
				if !hit.FromCache() {
					t.Fatalf("call %d not from the cache", i+2)
				}
				if got := hit.Header["X-Multi"]; !slices.Equal(got, []string{"a", "b"}) {
					t.Errorf("call %d: X-Multi %q, want [a b]", i+2, got)
				}
				if got := hit.Header.Get("Etag"); got != `"v1"` {
					t.Errorf("call %d: ETag %q", i+2, got)
				}
				hit.Header["X-Multi"][0] = "changed in place"
				hit.Header["X-Multi"] = append(hit.Header["X-Multi"][:1], "appended")
				hit.Header["Etag"][0] = `"forged"`
				hit.Header.Set("Cache-Control", "max-age=999")
				hit.Header.Add("X-Multi", "added")
				delete(hit.Header, "Content-Type")
			}
		})
	}
}
