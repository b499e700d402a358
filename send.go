package kit

import (
	"context"
	"net/http"
)

// Private implementation past this point.
//
// send.go assembles the send chain that every request takes, sync or async:
// endpoint calls, resource operations and every page of a walk. It is built
// once, when the client is made, from these layers, outside in:
//
//	call interceptors   WithInterceptors                 interceptor.go
//	timeout             WithTimeout                      timeout.go
//	retry               WithRetry                        retry.go
//	rate limit          WithRateLimit                    ratelimit.go
//	auth                WithAuth, refresh on a 401       auth.go
//	logging             WithLogger                       logging.go
//	attempt interceptors WithAttemptInterceptors         interceptor.go
//	in-flight limit     WithMaxInFlight (async only)     inflight.go
//	transport           the engine, body, *HTTPError     transport.go
//
// A layer that a client does not use (no logger, no rate limit, no auth) is
// left out of its chain. Each layer reads the call's endpoint settings from
// Request.policy; nothing is copied between layers.

// buildChains makes the client's sync chain (when its engine implements
// Engine) and async chain (when it implements AsyncEngine).
func (st *clientState) buildChains() error {
	if st.syncEng != nil {
		c, err := st.chain(st.syncTransport)
		if err != nil {
			return err
		}
		st.syncChain = c
	}
	if st.asyncEng != nil {
		st.slots = newSemaphore(st.maxFlight)
		c, err := st.chain(st.inflightLayer(st.asyncTransport))
		if err != nil {
			return err
		}
		st.asyncChain = c
	}
	return nil
}

// chain stacks the layers on top of transport.
func (st *clientState) chain(transport Sender) (Sender, error) {
	s, err := wrapChecked(transport, st.attemptInterceptors, "WithAttemptInterceptors")
	if err != nil {
		return nil, err
	}
	if st.logger != nil {
		s = st.loggingLayer(s)
	}
	if st.auth != nil {
		s = st.authLayer(s)
	}
	if st.limiter != nil {
		s = st.rateLimitLayer(s)
	}
	s = st.retryLayer(s)
	s = timeoutLayer(s)
	return wrapChecked(s, st.callInterceptors, "WithInterceptors")
}

// send runs req through chain (the client's sync or async chain) and checks
// what comes back: an interceptor's answer gets a Request when it has none,
// and a non-2xx one becomes an *HTTPError, as the transport's would.
func (st *clientState) send(ctx context.Context, chain Sender, req *Request) (*Response, error) {
	if ctx == nil {
		return nil, errorf(st.opOf(req.Method, req.URL), "nil Context")
	}
	resp, err := chain(ctx, req)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errorf(st.opOf(req.Method, req.URL), "an interceptor returned neither a response nor an error")
	}
	if resp.Request == nil {
		// Made with NewResponse. Copied, as an interceptor may hand the
		// same Response to several calls.
		c := *resp
		c.Request = &http.Request{Method: req.Method, URL: req.URL, Header: req.Header}
		if req.URL != nil {
			c.Request.Host = req.URL.Host
		}
		c.secrets = &st.secrets
		resp = &c
	}
	if !is2xx(resp.StatusCode) {
		return nil, st.httpError(req.policy, resp.Request, resp.Request, resp.StatusCode, resp.Header, resp.body)
	}
	return resp, nil
}

// wrapChecked applies interceptors to next, the first one outermost, and
// reports an interceptor that returns a nil Sender.
func wrapChecked(next Sender, list []Interceptor, option string) (Sender, error) {
	for i := len(list) - 1; i >= 0; i-- {
		next = list[i](next)
		if next == nil {
			return nil, errorf("NewClient", "%s: interceptor %d returned a nil Sender", option, i)
		}
	}
	return next, nil
}

func is2xx(code int) bool { return code >= 200 && code <= 299 }
