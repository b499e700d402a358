package kit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// The rate limit a response announces is its origin's: the origin that
// answered, after redirects, not the one the request was first sent to. A
// CDN the API redirects to says nothing of the API's own limit.

var (
	redirectedFile     = kit.Get[kit.NoParams, *kit.Response]("/file")
	redirectedDownload = kit.Get[kit.NoParams, io.ReadCloser]("/file")
)

func TestServerRateLimitOfARedirectTarget(t *testing.T) {
	for _, c := range []struct {
		status   int
		streamed bool
	}{{http.StatusOK, false}, {http.StatusOK, true}, {http.StatusTooManyRequests, false}} {
		status := c.status
		for _, tw := range twins {
			t.Run(fmt.Sprint(status, "/streamed=", c.streamed, "/", tw.name), func(t *testing.T) {
				var cdnHits, apiHits atomic.Int64
				cdn := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					cdnHits.Add(1)
					w.Header().Set("X-RateLimit-Limit", "100")
					w.Header().Set("X-RateLimit-Remaining", "0")
					w.Header().Set("X-RateLimit-Reset", "3600") // an hour
					w.WriteHeader(status)
					fmt.Fprint(w, `{}`)
				}))
				mux := http.NewServeMux()
				mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, cdn.URL+"/file", http.StatusFound)
				})
				mux.HandleFunc("/doc", func(w http.ResponseWriter, r *http.Request) {
					apiHits.Add(1)
					fmt.Fprint(w, `{}`)
				})
				api := serve(t, mux)
				b := tw.client(t, api.URL, kit.WithServerRateLimit(time.Minute), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 1}))

				var err error
				if c.streamed {
					var rc io.ReadCloser
					if rc, err = twinCall(t.Context(), tw, redirectedDownload, b, kit.NoParams{}); err == nil {
						rc.Close()
					}
				} else {
					_, err = twinCall(t.Context(), tw, redirectedFile, b, kit.NoParams{})
				}
				if status == http.StatusOK && err != nil {
					t.Fatal(err)
				}
				if he, ok := errors.AsType[*kit.HTTPError](err); status != http.StatusOK && (!ok || he.StatusCode != status) {
					t.Fatalf("err = %v, want the CDN's %d", err, status)
				}
				// The API itself is not limited: the call is sent at once.
				if _, err := twinCall(t.Context(), tw, cacheGet, b, kit.NoParams{}); err != nil {
					t.Fatalf("a call to the API after the CDN's limit: %v", err)
				}
				if n := apiHits.Load(); n != 1 {
					t.Errorf("the API saw %d requests, want 1", n)
				}
				if n := cdnHits.Load(); n != 1 {
					t.Errorf("the CDN saw %d requests, want 1", n)
				}
			})
		}
	}
}

// The async twin of TestRedirect401ElsewhereDoesNotRefresh: a 401 from
// where a redirect led (which got no credentials) renews nothing.
func TestRedirect401ElsewhereDoesNotRefreshAsync(t *testing.T) {
	a, _, _, _ := redirectServers(t)
	var fetches atomic.Int64
	auth := kit.TokenAuth(func(context.Context) (kit.Token, error) {
		fetches.Add(1)
		return kit.Token{Value: "tok-" + secretMark}, nil
	})
	ac := newAsyncClient(t, a.URL+"/api", authOptions(auth)...)
	_, err := redirTo401.Go(t.Context(), ac, kit.NoParams{}).Await(t.Context())
	if he, ok := errors.AsType[*kit.HTTPError](err); !ok || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want a 401 *kit.HTTPError", err)
	}
	if got := fetches.Load(); got != 1 {
		t.Errorf("fetches = %d, want 1 (the other origin's 401 is not about our token)", got)
	}
}
