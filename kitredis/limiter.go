package kitredis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kithttp/kit"
	"github.com/redis/go-redis/v9"
)

// Limit is a quota: Rate requests per Period, with bursts of up to Burst
// requests at once (at least 1).
type Limit struct {
	Rate   int
	Period time.Duration
	Burst  int
}

// PerSecond is a quota of rate requests a second, with bursts of rate.
func PerSecond(rate int) Limit { return Limit{Rate: rate, Period: time.Second, Burst: rate} }

// PerMinute is a quota of rate requests a minute, with bursts of rate.
func PerMinute(rate int) Limit { return Limit{Rate: rate, Period: time.Minute, Burst: rate} }

// PerHour is a quota of rate requests an hour, with bursts of rate.
func PerHour(rate int) Limit { return Limit{Rate: rate, Period: time.Hour, Burst: rate} }

// String describes the limit.
func (l Limit) String() string { return fmt.Sprintf("%d per %v (burst %d)", l.Rate, l.Period, l.Burst) }

// NewLimiter returns a kit.Limiter (see kit.Limits.Limiter) whose quota, limit,
// every process using key on rdb shares: the generic cell rate algorithm
// (GCRA), one Lua script and one round trip per request, with the time
// taken from Redis's clock, so that the processes' clocks need not agree.
// Over any window of length Period, the requests let through number at most
// Burst plus Rate times the window over Period.
//
// Wait returns when a request may go. When none may yet, it sleeps until
// the next one may (with the context), then asks again: under contention a
// waiter can lose its turn to another process and wait again, so waits are
// not first come, first served. A wait that would end after the context's
// deadline fails at once, with an error matching
// context.DeadlineExceeded. A Redis error (down, a wrong type under key)
// fails Wait with it, wrapped: kit then sends nothing. A limit whose Rate,
// Period or Burst is not positive makes every Wait fail.
func NewLimiter(rdb redis.UniversalClient, key string, limit Limit) kit.Limiter {
	return &limiter{rdb: rdb, key: key, limit: limit}
}

type limiter struct {
	rdb   redis.UniversalClient
	key   string
	limit Limit
}

// gcra admits one request under the quota of KEYS[1]. ARGV: the emission
// interval and the burst tolerance (interval times burst-1), both in
// microseconds. The key holds the theoretical arrival time (TAT) in
// microseconds on Redis's clock. Returns {1, 0} when admitted, {0,
// microseconds to wait} when not.
var gcra = redis.NewScript(`
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local t = redis.call("TIME")
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local tat = tonumber(redis.call("GET", KEYS[1]) or now) or now
if tat < now then tat = now end
local allow_at = tat - tolerance
if now < allow_at then
  return {0, allow_at - now}
end
local new_tat = tat + interval
redis.call("SET", KEYS[1], string.format("%.0f", new_tat), "PX", math.ceil((new_tat - now) / 1000) + 1)
return {1, 0}
`)

func (l *limiter) Wait(ctx context.Context) error {
	lim := l.limit
	if lim.Rate <= 0 || lim.Period <= 0 || lim.Burst <= 0 {
		return fmt.Errorf("kitredis: limiter %q: bad limit %v: rate, period and burst must be positive", l.key, lim)
	}
	interval := lim.Period.Microseconds() / int64(lim.Rate)
	interval = max(interval, 1)
	tolerance := interval * int64(lim.Burst-1)
	for {
		reply, err := gcra.Run(ctx, l.rdb, []string{l.key}, interval, tolerance).Result()
		if err != nil {
			return fmt.Errorf("kitredis: limiter %q: %w", l.key, err)
		}
		vals, err := int64s(reply, 2)
		if err != nil {
			return fmt.Errorf("kitredis: limiter %q: %w", l.key, err)
		}
		if vals[0] == 1 {
			return nil
		}
		wait := time.Duration(max(vals[1], 1)) * time.Microsecond
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return fmt.Errorf("kitredis: limiter %q: the next slot is %v away, after the deadline: %w", l.key, wait, context.DeadlineExceeded)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("kitredis: limiter %q: waiting for a slot: %w", l.key, ctx.Err())
		}
	}
}

func (l *limiter) String() string { return fmt.Sprintf("kitredis.NewLimiter(%q, %v)", l.key, l.limit) }

// errReply is matched by the error of a reply of an unexpected type.
var errReply = errors.New("unexpected reply from Redis")
