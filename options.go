package kit

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
)

// Option configures a [Client] or an [AsyncClient]. Options are values of small
// comparable types with a String method; a nil Option is skipped.
type Option interface {
	applyClient(*clientConfig) error
}

// EndpointOption configures one endpoint declaration. A nil EndpointOption
// is skipped.
type EndpointOption interface {
	applyEndpoint(*endpointConfig)
}

// ResourceOption configures a [Resource] or an [AsyncResource]. A nil
// ResourceOption is skipped.
type ResourceOption interface {
	applyResource(*resourceConfig)
}

// ClientEndpointOption is an option that configures a client (as an
// [Option]) or one endpoint declaration (as an [EndpointOption]), the
// endpoint's setting winning over the client's: [WithMaxBodySize],
// [WithErrorModel], [WithErrorModelAt], [WithBodyCheck] and
// [WithIdempotencyKey] return one ([WithHeader] and [WithRetry] return a
// [ClientEndpointCallOption], which is one too). Like connect's
// Option, which is both a ClientOption and a HandlerOption, it names the
// union so that go doc shows it; any value of it is also an Option and an
// [EndpointOption].
type ClientEndpointOption interface {
	Option
	EndpointOption
}

// PagingOption is an option that configures the pagination of a resource
// (as a [ResourceOption]) or of a paged endpoint declaration (as an
// [EndpointOption]): [WithPaginator], [WithMaxPages] and [WithPrefetch] return one.
type PagingOption interface {
	ResourceOption
	EndpointOption
}

// WithEngine sets the engine that sends the client's requests: an [Engine], an
// [AsyncEngine], or a value implementing both. Whether the engine has the
// protocol a call needs is checked when the call is made (see [EngineError]).
// Such an engine follows redirects as it likes: it is responsible for not
// sending credentials to another origin (see [Auth]); prefer [WithHTTPClient]
// for a customised *http.Client.
func WithEngine(e any) Option { return engineOption{e} }

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

// WithHeader adds a header. As an [Option] it is sent on every request of the
// client; as an [EndpointOption] it is a constant header of that endpoint
// (an Accept: application/vnd.github.raw, say), which replaces the
// client's values of that key. It may be given several times; values of
// the same key accumulate. A header parameter of the call (a `kit:",header"`
// field) replaces both. As a [CallOption] it is a header of that one call
// (every attempt, page and reconnection of it), which replaces the values
// of that key set by the client, the endpoint and the call's parameters. An
// empty key makes [NewClient], or the declaration, fail; as a CallOption,
// the call.
func WithHeader(key, value string) ClientEndpointCallOption {
	return headerOption{key, value}
}

// WithValidator sets how request bodies and response models are validated.
// nil turns validation off. The default uses go-playground/validator struct
// tags plus a Validate() error method where a type has one.
func WithValidator(v Validator) Option { return validatorOption{v} }

// WithMaxBodySize bounds how many bytes of a response body are read. A
// larger body fails the call with an error matching [ErrBodyTooLarge].
// For a [Stream] it bounds each record instead (the stream itself has no
// limit), and a streamed io.ReadCloser has none. Default:
// [DefaultMaxBodySize]. It is both an [Option] (the client's limit) and an
// [EndpointOption] (that endpoint's limit).
func WithMaxBodySize(n int64) ClientEndpointOption {
	return maxBodyOption{n}
}

// DefaultMaxBodySize is the response body limit of a client made without
// [WithMaxBodySize]: 32 MiB.
const DefaultMaxBodySize = 32 << 20

// NoAuth declares an endpoint that never carries the client's credentials
// and never triggers a token refresh: public endpoints, and the login
// endpoint that produces a token.
func NoAuth() EndpointOption { return noAuthOption{} }

// Private implementation past this point.

type engineOption struct{ e any }

func (o engineOption) applyClient(c *clientConfig) error {
	if o.e == nil {
		return errors.New("kit: WithEngine(nil): no engine")
	}
	_, isSync := o.e.(Engine)
	_, isAsync := o.e.(AsyncEngine)
	if !isSync && !isAsync {
		return fmt.Errorf("kit: WithEngine(%T): implements neither kit.Engine nor kit.AsyncEngine", o.e)
	}
	c.engine = o.e
	return nil
}
func (o engineOption) String() string { return fmt.Sprintf("kit.WithEngine(%T)", o.e) }

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

type headerOption struct{ key, value string }

func (o headerOption) applyClient(c *clientConfig) error {
	if o.key == "" {
		return fmt.Errorf("kit: %s: empty key", o.call())
	}
	c.header.Add(o.key, o.value)
	return nil
}

func (o headerOption) applyEndpoint(c *endpointConfig) {
	if o.key == "" {
		c.problem = o.call() + ": empty key"
		return
	}
	if c.header == nil {
		c.header = make(http.Header)
	}
	c.header.Add(o.key, o.value)
}

// String leaves the value out: headers often carry secrets.
func (o headerOption) String() string { return "kit." + o.call() }

// call is the option as its call, without the value, for errors.
func (o headerOption) call() string { return fmt.Sprintf("WithHeader(%q, ...)", o.key) }

// GoString keeps the value out of %#v too.
func (o headerOption) GoString() string { return o.String() }

// Format prints String whatever the verb (%d, %x, ...), so that no verb
// shows the value.
func (o headerOption) Format(f fmt.State, _ rune) { formatRedacted(f, o.String()) }

// LogValue is the option for log/slog, without the value.
func (o headerOption) LogValue() slog.Value { return slog.StringValue(o.String()) }

type validatorOption struct{ v Validator }

func (o validatorOption) applyClient(c *clientConfig) error {
	c.validator = o.v
	return nil
}
func (o validatorOption) String() string { return fmt.Sprintf("kit.WithValidator(%T)", o.v) }

type maxBodyOption struct{ n int64 }

func (o maxBodyOption) applyClient(c *clientConfig) error {
	if o.n <= 0 {
		return fmt.Errorf("kit: WithMaxBodySize(%d): must be positive", o.n)
	}
	c.maxBody = o.n
	return nil
}
func (o maxBodyOption) applyEndpoint(c *endpointConfig) {
	if o.n <= 0 {
		c.problem = fmt.Sprintf("WithMaxBodySize(%d): must be positive", o.n)
		return
	}
	c.maxBody = o.n
}
func (o maxBodyOption) String() string { return fmt.Sprintf("kit.WithMaxBodySize(%d)", o.n) }

type noAuthOption struct{}

func (noAuthOption) applyEndpoint(c *endpointConfig) { c.noAuth = true }
func (noAuthOption) String() string                  { return "kit.NoAuth()" }
