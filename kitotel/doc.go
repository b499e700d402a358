// Package kitotel traces and measures kit clients with OpenTelemetry, naming
// spans and series by declaration ("GET /users/{id}"), never by URL. It is
// a module of its own, on the OpenTelemetry API only
// (go.opentelemetry.io/otel), so that programs using kit without
// OpenTelemetry do not depend on it; the SDK is the program's choice.
//
// One option instruments a client, sync or async:
//
//	c, err := kit.NewClient(baseURL, kitotel.Instrument())
//
// Instrument uses the global TracerProvider, MeterProvider and propagator
// unless WithTracerProvider, WithMeterProvider or WithPropagators say
// otherwise. It is built on kit's observer API (kit.Observer), which sees
// what interceptors cannot: a call's declaration, its retries and why, a
// token renewal, a cache hit, a walk and its pages, a stream's end.
//
// # Spans
//
// Each call (an endpoint call, a resource operation, one page of a walk)
// is one span of kind client, named by its declaration, a child of the
// span in the caller's context, with the attributes of the OpenTelemetry
// HTTP client conventions:
//
//   - http.request.method ("_OTHER" and http.request.method_original for
//     a method outside the conventions' list)
//   - url.template: the declaration's path, "/users/{id}"
//   - url.full: the URL with user info, secret-looking query values (and
//     those the client's Auth adds) and secret-looking path parameters
//     ({token}, {api_key}, ..., every segment of a {token...}) redacted,
//     as in kit's logs and errors; see kit.CallInfo.URL
//   - server.address, server.port
//   - http.response.status_code, when a response came
//   - error.type: the status ("503") of an error status, else a class of
//     error (timeout, canceled, connection_error, name_resolution_error,
//     body_too_large, closed, decode_error and validation_error for a 2xx
//     body that does not fit the result, _OTHER); the span's status is
//     then Error, described by error.type alone
//   - http.request.resend_count: the number of retries, when there were any
//
// Headers, credentials and error texts are never recorded. The span covers
// the whole call: its attempts and the waits between them, a token
// renewal, and, for a streamed result (an io.ReadCloser or a kit.Stream),
// the reading of the body: it ends at Close, after the last record, or
// when the context ends, with kit.stream.records for a Stream.
//
// Events on the call's span make the rest visible: "retry" (kit.retry.attempt,
// the attempt that failed; error.type, why; kit.retry.wait, seconds) for
// each retry, "token renewal" (kit.token.after_401, kit.token.duration,
// error.type when it failed) when the call renewed the client's
// credentials, "cache hit" (kit.cache.revalidated) when the client's
// cache answered, and "failover" (kit.failover.from, kit.failover.to, the
// base URLs; error.type, why) when an attempt moved to the next base URL
// of kit.WithFailover.
//
// A page walk (Iterate, Pages, All and their async forms) is one span of
// kind internal named "walk GET /users", with an event "page"
// (kit.page.number, kit.page.records) per page and kit.walk.pages at its
// end; each page's call span is its child.
//
// A trace of a call that fetched the first token, a call retried after a
// 503, a call whose token was renewed after a 401, and a walk of three
// pages, under the caller's span, as examples/otel prints it (the login
// calls are children of the calls whose token they fetched):
//
//	demo run
//	  GET /me  200
//	    POST /login  200
//	    event token renewal  after_401=false
//	  GET /users/{id}  200  resend_count=1
//	    event retry  error.type=503  attempt=1
//	  GET /me  200
//	    POST /login  200
//	    event token renewal  after_401=true
//	  walk GET /users  pages=3
//	    GET /users  200
//	    event page  page=1  records=2
//	    GET /users  200
//	    event page  page=2  records=2
//	    GET /users  200
//	    event page  page=3  records=1
//
// # Propagation
//
// The propagator injects the call span's context (W3C traceparent with
// propagation.TraceContext) into the request's headers before its first
// attempt, so every attempt, the resend after a 401 and each page carry it.
//
// # Metrics
//
//   - http.client.request.duration (histogram, s): per call, from its
//     start to its response (to the body's close for a streamed result),
//     attempts, waits and renewals included; attributes
//     http.request.method, url.template, server.address, server.port,
//     http.response.status_code and error.type
//   - kit.client.retries: each retry; http.request.method, url.template
//   - kit.client.pages: each page a walk fetched; http.request.method,
//     url.template
//   - kit.client.cache.hits: each call the cache answered;
//     http.request.method, url.template
//   - kit.client.token.renewals: each renewal of credentials (the first
//     token, an expiring one's, the refresh after a 401);
//     kit.token.after_401
//
// Every attribute comes from a declaration, a status or a class of error,
// so the series are few by construction: one id per user does not make
// one series per user.
//
// # Logs
//
// A client with kit.WithLogger logs records that carry trace_id and
// span_id, the IDs of the call's span, whenever that span is valid.
//
// # Cost
//
// With no-op providers, a call costs one allocation more than without
// kitotel (the context that holds the non-recording span). With the SDK,
// a synchronous span processor and a manual metric reader, about 19
// allocations and 2.5 KB per call, and 27 allocations and 3.6 KB per page
// of a walk (BenchmarkCall, BenchmarkWalk; the README has the figures).
//
// # Not covered
//
// A renewal by a custom Auth that is not a kit.TokenSourceAuth is seen
// only as the refresh after a 401. With a kit.TokenStore shared by a
// fleet, a fetch this process starts counts as a renewal even when the
// store hands back a token another process renewed.
package kitotel
