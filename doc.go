// Package kit declares typed HTTP API clients: declare an endpoint once,
// call it with typed arguments, get a validated typed result. This is a
// short tour, from a first call to testing; each step names the Examples
// that show it running (their output is checked by go test). The guides
// in the repository's docs folder cover each topic in full, and
// go run ./examples/tour walks through every feature against a demo API.
//
// # Declare an endpoint
//
// An endpoint is a package-level value: a method, a path template, a
// parameter struct P and a result type R. Fields of P are routed by name
// and type: a field named like a {placeholder} fills the path, a data model
// (a struct or a slice of them) is the JSON body, and anything else that is
// not nil is a query parameter named in snake_case. A `kit:"..."` tag
// renames a field or sends it elsewhere (",header", ",query", ",body",
// ",url"). Data models are validated with go-playground/validator tags.
//
//	type User struct {
//		ID    int    `json:"id,omitempty"`
//		Name  string `json:"name" validate:"required"`
//		Email string `json:"email" validate:"required,email"`
//	}
//
//	var getUser = kit.Get[struct{ ID int }, User]("/users/{id}")
//	var addUsers = kit.Post[struct {
//		ID      int     // {id}
//		Payload []User  // the JSON body
//		Team    *string // ?team=..., left out when nil
//	}, Team]("/teams/{id}/users")
//
// [Get], [Post], [Put], [Patch] and [Delete] check the declaration when it
// is made, at program start, and panic with a [*DeclarationError] on a
// mistake; [NewEndpoint] returns it instead. See ExampleGet, ExamplePost.
//
// # Call it
//
// A [Client] owns a base URL, an engine (a tuned *http.Client), auth and
// options. It is safe for concurrent use: make one and share it.
//
//	c, err := kit.NewClient("https://api.example.com", kit.WithAuth(kit.Bearer(token)))
//	if err != nil { ... }
//	defer c.Close()
//	u, err := getUser.Call(ctx, c, struct{ ID int }{42}) // GET /users/42
//
// R = [Result][T] adds the response's status and headers to the value;
// R = io.ReadCloser streams a download; [FormBody] and [Multipart] send
// forms and uploads; call options ([CallOption]) such as [WithHeader] and
// [WithTimeout] apply to one call. See ExampleResult, ExampleMultipart,
// Example_download, ExampleCallOption.
//
// # Options
//
// One rule: a [RequestOption] ([WithHeader], [WithTimeout], [WithRetry],
// [WithErrorModel], [WithIdempotencyHeader], ...) works on a client, on a
// declaration and on a call, and the nearest wins. Options that build the
// client ([WithAuth], [WithCache], [WithLimits], [WithSyncEngine], ...) are
// of type [Option], for [NewClient] and [NewAsyncClient] only; what a
// declaration is ([FormBody], [NoAuth], [PagedBy], ...) is a trait given
// once. See ExampleRequestOption.
//
// # Handle errors
//
// A non-2xx status is an [*HTTPError], a body that does not decode a
// [*DecodeError], a value that fails validation a [*ValidationError]
// (nothing is sent); match them with errors.As, and sentinels such as
// [ErrNotModified] and [ErrPageLoop] with errors.Is. [WithErrorModel]
// decodes error bodies into your own type. Error text says what was
// attempted and never holds a credential. See ExampleHTTPError,
// ExampleValidationError, ExampleWithErrorModel.
//
//	var he *kit.HTTPError
//	if errors.As(err, &he) && he.StatusCode == http.StatusNotFound { ... }
//
// # Walk every page
//
// A [Resource] is a collection at a path: CRUD, and All, Iterate and Pages
// walking every page lazily as an iter.Seq2, with [PageNumber] (the
// default), [Offset], [Cursor], [LinkHeader], [NextLink] or any
// [Paginator]. [Paged] declares a collection whose path has placeholders.
// Walks are guarded against loops ([ErrPageLoop]) and other origins
// ([ErrCrossOrigin]).
//
//	users := kit.NewResource[User](c, "/users")
//	for u, err := range users.All(ctx) {
//		if err != nil { ... }
//		fmt.Println(u.Name)
//	}
//
// See ExampleResource_All, ExamplePaged, ExampleCursor_stripe,
// ExamplePagedPost.
//
// # Authenticate
//
// [WithAuth] takes [Bearer], [Basic], [APIKey], [APIKeyQuery] or
// [TokenAuth], which fetches a token on first use, renews it before it
// expires and after a 401 (once, for every concurrent caller).
// [RenewingTokenAuth] rotates refresh tokens; [WithTokenStore] shares a
// token among clients. Credentials never leave the base URL's origin. See
// ExampleBearer, ExampleTokenAuth, ExampleRenewingTokenAuth.
//
// # Retries, limits and the send chain
//
// Every request goes through one chain of layers built with the client:
// call interceptors, the timeout, the cache, retries, rate limits, auth,
// logging, attempt interceptors and the transport. [WithRetry] (off by
// default) retries idempotent calls, and writes with a key from
// [WithIdempotencyHeader]; [WithLimits] paces requests ([Limits]);
// [WithInterceptors] and [WithAttemptInterceptors] add layers of your own
// ([Interceptor]); [WithObserver] reports calls, retries, renewals and
// pages for metrics and tracing. See ExampleWithRetry,
// ExampleRetryPolicy_retryIf, ExampleWithAttemptInterceptors,
// ExampleWithObserver.
//
// # Streams
//
// R = *[Stream][T] decodes server-sent events, NDJSON, JSON Lines,
// json-seq or one JSON array of any size one record at a time, as you
// range over it; an event stream resumes with Last-Event-ID.
//
//	var chat = kit.Post[struct{ Body ChatRequest }, *kit.Stream[Chunk]]("/chat")
//
//	s, err := chat.Call(ctx, c, struct{ Body ChatRequest }{req})
//	if err != nil { ... }
//	defer s.Close()
//	for chunk, err := range s.All() { ... }
//
// See ExampleStream_All, ExampleStream_resume, ExampleStream_ndjson.
//
// # Caching and server limits
//
// [WithCache] makes a client a private HTTP cache (RFC 9111) of its GETs,
// in memory with [NewMemoryCache]; [Limits].ServerMaxWait waits for the
// reset a server announces instead of sending into a certain refusal, or
// fails with a [*RateLimitError]. Module kitredis shares the cache, the
// limiter and the token among the processes of a fleet. See
// ExampleWithCache, ExampleWithLimits.
//
// # Async clients
//
// An [AsyncClient] starts calls at once: [Endpoint.Go] returns a [Future],
// and [AsyncResource] walks keep up to n pages in flight with
// [WithPrefetch]. See ExampleEndpoint_Go, ExamplePagedEndpoint_GoIterate,
// Example_parallelCalls.
//
// # Generated clients
//
// The kitgen command (github.com/kithttp/kit/cmd/kitgen) implements
// interfaces whose methods carry //kit: directives, such as
// GetUser(ctx context.Context, id int) (User, error) under
// //kit:get /users/{id}, and kitgen openapi writes those interfaces from an
// OpenAPI document. See Example_kitgen, Example_openapi.
//
// # Test with kittest
//
// Package kittest serves an in-memory REST API on loopback, in every
// pagination style and the shapes of real APIs, and wires a client to it;
// it also records requests without a network, scripts faults and logs an
// observer's events:
//
//	func TestGetUser(t *testing.T) {
//		_, c := kittest.NewServer(t, nil) // kittest.NewAPI(), closed when the test ends
//		u, err := getUser.Call(t.Context(), c, struct{ ID int }{1})
//		...
//	}
//
// # Concurrency
//
// Clients, endpoints and resources are safe for concurrent use; [Auth],
// [Engine], [Paginator] and [Validator] implementations must be too. An
// iterator is ranged over by one goroutine at a time, and a [Stream] once.
// A panic in your code on one of kit's goroutines is returned as a
// [*PanicError] (see ExamplePanicError).
package kit
