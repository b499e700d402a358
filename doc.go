// Package kit declares typed HTTP API clients: declare an endpoint once,
// call it with typed arguments, get a validated typed result. Resources
// give CRUD and lazy iteration over every page of a collection; streams
// give the records of server-sent events, NDJSON and huge JSON arrays as
// they arrive; auth strategies refresh tokens on a 401; async clients fan
// requests out concurrently.
//
// # Clients
//
// A [Client] owns a base URL, an engine (a tuned *http.Client by default),
// optional auth, headers and a validator. It is safe for concurrent use;
// make one and share it. Embed it in your API type:
//
//	type API struct{ *kit.Client }
//
//	c, err := kit.NewClient("https://api.example.com/v1", kit.WithHeader("X-App", "demo"))
//
// # Endpoints
//
// An endpoint is a package-level value: method, path template, a parameter
// struct P and a result type R. Fields of P are routed by name and type:
// a field named like a {placeholder} fills the path (escaped as one
// segment; a {name...} placeholder keeps the value's slashes, each segment
// escaped on its own, for file paths and branch names), a data model (struct, *struct or a slice of them) is the JSON
// body, a map gives one query parameter per entry, a `kit:"Name,header"`
// field is a header, and anything else that is not nil is a query
// parameter. Names come from a `kit:"name"` tag, else the field name in
// snake_case.
//
//	type TeamUsers struct {
//		ID      int     // {id}
//		Payload []User  // JSON body
//		Team    *string // ?team=..., dropped when nil
//	}
//	var addUsers = kit.Post[TeamUsers, Team]("/teams/{id}/users")
//
//	team, err := addUsers.Call(ctx, c, TeamUsers{ID: 7, Payload: users})
//
// The kit struct tag names a field and says where it goes:
//
//	kit:"name"             the field's name in the path, query or header
//	kit:"name,omitempty"   leave the field out when it is the zero value
//	kit:",omitempty"       the same, keeping the snake_case name
//	kit:"X-Trace,header"   send the field as the request header X-Trace
//	kit:",query"           spread a struct field's fields into the query (any method)
//	kit:"name,query"       a map or struct sent in brackets: name[key]=v, name[a][b]=v (OpenAPI's deepObject)
//	kit:",body"            the JSON request body, whatever the type: a map, a slice, a string (a kit.File: the raw body)
//	kit:",url"             a string or *url.URL that replaces the whole URL of the call ("" or nil: the declared one)
//	kit:"-"                never send the field
//
// A nil pointer, slice, map or interface is dropped; other zero values are
// sent unless the tag says omitempty.
//
// Declarations are checked when they are made: [Get], [Post], [Put], [Delete] and
// [Patch] panic with a [*DeclarationError] on a mistake (like
// regexp.MustCompile); [NewEndpoint] returns it. Nothing is misrouted
// silently: a body field on a GET or HEAD is an error whose reason says to
// embed the struct or tag it `kit:",query"`; a []byte never goes into the
// URL; a field with no text form that is not a body (a channel, a func, an
// io.Reader) is an error.
//
// # URLs and headers per endpoint
//
// An endpoint path may be an absolute http or https URL (an upload host,
// another API version), and a `kit:",url"` field replaces the whole URL of
// a call, resolved against the base URL taken as a directory ("jobs/7" is
// below the base path, "/jobs/7" at the host's root; a Location to
// follow), with the call's query parameters added. Credentials
// (the client's [Auth], and its Authorization and Cookie headers) are sent
// only when the final URL is on the base URL's origin: checked where the
// request finally goes, after interceptors and on every redirect. A
// `kit:",url"` value on another origin than the endpoint's (a Location a
// server sent) gets no credential header at all, not even the endpoint's
// [WithHeader] or the call's header parameter. [WithHeader] is also an
// [EndpointOption]: a constant header of one endpoint, replacing the client's
// for that key.
//
//	var rawFile = kit.Get[FileRef, io.ReadCloser]("/repos/{repo}/contents/{path}",
//		kit.WithHeader("Accept", "application/vnd.github.raw"))
//	var next = kit.Get[struct{ URL string `kit:",url"` }, Job]("/jobs")
//
// # Models and validation
//
// Data models are structs with json tags. Request bodies are validated
// before they are sent and results after they are decoded, with
// go-playground/validator `validate` tags and a Validate() error method
// where the type has one. R may be [*Response] for the raw response or any
// for raw JSON.
//
// # Results with their response
//
// R = Result[T] decodes and validates Value as R = T would, and embeds the
// *Response: status, headers (ETag, rate limits, Location) and Request.
//
//	var getRepo = kit.Get[RepoRef, kit.Result[Repo]]("/repos/{owner}/{name}")
//	r, err := getRepo.Call(ctx, c, ref)
//	fmt.Println(r.Value.Stars, r.Header.Get("X-RateLimit-Remaining"))
//
// A 304 Not Modified is an [*HTTPError] matching [ErrNotModified].
//
// # Forms, uploads and files
//
// FormBody() sends the body model as application/x-www-form-urlencoded and
// Multipart() as multipart/form-data, fields named by their json tags. In a
// multipart model a [File] (or []File) field is a file part, streamed from
// File.Open; a File field of P is the raw request body. Open is called again
// for each attempt, so retries and the resend after a 401 replay the body.
//
//	var token = kit.Post[struct{ Form TokenRequest }, Token]("/oauth/token", kit.FormBody(), kit.NoAuth())
//	var upload = kit.Post[struct{ Form struct {
//		Title string   `json:"title"`
//		Doc   kit.File `json:"doc"`
//	} }, Upload]("/uploads", kit.Multipart())
//
//	doc, err := kit.OpenFile("report.pdf") // or kit.FileFromBytes(name, b)
//
// # Downloads
//
// R = io.ReadCloser hands the 2xx body over unread, whatever its size (the
// body limit does not apply); Result[io.ReadCloser] adds the headers. The
// caller reads and closes it; closing releases the connection, and on an
// [AsyncClient] its in-flight slot. The call's context must stay alive while
// the body is read.
//
//	body, err := download.Call(ctx, c, ref)
//	defer body.Close()
//	_, err = io.Copy(f, body)
//
// # Streams of typed records
//
// R = *Stream[T] decodes a response of any length one record at a time, as
// the caller ranges over it, framed by its content type: server-sent events
// (text/event-stream, by the WHATWG rules; data: [DONE] ends the stream),
// NDJSON and JSON Lines, application/json-seq, or one JSON array. Each
// record is decoded and validated as R = T would be; memory holds one
// record, and [WithMaxBodySize] bounds each record, not the stream.
//
//	var chat = kit.Post[struct{ Body ChatRequest }, *kit.Stream[Chunk]]("/chat")
//
//	s, err := chat.Call(ctx, c, struct{ Body ChatRequest }{req}) // returns once the headers are in
//	if err != nil { ... }
//	defer s.Close()
//	for chunk, err := range s.All() { // Events adds each event's id, type and retry
//		if err != nil { ... } // one *DecodeError, *ValidationError, ...; the loop ends
//		fmt.Print(chunk.Text)
//	}
//
// Breaking out of the loop, its end, or Close releases the connection; the
// call's context bounds the stream. An event stream whose connection drops
// after events with an id is resumed with Last-Event-ID when the endpoint
// may be retried ([WithRetry], an idempotent method), each event once.
//
// # Resources
//
// A [Resource] is a collection at a path, bound to a client:
//
//	users := kit.NewResource[User](c, "/users")
//	u, err := users.Get(ctx, 42)
//	for u, err := range users.All(ctx) { ... } // every page, lazily
//
// # Pagination
//
// [PageNumber] (the default), [Offset], [Cursor], [LinkHeader] and [NextLink]
// cover most APIs (see the next section for Stripe's, OpenAI's and
// Notion's); any type with FirstPage and NextPage methods is a [Paginator]. Records are
// found in a top-level array, or under "data", "items" or "results", or at
// a dotted ItemsKey. Pages are fetched only as records are consumed.
//
// A collection whose path has placeholders is a paged endpoint: declared
// once like an endpoint, its parameters routed the same way, and walked
// like a resource (same paginators, guards and errors). Its query and
// header parameters are sent on every page:
//
//	var repos = kit.Paged[struct{ Owner string }, Repo]("/users/{owner}/repos",
//		kit.WithPaginator(kit.LinkHeader{}))
//
//	for r, err := range repos.Iterate(ctx, c, struct{ Owner string }{"ada"}) { ... }
//
// Iterate and Pages walk through a [Client]; GoIterate and GoPages through an
// [AsyncClient]. [WithPaginator], [WithMaxPages] and [WithPrefetch] are options of
// both resources and paged endpoints.
//
// Async walks ([AsyncResource], GoIterate, GoPages) can be pipelined. With
// WithPrefetch(n) and a paginator that can name pages ahead without seeing
// the page before (PageNumber, Offset, or any [Lookahead]), up to n page
// requests are in flight at once, so a walk over a slow link is up to n
// times faster; with Cursor and LinkHeader, whose next request is in the
// page before, the next page is fetched while the loop works on the
// current one. Records still come in order, each once, and an error comes
// after every record before the page that failed. In-flight pages count
// against [WithMaxInFlight] and wait for [WithRateLimit]. Sync walks are always
// strictly lazy.
//
// A pipelined walk sends requests past the end of the collection: it learns
// where the collection ends from the first short page, and by then up to
// n-1 requests for the pages after it may have been sent. They are
// cancelled, or their responses discarded; the loop never sees them, but
// the server does, and each took a WithRateLimit token. With a tight rate
// limit, choose a small n: WithPrefetch(1) never requests a page past the
// end, nor does a walk with Cursor or LinkHeader.
//
// # Pagination, forms and fields in the shapes real APIs use
//
// Cursor reads the next cursor at NextKey, or, with RecordKey, from the
// page's last record (Stripe's starting_after); HasMoreKey stops the walk
// when the page says there is no more, so no request goes past the end.
// InBody sends the cursor as a top-level field of the JSON body of a
// PagedPost walk, whose body model goes with every page. NextLink follows
// a next-page URL found in the body. All are read in the walk's one pass
// over each page, and the guards hold for each: the cycle guard (a POST
// walk compares URLs and bodies), WithMaxPages, the origin guard
// (ErrCrossOrigin), and pipelining.
//
//	kit.Cursor{CursorParam: "starting_after", RecordKey: "id", HasMoreKey: "has_more"} // Stripe
//	kit.Cursor{CursorParam: "after", NextKey: "last_id", HasMoreKey: "has_more"}       // OpenAI
//	kit.NextLink{Key: "links.next"}                                                   // DigitalOcean, Twilio, Graph
//
//	var query = kit.PagedPost[QueryParams, Row]("/databases/{id}/query",                // Notion
//		kit.WithPaginator(kit.Cursor{CursorParam: "start_cursor", NextKey: "next_cursor",
//			HasMoreKey: "has_more", InBody: true}))
//
// FormBody writes nested values in the bracket convention of Rails, PHP
// and Stripe, to any depth (k[key]=v, k[0][key]=v), and slices of scalars
// in a FormStyle: FormRepeat (tags=a&tags=b, the default), FormBrackets
// (tags[]=a) or FormIndexed (tags[0]=a, Stripe's):
//
//	var charge = kit.Post[struct{ Body ChargeParams }, Charge]("/v1/charges", kit.FormBody(kit.FormIndexed))
//	// metadata[order_id]=6735&expand[0]=customer&items[0][price]=price_1
//
// In a query, a map-valued entry of a spread map is sent as k[key]=v
// (OpenAPI's deepObject: created[gte]=...), and so is a map or struct
// field tagged with a name and query: `kit:"created,query"` on a struct
// {GTE int `json:"gte"`} sends created[gte]=5 (JSON names, nested as a
// form is, slices repeating their key; nil sends nothing). The json tag's
// omitempty and omitzero apply to query, header and form fields as to
// JSON bodies.
//
// A field tagged `kit:",body"` is the JSON body whatever its type: a
// map[string]any of free-form JSON, a map of models (validated entry by
// entry), a []string, a string. With FormBody, a map so tagged is the
// whole form, its entries the form's fields. Untagged, a map is sent in
// the query.
//
// Nullable[T] is a field with three states: absent (left out by omitzero),
// null, or a value. A PATCH sends "nickname": null, "active": false and
// "limit": 0 and leaves the rest alone; a result tells a missing key from
// null. In forms and queries null is an empty value.
//
//	type Changes struct {
//		Nickname kit.Nullable[string] `json:"nickname,omitzero"`
//		Active   kit.Nullable[bool]   `json:"active,omitzero"`
//	}
//	changes := Changes{Nickname: kit.Null[string](), Active: kit.Value(false)}
//
// # Auth
//
// [WithAuth] installs an [Auth] strategy shared by everything bound to the
// client: [Bearer], [Basic], [APIKey], [APIKeyQuery], or [TokenAuth], which fetches a
// token on first use, again shortly before it expires, and on a 401. One
// fetch serves every concurrent caller. The fetch function may call a login
// endpoint of the same client, declared with [NoAuth]:
//
//	var login = kit.Post[Credentials, TokenResponse]("/login", kit.NoAuth())
//	var c *kit.Client
//	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
//		r, err := login.Call(ctx, c, creds)
//		return kit.Token{Value: r.AccessToken, Expiry: r.Expiry()}, err
//	})
//	c, err := kit.NewClient(base, kit.WithAuth(auth))
//
// A 401 on a call that uses auth refreshes a [Refresher] once and sends the
// request again, once. Endpoints declared with NoAuth never carry
// credentials, and credentials never leave the base URL's origin: not on a
// redirect, not on a next-page link, not when an interceptor moves a
// request. A walk stays on the origin it started on: a paged endpoint on
// another origin cannot lead the client back to the base API. Package kitoauth2 (its own module)
// adapts a golang.org/x/oauth2 TokenSource.
//
// # Retries, rate limits, timeouts and logging
//
// Retrying is off until [WithRetry] turns it on, for a client, an endpoint
// or a call: idempotent methods (and endpoints declared [Idempotent], and
// writes with an idempotency key) are retried on connection errors and on
// 429, 502, 503 and 504, with jittered exponential backoff and Retry-After
// honoured. [WithRateLimit] shares a token bucket among everything bound to
// the client; [WithTimeout] bounds every call of an endpoint; [WithLogger]
// logs one record per attempt, credentials left out.
//
//	c, err := kit.NewClient(base, kit.WithRetry(kit.RetryPolicy{}), kit.WithRateLimit(10, 5))
//	var report = kit.Get[kit.NoParams, Report]("/report", kit.WithTimeout(5*time.Second))
//
// # Caching, server rate limits and fleets
//
// WithCache makes a client a private HTTP cache (RFC 9111) for its GETs: a
// fresh response is served without a request (Response.FromCache reports
// it), a stale one is revalidated with its ETag or Last-Modified and a 304
// serves the stored body, no-store, no-cache and Vary are honoured, and a
// write to a URL drops what is stored for it. Keys hold a hash of the
// credentials (the Auth's, the request's, the cookie jar's), so clients of
// different users can share a store; a response sent with credentials an
// attempt interceptor added is never stored (see WithCache). A hit takes
// no rate-limit token and is never retried; a broken store is logged and
// skipped, never an error.
//
//	c, err := kit.NewClient(base, kit.WithCache(kit.NewMemoryCache(64<<20)))
//
// WithServerRateLimit reads the limits a server announces (RateLimit and
// RateLimit-Policy, X-RateLimit-*): when none is left, later requests wait
// for the reset, up to a bound, or fail at once with a *RateLimitError.
// WithLimiter takes any Limiter, a *rate.Limiter or one shared by a fleet.
//
// RenewingTokenAuth is TokenAuth whose function gets the current token, so
// that a refresh-token grant can rotate Token.Refresh; with WithTokenStore
// every client sharing the store uses one token and renews it once.
// NewMemoryTokenStore shares it within a process; module kitredis shares
// the limiter, the token and the cache across a fleet of processes on
// Redis.
//
//	auth := kit.RenewingTokenAuth(func(ctx context.Context, cur kit.Token) (kit.Token, error) {
//		return refreshGrant(ctx, cur.Refresh) // returns the rotated refresh token too
//	}, kit.WithTokenStore(store))
//
// # Real APIs: options for one call, safe retries, envelopes
//
// Every operation takes trailing [CallOption]s: [Endpoint.Call] and
// [Endpoint.Go], the methods of [Resource] and [AsyncResource], the walks of
// a [PagedEndpoint]. [WithHeader], [WithTimeout], [WithRetry], [NoRetry] and
// [IdempotencyKey] are call options; a call's option wins over the
// endpoint's, which wins over the client's, and applies to every attempt,
// page and stream reconnection.
//
//	u, err := getUser.Call(ctx, c, p, kit.WithHeader("X-Trace-Id", id), kit.WithTimeout(2*time.Second))
//
// [WithIdempotencyKey] gives every write call a random key, the same on each
// of its attempts, and makes such writes retried like idempotent ones, as
// Stripe's API expects; [IdempotencyKey] sends the caller's own.
// [RetryPolicy].RetryIf decides from each failed attempt's error (a server's
// Stripe-Should-Retry header, a code in the body), [Retryable] being the
// default rule; the method rule comes first, and a 429 is retried whatever
// the method.
//
// [WithResultAt] decodes R from a key of an envelope; [WithBodyCheck] turns
// an error that an API answers at 200 (Slack's {"ok":false,...}) into an
// [*HTTPError] wrapping the check's error; [WithErrorModelAt] decodes an
// error model from a key, and any error model gets its fields tagged
// `kit:",status"` and `kit:"Request-Id,header"` from the response:
//
//	var info = kit.Post[InfoParams, Channel]("/conversations.info",
//		kit.WithResultAt("channel"), kit.WithBodyCheck((*SlackStatus).Check))
//	c, err := kit.NewClient(base, kit.WithErrorModelAt[StripeError]("error"), kit.WithIdempotencyKey(""))
//
// A [Result] returned with an error has the response's status and headers
// (or none): reading them never panics.
//
// # The send chain and interceptors
//
// Every request goes through one chain of layers, built once with the
// client, from the outside in: call interceptors, the endpoint's timeout,
// the cache, retries, the rate limit and the server's, auth (credentials, and one refresh-and-resend on
// a 401), logging, attempt interceptors, the async in-flight limit, and the
// transport (the engine, the body read within the limit, non-2xx statuses
// as [*HTTPError]). An [Interceptor] wraps the rest of the chain below it, like
// an [http.RoundTripper] that sees kit's [Request]: the method, URL, headers,
// a replayable body and the endpoint it comes from.
//
// [WithInterceptors] adds interceptors that see each call once, however many
// attempts it takes (caching, metrics, tracing); [WithAttemptInterceptors]
// adds ones that run on every attempt after credentials are added (request
// signing). An interceptor can answer without sending, with [NewResponse]:
//
//	stamp := func(next kit.Sender) kit.Sender {
//		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) {
//			req.Header.Set("X-Request-Id", newID())
//			return next(ctx, req)
//		}
//	}
//	c, err := kit.NewClient(base, kit.WithInterceptors(stamp))
//
// Every interceptor is held to the [Sender] contract where its answer
// leaves it: a non-2xx response becomes an [*HTTPError] for the layers
// above, so an attempt interceptor's NewResponse(503, ...) is retried under
// [WithRetry] like the server's own 503; a response returned with an error
// is dropped (the error wins); and neither is an error naming the
// interceptor, never a panic.
//
// # Observing calls: metrics and tracing
//
// An Observer, installed with WithObserver, receives what interceptors
// cannot see: each call's beginning and end named by its declaration
// (CallInfo.Endpoint "GET /users/{id}", Template "/users/{id}"), each retry
// and why, a token renewal, a cache hit, a walk's beginning, pages and end,
// a stream's end. Every field is an optional func, and a client without an
// observer pays nothing. Keying metrics by Endpoint gives one series per
// declaration, not one per user id:
//
//	var retries sync.Map // endpoint -> *atomic.Int64
//	obs := kit.Observer{Retry: func(ctx context.Context, r kit.RetryInfo) {
//		n, _ := retries.LoadOrStore(r.Request.Endpoint, new(atomic.Int64))
//		n.(*atomic.Int64).Add(1)
//	}}
//	c, err := kit.NewClient(base, kit.WithObserver(obs))
//
// CallStart and WalkStart may return a context for the call or walk (a
// span's); CallStart may set headers that every attempt sends (trace
// context); LogAttrs adds fields to WithLogger's records. The module
// github.com/kithttp/kit/kitotel builds OpenTelemetry tracing and metrics
// on it with one option, kitotel.Instrument(); kittest.EventLog records
// the events as text for tests.
//
// # Async
//
// An [AsyncClient] sends through an [AsyncEngine]: [Endpoint.Go] starts a call at
// once and returns a [Future]; [AsyncResource] returns futures for CRUD and can
// fetch pages ahead of the caller (see Pagination). Close waits for calls
// in flight and cancels the page requests of walks.
//
//	ac, err := kit.NewAsyncClient(base, kit.WithMaxInFlight(16))
//	defer ac.Close(ctx)
//	f1 := getUser.Go(ctx, ac, UserID{1})
//	f2 := getUser.Go(ctx, ac, UserID{2}) // both in flight
//	u1, err := f1.Await(ctx)
//
//	users := kit.NewAsyncResource[User](ac, "/users", kit.WithPrefetch(8)) // 8 pages in flight
//	for u, err := range users.All(ctx) { ... }
//
// # Errors
//
// Non-2xx statuses are [*HTTPError], undecodable bodies [*DecodeError], failed
// validation [*ValidationError], bad declarations [*DeclarationError]; match
// them with errors.As. Calling Call through an [AsyncClient], or Go through a
// [Client], is an [*EngineError] naming the protocol the engine lacks.
// WithErrorModel[E]() (for a client or an endpoint) decodes error bodies
// into HTTPError.Model, and when *E implements error, errors.As finds it:
//
//	c, err := kit.NewClient(base, kit.WithErrorModel[APIError]())
//	var apiErr *APIError
//	if errors.As(err, &apiErr) { ... apiErr.Code ... }
//
// These sentinels match with errors.Is:
//
//	ErrNoPath            a resource without a path was asked to do CRUD or iterate
//	ErrEngineProtocol    the engine lacks the protocol of the call (see EngineError)
//	ErrClosed            the AsyncClient was closed
//	ErrNotModel          a value that is not a data model was given as a body
//	ErrBodyTooLarge      a response body passed the limit (WithMaxBodySize)
//	ErrTooManyRedirects  the default engine followed 10 redirects
//	ErrNilBinding        a call was made through a nil client or resource
//	ErrPageLoop          a walk asked for a page it had already requested
//	ErrCrossOrigin       a next-page link pointed to another origin than the walk's
//	ErrNotModified       a 304 Not Modified answered a conditional request
//
// A panic in user code that kit runs on a goroutine of its own (an async
// call's validator, interceptor, auth or decoder; a walk's paginator; a
// token fetch) is returned as a [*PanicError], whose %+v prints the stack.
//
// Error text reads "kit: <what was attempted>: <what went wrong>", says the
// method and URL, and never contains credentials: secret-looking query
// values are redacted.
//
//	var he *kit.HTTPError
//	if errors.As(err, &he) && he.StatusCode == http.StatusNotFound { ... }
//
// # Generated clients
//
// The kitgen command (github.com/kithttp/kit/cmd/kitgen, a module of its
// own, run with go tool kitgen from a //go:generate line) implements
// endpoint interfaces declared with //kit: directives, routing each method's
// own parameters by name and type, and reports declaration mistakes at go
// generate, with their positions:
//
//	//kit:client
//	type Client struct {
//		*kit.Client
//		API
//	}
//
//	type API interface {
//		//kit:get /users/{username}
//		GetUser(ctx context.Context, username string) (User, error)
//	}
//
// gives [NewClient], BindClient and an implementation of API over kit.Get.
// The result picks the call: (R, error), error, *Future[R] or a paginated
// iter.Seq2[T, error]. See examples/kitgen/github and the README.
//
// # Concurrency
//
// Clients, endpoints and resources are safe for concurrent use. [Auth],
// [Engine], [Paginator] and [Validator] implementations must be too. One
// iterator value must not be ranged over from two goroutines at once. A
// [Stream] is ranged over once; its Close and Response may be called from any
// goroutine.
//
// Share one client among the goroutines of a fan-out: its default engine
// opens up to 1,024 connections per host and keeps as many idle, so that
// each burst of concurrent calls reuses the connections of the one before
// instead of dialling again. Auth, retries and a rate limit cost each call
// little and take no lock: a static credential (Bearer, Basic, APIKey) is
// one header worked out once, a retry policy is prepared once, and
// WithRateLimit's bucket is one atomic word, so concurrent callers that
// find tokens do not wait on each other. kittest.NewCountingServer counts
// the connections a server accepts, to check a client's reuse.
//
// # Testing
//
// Package kittest serves an in-memory REST API (users, teams, posts, every
// pagination style, nested collections for paged endpoints, login and
// expiring tokens, optional latency, an OAuth2 token endpoint, uploads,
// generated downloads, a 202 with a Location, ETags, an error model,
// kittest.APIError, and streams: server-sent events with ids and scripted
// drops, a token-by-token chat reply, NDJSON and generated JSON arrays of
// any size) on loopback, wires a client to it, counts the connections a
// server accepts (NewCountingServer), and records requests without a
// network. Its EventLog records an Observer's events as lines of text.
package kit
