package kit

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/kithttp/kit/internal/httpsyntax"
)

// Option configures a [Client] or an [AsyncClient]. Options are values of small
// comparable types with a String method; a nil Option is skipped. The
// options that build the client (its engine, auth, cache, limits, logger,
// observer, interceptors and validator) are Options only; every
// [RequestOption] is an Option too, the client's setting of it.
type Option interface {
	applyClient(*clientConfig) error
}

// EndpointOption configures one endpoint declaration: every [RequestOption],
// and the traits that say what the declaration is ([FormBody], [Multipart],
// [NoAuth], [Idempotent], [PagedBy]). A nil EndpointOption is skipped.
type EndpointOption interface {
	applyEndpoint(*endpointConfig)
}

// ResourceOption configures a [Resource] or an [AsyncResource]: every
// [RequestOption] (for all its operations and walks) and [PagedBy]. A nil
// ResourceOption is skipped.
type ResourceOption interface {
	applyResource(*resourceConfig)
}

// ClientEndpointOption is the name v0.3.0 gave the options that worked on
// a client and a declaration; every one of them is now a [RequestOption].
//
// Deprecated: use [RequestOption], of which this is another name.
type ClientEndpointOption = RequestOption

// PagingOption is an option that configures a resource (as a
// [ResourceOption]) or a paged endpoint declaration (as an
// [EndpointOption]): the paginator trait [PagedBy] is one. [WithMaxPages]
// and [WithPrefetch], which returned one in v0.3.0, are [RequestOption]s,
// and any value of those is a PagingOption too.
type PagingOption interface {
	ResourceOption
	EndpointOption
}

// WithHTTPClient sets the *http.Client that sends requests. On a [Client] it
// is the engine; on an [AsyncClient] the async engine sends through it. kit
// uses a shallow copy of hc whose CheckRedirect first takes the
// credentials of the client's [Auth] off a request redirected to another
// origin, then applies hc.CheckRedirect (net/http's default policy when
// nil); hc itself is not modified.
func WithHTTPClient(hc *http.Client) Option { return httpClientOption{hc} }

// WithAuth sets the client's auth strategy, shared by every endpoint and
// resource bound to the client (endpoints declared with [NoAuth] skip it). A
// built-in [Auth] that is misconfigured (an empty [Bearer] token, a [TokenAuth]
// without a fetch function, ...) makes [NewClient] fail.
func WithAuth(a Auth) Option { return authOption{a} }

// WithHeader adds a header, a [RequestOption]. On a client it is sent on
// every request of the client; on a declaration it is a constant header of
// that endpoint, or of every operation of that resource (an Accept:
// application/vnd.github.raw, say), which replaces the client's values of
// that key. It may be given several times; values of the same key given at
// one level accumulate. A header parameter of the call (a `kit:",header"`
// field) replaces both. On a call it is a header of that one call (every
// attempt, page and reconnection of it), which replaces the values of that
// key set by the client, the declaration and the call's parameters. An
// empty key makes [NewClient], or the declaration, fail; on a call, a key
// that is not an HTTP token or a value with a control character fails the
// call too.
func WithHeader(key, value string) RequestOption {
	return requestOption[headerOption]{headerOption{key, value}}
}

// WithValidator sets how request bodies and response models are validated.
// nil turns validation off. The default uses go-playground/validator struct
// tags plus a Validate() error method where a type has one.
func WithValidator(v Validator) Option { return validatorOption{v} }

// WithMaxBodySize bounds how many bytes of a response body are read, a
// [RequestOption]: the client's limit, a declaration's (over the client's)
// or one call's (over both). A larger body fails the call with an error
// matching [ErrBodyTooLarge]. For a [Stream] it bounds each record instead
// (the stream itself has no limit), and a streamed io.ReadCloser has none.
// n must be positive. Default: [DefaultMaxBodySize].
func WithMaxBodySize(n int64) RequestOption {
	return requestOption[maxBodyOption]{maxBodyOption{n}}
}

// DefaultMaxBodySize is the response body limit of a client made without
// [WithMaxBodySize]: 32 MiB.
const DefaultMaxBodySize = 32 << 20

// Private implementation past this point.

type httpClientOption struct{ hc *http.Client }

func (o httpClientOption) applyClient(c *clientConfig) error {
	if o.hc == nil {
		return errors.New("kit: WithHTTPClient(nil): no *http.Client")
	}
	c.httpClient = o.hc
	return nil
}
func (o httpClientOption) String() string { return "kit.WithHTTPClient(...)" }

type authOption struct{ a Auth }

func (o authOption) applyClient(c *clientConfig) error {
	if ac, ok := o.a.(authChecker); ok {
		if err := ac.checkAuth(); err != nil {
			return err
		}
	}
	c.auth = o.a
	return nil
}
func (o authOption) String() string { return fmt.Sprintf("kit.WithAuth(%T)", o.a) }

// headerOption is WithHeader's setting, and one header of a call.
type headerOption struct{ key, value string }

func (o headerOption) applyRequest(c *requestConfig, at level) error {
	if o.key == "" {
		return fmt.Errorf("%s: empty key", o.call())
	}
	if at == atCall {
		if !httpsyntax.IsToken(o.key) || httpsyntax.HasControl(o.value) {
			return fmt.Errorf("%s: not a header name, or a control character in the value", o.call())
		}
		c.callHeader = append(c.callHeader, headerOption{http.CanonicalHeaderKey(o.key), o.value})
		return nil
	}
	if c.header == nil {
		c.header = make(http.Header)
	}
	c.header.Add(o.key, o.value)
	return nil
}

// String leaves the value out: headers often carry secrets.
func (o headerOption) String() string { return "kit." + o.call() }

// call is the option as its call, without the value, for errors.
func (o headerOption) call() string { return fmt.Sprintf("WithHeader(%q, ...)", o.key) }

type validatorOption struct{ v Validator }

func (o validatorOption) applyClient(c *clientConfig) error {
	c.validator = o.v
	return nil
}
func (o validatorOption) String() string { return fmt.Sprintf("kit.WithValidator(%T)", o.v) }

type maxBodyOption struct{ n int64 }

func (o maxBodyOption) applyRequest(c *requestConfig, _ level) error {
	if o.n <= 0 {
		return fmt.Errorf("WithMaxBodySize(%d): must be positive", o.n)
	}
	c.maxBody = o.n
	return nil
}
func (o maxBodyOption) String() string { return fmt.Sprintf("kit.WithMaxBodySize(%d)", o.n) }
