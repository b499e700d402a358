package kitredis_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"time"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitredis"
	"github.com/kithttp/kit/kittest"
	"github.com/redis/go-redis/v9"
)

// exampleRedis connects to the Redis the examples run against (here the
// one in KITREDIS_ADDR; in a service, the fleet's). ContextTimeoutEnabled
// makes every command end with its context.
func exampleRedis() *redis.Client {
	return redis.NewClient(&redis.Options{Addr: os.Getenv("KITREDIS_ADDR"), ContextTimeoutEnabled: true})
}

// exampleKey is a key of its own for each run of an example.
func exampleKey(name string) string {
	return fmt.Sprintf("kitredis-example:%s:%d", name, time.Now().UnixNano())
}

var getHealth = kit.Get[kit.NoParams, map[string]string]("/health")

// Two clients (in a fleet, two processes) share one quota: 3 requests a
// minute, with bursts of 3. The fourth request, with a short deadline,
// fails at once without being sent.
func ExampleNewLimiter() {
	rdb := exampleRedis()
	defer rdb.Close()
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	quota := kitredis.PerMinute(3)
	key := exampleKey("quota")
	a, _ := kit.NewClient(srv.URL, kit.WithLimiter(kitredis.NewLimiter(rdb, key, quota)))
	b, _ := kit.NewClient(srv.URL, kit.WithLimiter(kitredis.NewLimiter(rdb, key, quota)))
	defer a.Close()
	defer b.Close()
	for _, c := range []*kit.Client{a, b, a, b} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := getHealth.Call(ctx, c, kit.NoParams{})
		cancel()
		fmt.Println(err == nil)
	}
	fmt.Println(api.Stats().Requests, "requests reached the server")
	// Output:
	// true
	// true
	// true
	// false
	// 3 requests reached the server
}

// Clients with their own NewTokenStore on one key (in a fleet, one per
// process) share a token: it is renewed once, and a client that finds a
// token in the store takes it.
func ExampleNewTokenStore() {
	rdb := exampleRedis()
	defer rdb.Close()
	api := kittest.NewAPI(kittest.WithRequireAuth(true))
	srv := httptest.NewServer(api)
	defer srv.Close()
	login := kit.Post[struct {
		Credentials struct {
			Username string `json:"username"`
			Password string `json:"password"`
		}
	}, struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int    `json:"expires_in"`
	}]("/login", kit.NoAuth())
	key := exampleKey("token")
	var clients []*kit.Client
	for range 3 {
		var c *kit.Client
		renew := func(ctx context.Context, _ kit.Token) (kit.Token, error) {
			var p struct {
				Credentials struct {
					Username string `json:"username"`
					Password string `json:"password"`
				}
			}
			p.Credentials.Username, p.Credentials.Password = "demo", "s3cret"
			r, err := login.Call(ctx, c, p)
			return kit.Token{Value: r.AccessToken, Expiry: time.Now().Add(time.Duration(r.ExpiresIn) * time.Second)}, err
		}
		var err error
		c, err = kit.NewClient(srv.URL, kit.WithAuth(kit.RenewingTokenAuth(renew,
			kit.WithTokenStore(kitredis.NewTokenStore(rdb, key)))))
		if err != nil {
			fmt.Println(err)
			return
		}
		defer c.Close()
		clients = append(clients, c)
	}
	for _, c := range clients {
		h, err := getHealth.Call(context.Background(), c, kit.NoParams{})
		fmt.Println(h["status"], err)
	}
	fmt.Println(api.Stats().Logins, "login")
	// Output:
	// ok <nil>
	// ok <nil>
	// ok <nil>
	// 1 login
}

// A response cached by one client (in a fleet, one process) is served to
// another from Redis.
func ExampleNewCache() {
	rdb := exampleRedis()
	defer rdb.Close()
	api := kittest.NewAPI()
	srv := httptest.NewServer(api)
	defer srv.Close()
	get := kit.Get[struct{ ID int }, kit.Result[struct {
		Name string `json:"name"`
	}]]("/limited/users/{id}") // Cache-Control: private, max-age=60
	prefix := exampleKey("cache") + ":"
	for range 2 {
		c, _ := kit.NewClient(srv.URL, kit.WithCache(kitredis.NewCache(rdb, prefix)))
		r, err := get.Call(context.Background(), c, struct{ ID int }{1})
		fmt.Println(r.Value.Name, r.FromCache(), err)
		c.Close()
	}
	fmt.Println(api.Stats().Requests, "request")
	// Output:
	// Ada Lovelace false <nil>
	// Ada Lovelace true <nil>
	// 1 request
}
