package kit

import "time"

// SetBreakerClock makes the circuit breaker of c read the time from now: a
// fake clock for tests, which never sleep through a cool-down.
func SetBreakerClock(c *Client, now func() time.Time) { c.st.breaker.set.now = now }

// SetAsyncBreakerClock is SetBreakerClock for an AsyncClient.
func SetAsyncBreakerClock(c *AsyncClient, now func() time.Time) { c.st.breaker.set.now = now }
