package kit_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// obsUser is what the observer tests decode: kittest's user.
type obsUser struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

var (
	obsGetUser = kit.Get[struct{ ID int }, obsUser]("/users/{id}")
	obsMe      = kit.Get[kit.NoParams, obsUser]("/me")
	obsEvents  = kit.Get[struct{ Count int }, *kit.Stream[kittest.Event]]("/events")
	obsDown    = kit.Get[struct{ Bytes int }, io.ReadCloser]("/download")
	obsLogin   = kit.Post[struct{ Body obsCreds }, struct {
		AccessToken string `json:"access_token"`
	}]("/login", kit.NoAuth())
)

type obsCreds struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestObserver_RetriedCall(t *testing.T) {
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			fs := kittest.NewFaultServer(t, kittest.NewAPI())
			fs.SetRetryAfter("0")
			fs.Script(503, kittest.FaultRefuse)
			var log kittest.EventLog
			c := tw.client(t, fs.URL(), kit.WithObserver(log.Observer()),
				kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
			u, err := twinCall(t.Context(), tw, obsGetUser, c, struct{ ID int }{1})
			if err != nil || u.Name != "Ada Lovelace" {
				t.Fatalf("got %+v, %v", u, err)
			}
			wantLines(t, log.Lines(),
				"call start GET /users/{id}",
				"retry GET /users/{id}: attempt 1 failed with 503, attempt 2 follows",
				"retry GET /users/{id}: attempt 2 failed with a connection error, attempt 3 follows",
				"call end GET /users/{id}: 200",
			)

			// A call that fails reports its status and error.
			log.Reset()
			fs.Script(404)
			if _, err := twinCall(t.Context(), tw, obsGetUser, c, struct{ ID int }{1}); err == nil {
				t.Fatal("no error for a 404")
			}
			wantLines(t, log.Lines(), "call start GET /users/{id}", "call end GET /users/{id}: 404 (error)")
		})
	}
}

func TestObserver_TokenRenewals(t *testing.T) {
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			api := kittest.NewAPI()
			srv := serve(t, api)
			// The login goes through a client of its own, unobserved.
			lc := newClient(t, srv.URL)
			auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
				r, err := obsLogin.Call(ctx, lc, struct{ Body obsCreds }{obsCreds{"demo", "s3cret"}})
				return kit.Token{Value: r.AccessToken}, err
			})
			var log kittest.EventLog
			c := tw.client(t, srv.URL, kit.WithAuth(auth), kit.WithObserver(log.Observer()))
			for range 2 {
				if _, err := twinCall(t.Context(), tw, obsMe, c, kit.NoParams{}); err != nil {
					t.Fatal(err)
				}
			}
			api.ExpireTokens()
			if _, err := twinCall(t.Context(), tw, obsMe, c, kit.NoParams{}); err != nil {
				t.Fatal(err)
			}
			wantLines(t, log.Lines(),
				"call start GET /me",
				"token renewal GET /me",
				"call end GET /me: 200",
				"call start GET /me",
				"call end GET /me: 200",
				"call start GET /me",
				"token renewal GET /me (after a 401)",
				"call end GET /me: 200",
			)
		})
	}
}

func TestObserver_Walk(t *testing.T) {
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			var log kittest.EventLog
			_, c := tw.setup(t, kittest.NewAPI(kittest.WithUsers(5)), kit.WithObserver(log.Observer()))
			n := 0
			for _, err := range twinAll[obsUser](t.Context(), tw, c, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 2})) {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 5 {
				t.Fatalf("%d users, want 5", n)
			}
			got := log.Lines()
			if tw.async {
				// Pages are fetched ahead: their calls interleave with the
				// page events, so compare the walk's own events.
				got = slices.DeleteFunc(got, func(l string) bool { return strings.HasPrefix(l, "call ") })
				wantLines(t, got,
					"walk start GET /users",
					"page GET /users: 1, 2 records",
					"page GET /users: 2, 2 records",
					"page GET /users: 3, 1 records",
					"walk end GET /users: 3 pages",
				)
				return
			}
			wantLines(t, got,
				"walk start GET /users",
				"call start GET /users",
				"call end GET /users: 200",
				"page GET /users: 1, 2 records",
				"call start GET /users",
				"call end GET /users: 200",
				"page GET /users: 2, 2 records",
				"call start GET /users",
				"call end GET /users: 200",
				"page GET /users: 3, 1 records",
				"walk end GET /users: 3 pages",
			)
		})
	}
}

func TestObserver_WalkError(t *testing.T) {
	fs := kittest.NewFaultServer(t, kittest.NewAPI(kittest.WithUsers(5)))
	fs.Script(kittest.FaultNone, 500)
	var log kittest.EventLog
	c := newClient(t, fs.URL(), kit.WithObserver(log.Observer()))
	users := kit.NewResource[obsUser](c, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 2}))
	var err error
	for _, err = range users.All(t.Context()) {
		if err != nil {
			break
		}
	}
	if err == nil {
		t.Fatal("no error from a walk whose second page is a 500")
	}
	wantLines(t, log.Lines(),
		"walk start GET /users",
		"call start GET /users",
		"call end GET /users: 200",
		"page GET /users: 1, 2 records",
		"call start GET /users",
		"call end GET /users: 500 (error)",
		"walk end GET /users: 1 pages (error)",
	)
}

func TestObserver_Stream(t *testing.T) {
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			var log kittest.EventLog
			_, c := tw.setup(t, kittest.NewAPI(), kit.WithObserver(log.Observer()))
			s, err := twinCall(t.Context(), tw, obsEvents, c, struct{ Count int }{3})
			if err != nil {
				t.Fatal(err)
			}
			wantLines(t, log.Lines(), "call start GET /events") // open until the stream ends
			n := 0
			for _, err := range s.All() {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 3 {
				t.Fatalf("%d records, want 3", n)
			}
			wantLines(t, log.Lines(),
				"call start GET /events",
				"stream end GET /events: 3 records",
				"call end GET /events: 200 (streamed)",
			)

			// Closed early by the caller: the stream ends at Close.
			log.Reset()
			s, err = twinCall(t.Context(), tw, obsEvents, c, struct{ Count int }{100})
			if err != nil {
				t.Fatal(err)
			}
			for range s.All() {
				break
			}
			s.Close()
			wantLines(t, log.Lines(),
				"call start GET /events",
				"stream end GET /events: 1 records",
				"call end GET /events: 200 (streamed)",
			)
		})
	}
}

func TestObserver_StreamContextEnds(t *testing.T) {
	var log kittest.EventLog
	_, c := setup(t, kittest.NewAPI(), kit.WithObserver(log.Observer()))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s, err := obsEvents.Call(ctx, c, struct{ Count int }{1000})
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for _, err := range s.All() {
		if err != nil {
			last = err
			break
		}
		cancel()
	}
	if last == nil {
		t.Fatal("no error after the context ended")
	}
	got := log.Lines()
	if len(got) != 3 || got[1] != "stream end GET /events: 1 records (error)" {
		t.Errorf("events: %q", got)
	}
}

func TestObserver_ReadCloserEndsAtClose(t *testing.T) {
	var log kittest.EventLog
	_, c := setup(t, kittest.NewAPI(), kit.WithObserver(log.Observer()))
	body, err := obsDown.Call(t.Context(), c, struct{ Bytes int }{1000})
	if err != nil {
		t.Fatal(err)
	}
	wantLines(t, log.Lines(), "call start GET /download")
	io.Copy(io.Discard, body)
	body.Close()
	body.Close()
	wantLines(t, log.Lines(), "call start GET /download", "call end GET /download: 200 (streamed)")
}

// CallStart's context reaches the whole chain, and headers it sets are
// sent with every attempt.
func TestObserver_CallStartContextAndHeaders(t *testing.T) {
	type key struct{}
	var mu sync.Mutex
	var seen []string
	rec := newRecorder(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, r.Header.Get("Traceparent"))
		if len(seen) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		replyJSON(200, `{"id":1,"name":"x"}`)(w, r)
	})
	var ended, attempts []string
	obs := kit.Observer{
		CallStart: func(ctx context.Context, c kit.CallInfo) context.Context {
			c.Request.Header.Set("Traceparent", "00-trace-"+c.Template)
			return context.WithValue(ctx, key{}, "call "+c.Endpoint)
		},
		CallEnd: func(ctx context.Context, c kit.CallResult) {
			ended = append(ended, ctx.Value(key{}).(string))
		},
		Retry: func(ctx context.Context, r kit.RetryInfo) {
			attempts = append(attempts, ctx.Value(key{}).(string))
		},
	}
	in := kit.WithAttemptInterceptors(func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			attempts = append(attempts, ctx.Value(key{}).(string))
			return next(ctx, req)
		}
	})
	_, c := setup(t, rec, kit.WithObserver(obs), in, kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
	if _, err := obsGetUser.Call(t.Context(), c, struct{ ID int }{7}); err != nil {
		t.Fatal(err)
	}
	wantLines(t, seen, "00-trace-/users/{id}", "00-trace-/users/{id}")
	wantLines(t, attempts, "call GET /users/{id}", "call GET /users/{id}", "call GET /users/{id}")
	wantLines(t, ended, "call GET /users/{id}")
}

// Observers given several times all see every event, in order; contexts
// pass from one CallStart to the next.
func TestObserver_Several(t *testing.T) {
	type key struct{}
	var order []string
	mk := func(name string) kit.Observer {
		return kit.Observer{
			CallStart: func(ctx context.Context, c kit.CallInfo) context.Context {
				prev, _ := ctx.Value(key{}).(string)
				order = append(order, name+" start after "+prev)
				return context.WithValue(ctx, key{}, name)
			},
			CallEnd: func(ctx context.Context, c kit.CallResult) {
				order = append(order, name+" end in "+ctx.Value(key{}).(string))
			},
			LogAttrs: func(ctx context.Context, attrs []slog.Attr) []slog.Attr {
				return append(attrs, slog.String(name, "yes"))
			},
		}
	}
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == "time" || a.Key == "duration" || a.Key == "url" {
				return slog.Attr{}
			}
			return a
		},
	}))
	_, c := setup(t, kittest.NewAPI(), kit.WithObserver(mk("a")), kit.WithObserver(kit.Observer{}), kit.WithObserver(mk("b")), kit.WithLogger(logger))
	if _, err := obsGetUser.Call(t.Context(), c, struct{ ID int }{1}); err != nil {
		t.Fatal(err)
	}
	wantLines(t, order, "a start after ", "b start after a", "a end in b", "b end in b")
	if got, want := buf.String(), "level=INFO msg=\"kit request\" method=GET status=200 attempt=1 a=yes b=yes\n"; got != want {
		t.Errorf("log: %q, want %q", got, want)
	}
}

// CallInfo.URL redacts secrets in the query and in secret-looking path
// parameters; Template and Endpoint never hold a value.
func TestObserver_URLRedaction(t *testing.T) {
	const secret = "sk_live_SECRET42"
	hook := kit.Get[struct {
		Token  string
		ID     int
		APIKey string `kit:"api_key,query"`
		Page   int    `kit:"page,query"`
		Auth   string `kit:"X-Auth,header"`
	}, *kit.Response]("/hooks/{token}/items/{id}")
	file := kit.Get[struct{ Name, Sig string }, *kit.Response]("/files/{name}.{sig}")
	var got []kit.CallInfo
	var urls []string
	obs := kit.Observer{CallStart: func(ctx context.Context, c kit.CallInfo) context.Context {
		got = append(got, c)
		urls = append(urls, c.URL())
		return nil
	}}
	srv := serve(t, replyJSON(200, `{}`))
	c := newClient(t, srv.URL+"/v1", kit.WithObserver(obs))
	if _, err := hook.Call(t.Context(), c, struct {
		Token  string
		ID     int
		APIKey string `kit:"api_key,query"`
		Page   int    `kit:"page,query"`
		Auth   string `kit:"X-Auth,header"`
	}{secret, 7, secret, 2, secret}); err != nil {
		t.Fatal(err)
	}
	if _, err := file.Call(t.Context(), c, struct{ Name, Sig string }{"report", secret}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		srv.URL + "/v1/hooks/REDACTED/items/7?api_key=REDACTED&page=2",
		srv.URL + "/v1/files/REDACTED",
	}
	wantLines(t, urls, want...)
	for _, c := range got {
		if strings.Contains(c.Endpoint+c.Template+c.Method+c.URL(), secret) {
			t.Errorf("a secret in %+v", c)
		}
	}
	if got[0].Endpoint != "GET /hooks/{token}/items/{id}" || got[0].Method != "GET" || got[0].Template != "/hooks/{token}/items/{id}" {
		t.Errorf("CallInfo %q %q %q", got[0].Endpoint, got[0].Method, got[0].Template)
	}
}

// Each ranging over one walk starts from the caller's context, not from
// the context an earlier ranging's WalkStart returned.
func TestObserver_WalkRangedTwice(t *testing.T) {
	type key struct{}
	var depths []int
	obs := kit.Observer{WalkStart: func(ctx context.Context, w kit.WalkInfo) context.Context {
		d, _ := ctx.Value(key{}).(int)
		depths = append(depths, d)
		return context.WithValue(ctx, key{}, d+1)
	}}
	_, c := setup(t, kittest.NewAPI(kittest.WithUsers(3)), kit.WithObserver(obs))
	all := kit.NewResource[obsUser](c, "/users").All(t.Context())
	for range 2 {
		for _, err := range all {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(depths, []int{0, 0}) {
		t.Errorf("WalkStart saw depths %v, want [0 0]", depths)
	}
}

// A 2xx body that does not decode, or does not validate, ends the call
// with that error, for endpoint calls, resource operations and pages.
func TestObserver_DecodeErrors(t *testing.T) {
	type strict struct {
		ID   int    `json:"id"`
		Name string `json:"name" validate:"required"`
	}
	strictGet := kit.Get[struct{ ID int }, strict]("/users/{id}")
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			var mu sync.Mutex
			var errs []string
			obs := kit.Observer{CallEnd: func(ctx context.Context, r kit.CallResult) {
				mu.Lock()
				defer mu.Unlock()
				var de *kit.DecodeError
				var ve *kit.ValidationError
				switch {
				case r.Err == nil:
					errs = append(errs, "ok")
				case errors.As(r.Err, &de):
					errs = append(errs, "decode")
				case errors.As(r.Err, &ve):
					errs = append(errs, "validation")
				default:
					errs = append(errs, r.Err.Error())
				}
			}}
			_, c := tw.setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/users/1":
					replyJSON(200, `{"id":1,"name":"Ada"}`)(w, r)
				case "/users/2":
					replyJSON(200, `{"id":"two"}`)(w, r)
				case "/users/3":
					replyJSON(200, `{"id":3}`)(w, r)
				default:
					replyJSON(200, `{"data":[{"id":1}]}`)(w, r)
				}
			}), kit.WithObserver(obs))
			for id := 1; id <= 3; id++ {
				twinCall(t.Context(), tw, strictGet, c, struct{ ID int }{id})
			}
			for _, err := range twinAll[strict](t.Context(), tw, c, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 1})) {
				if err == nil {
					t.Fatal("a page whose records do not validate")
				}
				break
			}
			wantLines(t, errs, "ok", "decode", "validation", "validation")
		})
	}
}

// A stream that resumes: each connection is a call; the first lasts until
// the stream ends, after StreamEnd.
func TestObserver_StreamResumes(t *testing.T) {
	resumable := kit.Get[struct {
		Count     int
		DropEvery int `kit:"drop_every"`
	}, *kit.Stream[kittest.Event]]("/events")
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			var log kittest.EventLog
			_, c := tw.setup(t, kittest.NewAPI(), kit.WithObserver(log.Observer()),
				kit.WithRetry(kit.RetryPolicy{BaseDelay: time.Millisecond}))
			s, err := twinCall(t.Context(), tw, resumable, c, struct {
				Count     int
				DropEvery int `kit:"drop_every"`
			}{4, 2})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, err := range s.All() {
				if err != nil {
					t.Fatal(err)
				}
				n++
			}
			if n != 4 {
				t.Fatalf("%d records, want 4", n)
			}
			wantLines(t, log.Lines(),
				"call start GET /events",
				"call start GET /events",
				"stream end GET /events: 4 records",
				"call end GET /events: 200 (streamed)",
				"call end GET /events: 200 (streamed)",
			)
		})
	}
}

// The cache layer reports its hits: a fresh stored response, and a stale
// one the server confirmed with a 304.
func TestObserver_CacheHits(t *testing.T) {
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			var log kittest.EventLog
			api := kittest.NewAPI()
			_, c := tw.setup(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/users/2" {
					w.Header().Set("Cache-Control", "max-age=60")
				}
				api.ServeHTTP(w, r)
			}), kit.WithObserver(log.Observer()), kit.WithCache(kit.NewMemoryCache(1<<20)))
			for range 2 {
				for _, id := range []int{1, 2} {
					if _, err := twinCall(t.Context(), tw, obsGetUser, c, struct{ ID int }{id}); err != nil {
						t.Fatal(err)
					}
				}
			}
			wantLines(t, log.Lines(),
				"call start GET /users/{id}",
				"call end GET /users/{id}: 200",
				"call start GET /users/{id}",
				"call end GET /users/{id}: 200",
				"call start GET /users/{id}",
				"cache hit GET /users/{id} (revalidated)",
				"call end GET /users/{id}: 200",
				"call start GET /users/{id}",
				"cache hit GET /users/{id}",
				"call end GET /users/{id}: 200",
			)
		})
	}
}
