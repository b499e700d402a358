package kittest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/kithttp/kit"
)

// InjectStatuses returns a kit.Interceptor that answers the first
// len(codes) requests that reach it itself, in order, without sending them:
// a code from 100 to 599 is answered with that status and a small JSON
// APIError body (code "fault", as a FaultServer's), and 0 passes that
// request on. Every later request passes on. A code outside those fails
// its request with an error saying so.
//
// Given to kit.WithAttemptInterceptors, it tests a client's retry policy
// without a failing server: an injected 503 is an *HTTPError for the layers
// above it, so kit.WithRetry retries it like a server's 503. Given to
// kit.WithInterceptors, it fails whole calls, retries included. The
// interceptor is safe for concurrent use; concurrent requests take the
// codes in the order they reach it, and every client it is given to shares
// them.
func InjectStatuses(codes ...int) kit.Interceptor {
	inj := &injector{codes: append([]int(nil), codes...)}
	return func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
			code, ok := inj.next()
			if !ok || code == 0 {
				return next(ctx, req)
			}
			if code < 100 || code > 599 {
				return nil, fmt.Errorf("kittest: InjectStatuses: %d is not an HTTP status (want 100..599, or 0 to pass the request on)", code)
			}
			body, _ := json.Marshal(APIError{Code: "fault", Message: "injected " + strconv.Itoa(code)})
			return kit.NewResponse(code, http.Header{"Content-Type": {"application/json"}}, body), nil
		}
	}
}

// Private implementation past this point.

// injector hands out the codes of InjectStatuses, one per request.
type injector struct {
	mu    sync.Mutex
	codes []int
}

// next returns the next code, or false once all have been used.
func (inj *injector) next() (int, bool) {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	if len(inj.codes) == 0 {
		return 0, false
	}
	c := inj.codes[0]
	inj.codes = inj.codes[1:]
	return c, true
}
