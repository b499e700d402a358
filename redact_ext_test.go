package kit_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/internal/leakcheck"
)

// The tests of this file check that a secret in a URL (a secret-looking
// path parameter, {name...} ones included, a secret query value, user
// info) never reaches what kit reports: error texts, HTTPError.URL and
// DecodeError.URL, log records, observer events. Each collects everything
// reported into a redactSink and checks it for every secret, and for kit's
// placeholder.

// Secrets, each unlike anything else in a URL or an error.
const (
	rdPathSecret  = "pathSECRET1x"
	rdSeg1        = "segSECRETa1"
	rdSeg2        = "segSECRETb2"
	rdSeg3        = "segSECRETc3"
	rdQuerySecret = "querySECRETq"
	rdAuthSecret  = "authSECRETk"
	rdLinkSecret  = "linkSECRETl"
	rdUserSecret  = "userSECRETu"
)

var rdSecrets = []string{rdPathSecret, rdSeg1, rdSeg2, rdSeg3, rdQuerySecret, rdAuthSecret, rdLinkSecret, rdUserSecret}

type rdReset struct {
	Token  string
	APIKey string `kit:"api_key,query"`
}

type rdDownload struct {
	Token string
}

var (
	rdResetEP    = kit.Get[rdReset, *kit.Response]("/password_resets/{token}")
	rdDownloadEP = kit.Get[rdDownload, *kit.Response]("/download/{token...}/raw")
	rdDecodeEP   = kit.Get[rdReset, rtItem]("/password_resets/{token}")
	rdStreamEP   = kit.Get[rdReset, io.ReadCloser]("/password_resets/{token}")
)

// redactSink collects what a client reports: its log records and its
// observer's events, and the errors a test adds.
type redactSink struct {
	log *rtLogBuffer
	mu  sync.Mutex
	out []string
}

// options returns the client options that report into s: a logger, an
// observer and an auth that puts a key in the query under a name that
// does not look secret.
func (s *redactSink) options() []kit.Option {
	l, buf := rtLogger()
	s.log = buf
	obs := kit.Observer{
		CallStart: func(ctx context.Context, c kit.CallInfo) context.Context {
			s.add("CallStart " + c.URL())
			return ctx
		},
		CallEnd: func(ctx context.Context, c kit.CallResult) {
			s.add("CallEnd " + c.URL())
			if c.Err != nil {
				s.add("CallEnd error " + c.Err.Error())
			}
		},
		Retry: func(ctx context.Context, r kit.RetryInfo) {
			s.add("Retry " + r.Err.Error())
		},
	}
	return []kit.Option{kit.WithLogger(l), kit.WithObserver(obs), kit.WithAuth(kit.APIKeyQuery("k", rdAuthSecret))}
}

func (s *redactSink) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = append(s.out, line)
}

// addErr adds err's text, and the URL fields of the kit errors it holds.
func (s *redactSink) addErr(err error) {
	if err == nil {
		return
	}
	s.add("error " + err.Error())
	s.add(fmt.Sprintf("error %%+v %+v", err))
	var he *kit.HTTPError
	if errors.As(err, &he) {
		s.add("HTTPError.URL " + he.URL)
	}
	var de *kit.DecodeError
	if errors.As(err, &de) {
		s.add("DecodeError.URL " + de.URL)
	}
}

// check fails t if a secret appears in what s collected, or if what
// reports the URL lacks kit's placeholder.
func (s *redactSink) check(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	all := strings.Join(s.out, "\n") + "\n" + s.log.String()
	s.mu.Unlock()
	for _, secret := range rdSecrets {
		if strings.Contains(all, secret) {
			t.Errorf("secret %q reported:\n%s", secret, all)
		}
	}
	if !strings.Contains(all, "REDACTED") {
		t.Errorf("no REDACTED in what was reported:\n%s", all)
	}
	if strings.TrimSpace(s.log.String()) == "" {
		t.Errorf("no log record")
	}
}

// rdCall calls ep with params on a sync or an async client for base.
func rdCall[P, R any](t *testing.T, async bool, ep *kit.Endpoint[P, R], base string, params P, opts ...kit.Option) *redactSink {
	t.Helper()
	s := &redactSink{}
	opts = append(s.options(), opts...)
	var err error
	if async {
		ac := newAsyncClient(t, base, opts...)
		_, err = ep.Go(t.Context(), ac, params).Await(t.Context())
	} else {
		c := newClient(t, base, opts...)
		_, err = ep.Call(t.Context(), c, params)
	}
	if err == nil {
		t.Fatal("the call succeeded; want an error")
	}
	s.addErr(err)
	return s
}

func rdModes(t *testing.T, f func(t *testing.T, async bool)) {
	for _, async := range []bool{false, true} {
		name := "sync"
		if async {
			name = "async"
		}
		t.Run(name, func(t *testing.T) {
			leakcheck.Check(t)
			f(t, async)
		})
	}
}

// A secret path parameter is redacted in the HTTPError (its URL and its
// text), the retry's error, the log records and the observer's events.
func TestRedact_SecretPathParamInHTTPError(t *testing.T) {
	rdModes(t, func(t *testing.T, async bool) {
		srv := serve(t, replyJSON(503, `{"error":"down"}`))
		s := rdCall(t, async, rdResetEP, srv.URL+"/v1", rdReset{Token: rdPathSecret, APIKey: rdQuerySecret},
			kit.WithRetry(rtFastRetry(2)))
		s.check(t)
	})
}

// A {name...} secret is redacted in every segment it fills.
func TestRedact_MultiSegmentSecretPathParam(t *testing.T) {
	rdModes(t, func(t *testing.T, async bool) {
		srv := serve(t, replyJSON(404, `{}`))
		s := rdCall(t, async, rdDownloadEP, srv.URL, rdDownload{Token: rdSeg1 + "/" + rdSeg2 + "/" + rdSeg3})
		s.check(t)
	})
}

// The error of a connection that fails (a closed server) carries no
// secret: net/http's *url.Error repeats the whole URL.
func TestRedact_TransportError(t *testing.T) {
	rdModes(t, func(t *testing.T, async bool) {
		srv := httptest.NewServer(http.NotFoundHandler())
		base := srv.URL
		srv.Close()
		s := rdCall(t, async, rdResetEP, base, rdReset{Token: rdPathSecret, APIKey: rdQuerySecret})
		s.check(t)
		s = rdCall(t, async, rdDownloadEP, base, rdDownload{Token: rdSeg1 + "/" + rdSeg2 + "/" + rdSeg3})
		s.check(t)
	})
}

// A body that does not decode gives a DecodeError whose URL is redacted.
func TestRedact_DecodeError(t *testing.T) {
	rdModes(t, func(t *testing.T, async bool) {
		srv := serve(t, replyJSON(200, `{"id": "not a number"}`))
		s := rdCall(t, async, rdDecodeEP, srv.URL, rdReset{Token: rdPathSecret, APIKey: rdQuerySecret})
		s.check(t)
	})
}

// A streamed body that breaks off gives a read error naming the redacted
// URL.
func TestRedact_StreamReadError(t *testing.T) {
	rdModes(t, func(t *testing.T, async bool) {
		srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(200)
			io.WriteString(w, "partial")
		}))
		s := &redactSink{}
		opts := s.options()
		params := rdReset{Token: rdPathSecret, APIKey: rdQuerySecret}
		var body io.ReadCloser
		var err error
		if async {
			body, err = rdStreamEP.Go(t.Context(), newAsyncClient(t, srv.URL, opts...), params).Await(t.Context())
		} else {
			body, err = rdStreamEP.Call(t.Context(), newClient(t, srv.URL, opts...), params)
		}
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(body)
		body.Close()
		if err == nil {
			t.Fatal("reading the cut body succeeded")
		}
		s.addErr(err)
		s.check(t)
	})
}

// A walk whose next link carries a token, and whose collection path holds
// a secret parameter, reports neither when a page fails.
func TestRedact_PagedNextLink(t *testing.T) {
	type share struct{ Token string }
	ep := kit.Paged[share, rtItem]("/shares/{token}/files", kit.WithPaginator(kit.LinkHeader{}))
	rdModes(t, func(t *testing.T, async bool) {
		srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Query().Get("page") == "" {
				w.Header().Set("Link", "<"+r.URL.Path+"?page=2&access_token="+rdLinkSecret+">; rel=\"next\"")
				replyJSON(200, `[{"id":1}]`)(w, r)
				return
			}
			replyJSON(500, `{}`)(w, r)
		}))
		s := &redactSink{}
		opts := s.options()
		var seq func(func(rtItem, error) bool)
		if async {
			seq = ep.GoIterate(t.Context(), newAsyncClient(t, srv.URL, opts...), share{rdPathSecret})
		} else {
			seq = ep.Iterate(t.Context(), newClient(t, srv.URL, opts...), share{rdPathSecret})
		}
		var got error
		for _, err := range seq {
			if err != nil {
				got = err
				break
			}
		}
		if got == nil {
			t.Fatal("the walk ended without an error")
		}
		s.addErr(got)
		s.check(t)
	})
}

// A walk whose next link is on another origin reports it redacted.
func TestRedact_PagedCrossOriginLink(t *testing.T) {
	type share struct{ Token string }
	ep := kit.Paged[share, rtItem]("/shares/{token}/files", kit.WithPaginator(kit.LinkHeader{}))
	rdModes(t, func(t *testing.T, async bool) {
		srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "<http://"+rdUserSecret+":"+rdUserSecret+"@elsewhere.invalid"+r.URL.Path+"?page=2&access_token="+rdLinkSecret+">; rel=\"next\"")
			replyJSON(200, `[{"id":1}]`)(w, r)
		}))
		s := &redactSink{}
		opts := s.options()
		var seq func(func(rtItem, error) bool)
		if async {
			seq = ep.GoIterate(t.Context(), newAsyncClient(t, srv.URL, opts...), share{rdPathSecret})
		} else {
			seq = ep.Iterate(t.Context(), newClient(t, srv.URL, opts...), share{rdPathSecret})
		}
		var got error
		for _, err := range seq {
			if err != nil {
				got = err
				break
			}
		}
		if !errors.Is(got, kit.ErrCrossOrigin) {
			t.Fatalf("got %v, want ErrCrossOrigin", got)
		}
		s.addErr(got)
		s.check(t)
	})
}

// Following too many redirects, or a Location that is not a URL, gives an
// error without the secrets of the URLs redirected to.
func TestRedact_Redirects(t *testing.T) {
	rdModes(t, func(t *testing.T, async bool) {
		srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case strings.HasPrefix(r.URL.Path, "/password_resets/bad"):
				w.Header().Set("Location", "/x/"+rdLinkSecret+"/%zz?token="+rdLinkSecret)
			default:
				w.Header().Set("Location", r.URL.Path+"x?token="+rdLinkSecret)
			}
			w.WriteHeader(http.StatusFound)
		}))
		s := rdCall(t, async, rdResetEP, srv.URL, rdReset{Token: rdPathSecret, APIKey: rdQuerySecret})
		s.check(t)
		s = rdCall(t, async, rdResetEP, srv.URL, rdReset{Token: "bad" + rdPathSecret, APIKey: rdQuerySecret})
		s.check(t)
	})
}

// User info in a URL given at run time is redacted.
func TestRedact_UserInfoInURLValue(t *testing.T) {
	ep := kit.Get[struct {
		URL string `kit:",url"`
	}, *kit.Response]("/")
	rdModes(t, func(t *testing.T, async bool) {
		srv := serve(t, replyJSON(404, `{}`))
		u := strings.Replace(srv.URL, "://", "://"+rdUserSecret+":"+rdUserSecret+"@", 1) + "/p?api_key=" + rdQuerySecret
		s := rdCall(t, async, ep, srv.URL, struct {
			URL string `kit:",url"`
		}{u})
		s.check(t)
	})
}

// ---------------------------------------------------------------------------
// Defect 9: APIKeyQuery values leaked once 256 other parameter names were
// registered (the registry was process-wide and silently full). Redaction is
// now per client; the test still makes 258 other APIKeyQuery auths first,
// so that a registry of any kind filling up would show.

func TestHostileAPIKeyQueryManyNames(t *testing.T) { // defect 9
	kit.APIKeyQuery("access", "x")
	kit.APIKeyQuery("appid", "x")
	for i := range 256 {
		kit.APIKeyQuery(fmt.Sprintf("hxfill%03d", i), "x")
	}
	const secret = "hx-257th-value-0451"
	srv := hxServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusInternalServerError)
	})
	var logs bytes.Buffer
	c := hxClient(t, srv.URL,
		kit.WithAuth(kit.APIKeyQuery("hxlast", secret)),
		kit.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	_, err := hxGetRec.Call(hxCtx(t), c, kit.NoParams{})
	var he *kit.HTTPError
	if !errors.As(err, &he) {
		t.Fatalf("Call: %v; want an *HTTPError", err)
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(he.URL, secret) {
		t.Errorf("the 257th APIKeyQuery value is in the error: %v", err)
	}
	if strings.Contains(logs.String(), secret) {
		t.Errorf("the 257th APIKeyQuery value is in the log: %s", logs.String())
	}
}
