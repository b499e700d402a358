package kit_test

// This file is written against kit v0.3.0's option API, names and types as
// v0.3.0 code used them, deprecated ones included. It only has to compile
// (and pass go vet): it keeps v0.4.0 from breaking code written for
// v0.3.0. It is never run.

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// compatV030 is never called.
func compatV030(ctx context.Context, t *testing.T) {
	// Every option constructor of v0.3.0, its result kept in the type
	// v0.3.0 returned.
	var (
		engine     kit.Option                   = kit.WithEngine(http.DefaultClient)
		httpClient kit.Option                   = kit.WithHTTPClient(http.DefaultClient)
		auth       kit.Option                   = kit.WithAuth(kit.Bearer("t"))
		header     kit.ClientEndpointCallOption = kit.WithHeader("X-A", "b")
		validator  kit.Option                   = kit.WithValidator(nil)
		maxBody    kit.ClientEndpointOption     = kit.WithMaxBodySize(1 << 20)
		noAuth     kit.EndpointOption           = kit.NoAuth()
		cache      kit.Option                   = kit.WithCache(kit.NewMemoryCache(1 << 20))
		key        kit.CallOption               = kit.IdempotencyKey("k")
		resultAt   kit.EndpointOption           = kit.WithResultAt("data")
		bodyCheck  kit.ClientEndpointOption     = kit.WithBodyCheck(func(*struct{ OK bool }) error { return nil })
		errModel   kit.ClientEndpointOption     = kit.WithErrorModel[struct{ Message string }]()
		errModelAt kit.ClientEndpointOption     = kit.WithErrorModelAt[struct{ Message string }]("error")
		form       kit.EndpointOption           = kit.FormBody(kit.FormRepeat)
		multipart  kit.EndpointOption           = kit.Multipart()
		idemKey    kit.ClientEndpointOption     = kit.WithIdempotencyKey("")
		inFlight   kit.Option                   = kit.WithMaxInFlight(8)
		intercept  kit.Option                   = kit.WithInterceptors()
		attempts   kit.Option                   = kit.WithAttemptInterceptors()
		logger     kit.Option                   = kit.WithLogger(slog.Default())
		observer   kit.Option                   = kit.WithObserver(kit.Observer{})
		paginator  kit.PagingOption             = kit.WithPaginator(kit.Cursor{})
		maxPages   kit.PagingOption             = kit.WithMaxPages(3)
		prefetch   kit.PagingOption             = kit.WithPrefetch(2)
		rate       kit.Option                   = kit.WithRateLimit(10, 5)
		limiter    kit.Option                   = kit.WithLimiter(nil)
		serverRate kit.Option                   = kit.WithServerRateLimit(time.Minute)
		retry      kit.ClientEndpointCallOption = kit.WithRetry(kit.RetryPolicy{})
		noRetry    kit.EndpointCallOption       = kit.NoRetry()
		idempotent kit.EndpointOption           = kit.Idempotent()
		timeout    kit.EndpointCallOption       = kit.WithTimeout(time.Second)
		tokens     kit.TokenOption              = kit.WithTokenStore(kit.NewMemoryTokenStore())
		initial    kit.TokenOption              = kit.WithInitialToken(kit.Token{})
		margin     kit.TokenOption              = kit.WithTokenExpiryMargin(time.Second)
		fetchLimit kit.TokenOption              = kit.WithTokenFetchTimeout(time.Second)
	)

	// The unions are what v0.3.0 said they are.
	var (
		_ kit.Option         = header
		_ kit.EndpointOption = header
		_ kit.CallOption     = header
		_ kit.Option         = maxBody
		_ kit.EndpointOption = maxBody
		_ kit.EndpointOption = timeout
		_ kit.CallOption     = timeout
		_ kit.CallOption     = noRetry
		_ kit.ResourceOption = paginator
		_ kit.EndpointOption = paginator
		_ kit.ResourceOption = maxPages
		_ kit.EndpointOption = prefetch
		_ interface {
			kit.Option
			kit.EndpointOption
		} = idemKey
		_ kit.ClientEndpointOption     = header // a ClientEndpointCallOption is a ClientEndpointOption
		_ kit.ClientEndpointCallOption = retry
	)

	// The constructors as function values of v0.3.0's types, where those
	// types are still the constructors' (the unions are names of
	// RequestOption now).
	var (
		_ func(string, string) kit.ClientEndpointCallOption  = kit.WithHeader
		_ func(int64) kit.ClientEndpointOption               = kit.WithMaxBodySize
		_ func(time.Duration) kit.EndpointCallOption         = kit.WithTimeout
		_ func() kit.EndpointCallOption                      = kit.NoRetry
		_ func(kit.RetryPolicy) kit.ClientEndpointCallOption = kit.WithRetry
		_ func(string) kit.ClientEndpointOption              = kit.WithIdempotencyKey
		_ func(kit.Paginator) kit.PagingOption               = kit.WithPaginator
		_ func(any) kit.Option                               = kit.WithEngine
		_ func(float64, int) kit.Option                      = kit.WithRateLimit
		_ func(kit.Limiter) kit.Option                       = kit.WithLimiter
		_ func(time.Duration) kit.Option                     = kit.WithServerRateLimit
		_ func(int) kit.Option                               = kit.WithMaxInFlight
		_ func() kit.EndpointOption                          = kit.NoAuth
		_ func() kit.EndpointOption                          = kit.Idempotent
		_ func(string) kit.CallOption                        = kit.IdempotencyKey
	)

	// Slices of the old kinds, passed where v0.3.0 took them.
	clientOpts := []kit.Option{engine, httpClient, auth, header, validator, maxBody, cache, bodyCheck,
		errModel, errModelAt, idemKey, inFlight, intercept, attempts, logger, observer, rate, limiter,
		serverRate, retry}
	c, err := kit.NewClient("http://127.0.0.1:1", clientOpts...)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := kit.NewAsyncClient("http://127.0.0.1:1", kit.WithMaxInFlight(4), kit.WithHeader("X", "y"), kit.WithEngine(nil))
	_, _ = ac, err
	declOpts := []kit.EndpointOption{header, maxBody, noAuth, resultAt, bodyCheck, errModel, errModelAt,
		form, multipart, idemKey, retry, noRetry, idempotent, timeout}
	ep := kit.Post[struct{ Name string }, any]("/x", declOpts...)
	get := kit.Get[kit.NoParams, any]("/x", kit.WithHeader("A", "b"), kit.WithTimeout(time.Second), kit.NoRetry(), kit.WithResultAt("data"))
	paged := kit.Paged[kit.NoParams, any]("/x", paginator, maxPages, prefetch, kit.WithTimeout(time.Second))
	pagedPost, _ := kit.NewPaged[kit.NoParams, any]("/x", kit.WithPaginator(kit.Cursor{}), kit.WithMaxPages(3))
	_ = pagedPost
	callOpts := []kit.CallOption{header, key, retry, noRetry, timeout, kit.IdempotencyKey("k2")}
	_, _ = ep.Call(ctx, c, struct{ Name string }{"n"}, callOpts...)
	_, _ = get.Go(ctx, ac, kit.NoParams{}, kit.WithHeader("A", "c"), kit.WithTimeout(time.Second)).Await(ctx)
	for range paged.Iterate(ctx, c, kit.NoParams{}, kit.WithHeader("A", "b"), kit.WithRetry(kit.RetryPolicy{})) {
		break
	}
	resOpts := []kit.ResourceOption{paginator, maxPages, prefetch, kit.WithPaginator(kit.LinkHeader{})}
	r := kit.NewResource[any](c, "/users", resOpts...)
	_, _ = r.Get(ctx, 1, kit.WithHeader("A", "b"), kit.IdempotencyKey("k"), kit.WithTimeout(time.Second), kit.NoRetry())
	ar := kit.NewAsyncResource[any](ac, "/users", kit.WithPrefetch(2), kit.WithMaxPages(1), kit.WithPaginator(kit.PageNumber{}))
	_ = ar
	_ = kit.TokenAuth(func(context.Context) (kit.Token, error) { return kit.Token{}, nil }, tokens, initial, margin, fetchLimit)

	// A v0.3.0 helper that takes the unions keeps taking the options.
	takesUnions := func(kit.ClientEndpointOption, kit.ClientEndpointCallOption, kit.EndpointCallOption, kit.PagingOption) {
	}
	takesUnions(kit.WithErrorModel[struct{}](), kit.WithHeader("a", "b"), kit.WithTimeout(time.Second), kit.WithMaxPages(1))
	takesUnions(kit.WithBodyCheck(func(*struct{}) error { return nil }), kit.WithRetry(kit.RetryPolicy{}), kit.NoRetry(), kit.WithPrefetch(1))
}

// TestCompatV030Compiles is the test of this file: that it compiled.
func TestCompatV030Compiles(t *testing.T) {
	t.Parallel()
	_ = compatV030
}
