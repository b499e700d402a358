package kit_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

var exampleLimitedUser = kit.Get[struct {
	ID     int
	MaxAge *int `kit:"max_age"`
}, kit.Result[exampleUser]]("/limited/users/{id}")

type exampleUser struct {
	Name string `json:"name"`
}

// WithCache makes the client a private HTTP cache: a fresh response is
// served without a request, and a stale one with an ETag is revalidated
// with If-None-Match, a 304 serving the stored body. kittest's
// /limited/users/{id} sends Cache-Control: private, max-age=N and an ETag.
func ExampleWithCache() {
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithCache(kit.NewMemoryCache(16<<20)))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	ctx := context.Background()
	type params = struct {
		ID     int
		MaxAge *int `kit:"max_age"`
	}
	for range 3 {
		r, err := exampleLimitedUser.Call(ctx, c, params{ID: 1}) // max-age=60
		fmt.Println(r.Value.Name, r.FromCache(), err)
	}
	zero := 0
	for range 2 {
		r, err := exampleLimitedUser.Call(ctx, c, params{ID: 2, MaxAge: &zero}) // always stale
		fmt.Println(r.Value.Name, r.StatusCode, r.FromCache(), err)
	}
	fmt.Println(api.Stats().Requests, "requests,", api.Stats().NotModified, "of them answered 304")
	// Output:
	// Ada Lovelace false <nil>
	// Ada Lovelace true <nil>
	// Ada Lovelace true <nil>
	// Alan Turing 200 false <nil>
	// Alan Turing 200 true <nil>
	// 3 requests, 1 of them answered 304
}

// WithLimits gathers every limit of a client in one option. Here the
// client paces itself to 50 requests a second (bursts of 5) and follows the
// limits the server announces, waiting at most a minute for a reset. The
// server's quota is 2 requests an hour: the third call would wait far
// longer than a minute, so it fails at once with a *kit.RateLimitError and
// nothing is sent. Limits that make no sense make NewClient fail.
func ExampleWithLimits() {
	api := kittest.NewAPI(kittest.WithRateQuota(2, time.Hour))
	srv := httptest.NewServer(api)
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithLimits(kit.Limits{Rate: 50, Burst: 5, ServerMaxWait: time.Minute}))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	type params = struct {
		ID     int
		MaxAge *int `kit:"max_age"`
	}
	for id := 1; id <= 3; id++ {
		r, err := exampleLimitedUser.Call(context.Background(), c, params{ID: id})
		var rle *kit.RateLimitError
		switch {
		case errors.As(err, &rle):
			fmt.Printf("not sent: limit %d, remaining %d, resets within the hour: %v\n",
				rle.Limit, rle.Remaining, time.Until(rle.Reset) <= time.Hour)
		case err != nil:
			fmt.Println(err)
		default:
			fmt.Println(r.Value.Name, "remaining", r.Header.Get("X-RateLimit-Remaining"))
		}
	}
	fmt.Println(api.Stats().Requests, "requests reached the server")

	_, err = kit.NewClient(srv.URL, kit.WithLimits(kit.Limits{Burst: 5}))
	fmt.Println(err)
	// Output:
	// Ada Lovelace remaining 1
	// Alan Turing remaining 0
	// not sent: limit 2, remaining 0, resets within the hour: true
	// 2 requests reached the server
	// kit: NewClient: kit.WithLimits(kit.Limits{Burst: 5}): Burst goes with Rate, and Rate is not set
}

// RenewingTokenAuth gets the current token, so that a refresh-token grant
// can use and rotate its Refresh. With a TokenStore, every client that
// shares it uses one token: when the server rejects it, the clients renew
// it once between them.
func ExampleRenewingTokenAuth() {
	var mu sync.Mutex
	access := ""
	renewals := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+access {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"name":"Ada"}`)
	}))
	defer srv.Close()
	// A refresh-token grant: the provider rotates the refresh token, and
	// refuses one that was used before.
	renew := func(ctx context.Context, cur kit.Token) (kit.Token, error) {
		mu.Lock()
		defer mu.Unlock()
		if want := fmt.Sprintf("refresh-%d", renewals); cur.Refresh != want && renewals > 0 {
			return kit.Token{}, errors.New("invalid_grant")
		}
		renewals++
		access = fmt.Sprintf("access-%d", renewals)
		return kit.Token{Value: access, Refresh: fmt.Sprintf("refresh-%d", renewals), Expiry: time.Now().Add(time.Hour)}, nil
	}
	store := kit.NewMemoryTokenStore()
	get := kit.Get[kit.NoParams, exampleUser]("/me")
	var clients []*kit.Client
	for range 3 {
		c, err := kit.NewClient(srv.URL, kit.WithAuth(kit.RenewingTokenAuth(renew, kit.WithTokenStore(store))))
		if err != nil {
			fmt.Println(err)
			return
		}
		defer c.Close()
		clients = append(clients, c)
	}
	call := func() {
		for _, c := range clients {
			if _, err := get.Call(context.Background(), c, kit.NoParams{}); err != nil {
				fmt.Println(err)
			}
		}
	}
	call()
	fmt.Println("renewals after the first calls:", renewals)
	mu.Lock()
	access = "revoked" // the server rejects the token
	mu.Unlock()
	call()
	fmt.Println("renewals after a 401 on every client:", renewals)
	// Output:
	// renewals after the first calls: 1
	// renewals after a 401 on every client: 2
}
