// Package kit declares typed HTTP API clients: declare an endpoint once,
// call it with typed arguments, get a validated typed result.
//
// This is a graded tour, from a first call to testing. Each step names the
// Examples that run it (go test checks their output); the guides in the
// repository's docs folder have each topic in full, and
// go run ./examples/tour runs every feature against a demo API.
//
// # 1. Declare an endpoint
//
// An endpoint is a package-level value: a method, a path template, a
// parameter struct P and a result type R. Fields of P are routed by name
// and type: a field named like a {placeholder} fills the path, a data
// model (a struct or a slice of them) is the JSON body, and anything else
// that is not nil is a query parameter named in snake_case. A `kit:"..."`
// tag renames a field or sends it elsewhere (",header", ",query", ",body").
// Data models are validated with go-playground/validator tags.
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
// [Get], [Post], [Put], [Patch] and [Delete] check the declaration at
// program start and panic with a [*DeclarationError] on a mistake;
// [NewEndpoint] returns the error instead. See ExampleGet, ExamplePost.
//
// # 2. Call it
//
// A [Client] holds a base URL, an engine (a tuned *http.Client), auth and
// options. It is safe for concurrent use: make one and share it.
//
//	c, err := kit.NewClient("https://api.example.com", kit.WithAuth(kit.Bearer(token)))
//	if err != nil { ... }
//	defer c.Close()
//	u, err := getUser.Call(ctx, c, struct{ ID int }{42}) // GET /users/42
//
// The result type chooses what comes back: R = [Result][T] adds the
// response's status and headers, R = io.ReadCloser streams a download.
// See ExampleResult, Example_download, ExampleMultipart.
//
// # 3. Handle errors
//
// A non-2xx status is an [*HTTPError], a body that does not decode a
// [*DecodeError], a value that fails validation a [*ValidationError]
// (nothing is sent); sentinels such as [ErrNotModified] match with
// errors.Is. An error model decodes error bodies into your own type, for
// every status ([WithErrorModel]) or some ([WithErrorModelFor]), and
// errors.As finds it. See ExampleHTTPError, ExampleWithErrorModelFor.
//
//	var he *kit.HTTPError
//	if errors.As(err, &he) && he.StatusCode == http.StatusNotFound { ... }
//
// # 4. Options
//
// One rule: a [RequestOption] ([WithHeader], [WithTimeout], [WithRetry],
// [WithQuery], ...) works on a client, a declaration and a call, and the
// nearest wins. An [Option] such as [WithAuth] or [WithCache] builds the
// client and goes to [NewClient] only; a trait such as [FormBody] or
// [NoAuth] says what a declaration is. See ExampleRequestOption.
//
//	u, err := getUser.Call(ctx, c, id, kit.WithTimeout(2*time.Second))
//
// # 5. Walk every page
//
// A [Resource] is a collection at a path: CRUD, and walks over every page
// as an iter.Seq2, fetched lazily. The paginator ([PageNumber] by
// default, [Cursor], [LinkHeader], ... or your own [Paginator]) finds the
// next page; [Paged] declares a collection whose path has placeholders.
//
//	users := kit.NewResource[User](c, "/users")
//	for u, err := range users.All(ctx) {
//		if err != nil { ... }
//		fmt.Println(u.Name)
//	}
//
// Pages gives each [Page] with its response. Walks end with [ErrPageLoop]
// rather than loop, and stay on their origin. See ExampleResource_All,
// ExamplePaged, ExampleCursor_stripe.
//
// # 6. Authenticate
//
// [WithAuth] takes a static credential ([Bearer], [Basic], [APIKey]) or
// [TokenAuth], which fetches a token on first use and renews it before it
// expires and after a 401, once for all concurrent callers. Credentials
// never leave the base URL's origin. See ExampleTokenAuth,
// ExampleRenewingTokenAuth.
//
// # 7. The send chain
//
// Every request goes through layers built once with the client: your
// [Interceptor] values, the timeout, the cache, retries, rate limits, auth
// and logging, then the engine. Each is off until an option turns it on:
// [WithRetry] retries idempotent calls (and writes with an idempotency
// key), [WithLimits] paces requests, [WithCache] keeps a private HTTP
// cache, [WithObserver] reports calls for metrics and tracing. See
// ExampleWithRetry, ExampleWithCache, ExampleWithObserver.
//
// # 8. Streams and async calls
//
// R = *[Stream][T] decodes server-sent events, NDJSON or a JSON array of
// any size one record at a time, as you range over it:
//
//	var chat = kit.Post[struct{ Body ChatRequest }, *kit.Stream[Chunk]]("/chat")
//
//	s, err := chat.Call(ctx, c, struct{ Body ChatRequest }{req})
//	if err != nil { ... }
//	defer s.Close()
//	for chunk, err := range s.All() { ... }
//
// An [AsyncClient] starts calls at once: [Endpoint.Go] returns a [Future],
// and async walks fetch pages ahead ([WithPrefetch]). See
// ExampleStream_All, ExampleEndpoint_Go, ExamplePagedEndpoint_GoIterate.
//
// # 9. Generated clients
//
// The kitgen command (github.com/kithttp/kit/cmd/kitgen) implements
// interfaces whose methods carry //kit: directives, and kitgen openapi
// writes those interfaces from an OpenAPI document. The methods it writes
// call an [Operation], the non-generic form of an endpoint, declared on
// first use through a [LazyOperation]. See ExampleOperation and
// ExampleLazyOperation_Of.
//
// # 10. Test with kittest
//
// Package kittest serves an in-memory API on loopback, in every
// pagination style, and wires a client to it:
//
//	func TestGetUser(t *testing.T) {
//		_, c := kittest.NewServer(t, nil) // kittest.NewAPI(), closed when the test ends
//		u, err := getUser.Call(t.Context(), c, struct{ ID int }{1})
//		// ...
//	}
//
// # Concurrency
//
// Clients, endpoints and resources are safe for concurrent use; [Auth],
// [Engine], [Paginator] and [Validator] implementations must be too. An
// iterator is ranged over by one goroutine at a time, and a [Stream] once.
// A panic in your code on one of kit's goroutines is returned as a
// [*PanicError].
package kit
