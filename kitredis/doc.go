// Package kitredis keeps the state that a fleet of kit clients shares on
// Redis: one rate-limit quota for every process (NewLimiter), one token that
// every process renews once (NewTokenStore), and one HTTP cache
// (NewCache).
//
//	rdb := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
//	client, err := kit.NewClient(baseURL,
//		kit.WithLimits(kit.Limits{Limiter: kitredis.NewLimiter(rdb, "github:quota", kitredis.PerHour(5000))}),
//		kit.WithAuth(kit.RenewingTokenAuth(renew, kit.WithTokenStore(kitredis.NewTokenStore(rdb, "github:token")))),
//		kit.WithCache(kitredis.NewCache(rdb, "github:cache:")),
//	)
//
// Every operation is one Redis round trip (a Lua script where it must be
// atomic), bounded by the caller's context: make the redis client with
// ContextTimeoutEnabled, so that a Redis that stops answering cannot hold a
// call past its context's deadline. Times that every process must agree on
// (the limiter's schedule) are read from Redis's clock, never the
// processes' own. A reply of an unexpected type (another program's value
// under the key, a proxy that mangles replies) is an error, never a panic.
//
// What the stores guarantee, and what they cannot, is in each
// constructor's documentation and in kit's README ("Running a fleet").
package kitredis
