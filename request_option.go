package kit

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/kithttp/kit/internal/jsonpath"
)

// RequestOption shapes a request or its response: its headers, timeout and
// retry policy, the error model and body check of its responses, their size
// limit, its idempotency header, where its result is, and how many pages a
// walk fetches. One RequestOption works at three levels, the nearest
// winning:
//
//   - on a client ([NewClient], [NewAsyncClient]): every request of the
//     client, whatever endpoint, resource or walk sends it;
//   - on a declaration ([Get], [Post], ..., [NewEndpoint], [Paged],
//     [PagedPost], [NewPaged], [NewResource], [NewAsyncResource]): every
//     request of that endpoint, or of every operation and walk of that
//     resource, over the client's setting;
//   - on a call (the trailing options of Call, Go, a resource method or a
//     walk): every request of that one call (each attempt of a retried call,
//     the resend after a 401, every page of a walk, every reconnection of a
//     Stream), over the declaration's and the client's settings.
//
// A bad value (an empty header key, a non-positive timeout, ...) makes
// NewClient fail, the declaration fail (a [*DeclarationError]; for a
// resource, every call of it) or the call fail before anything is sent.
// The request options are [WithHeader], [WithTimeout], [WithRetry],
// [NoRetry], [WithErrorModel], [WithErrorModelAt], [WithErrorModelFor], [WithBodyCheck],
// [WithMaxBodySize], [WithIdempotencyHeader], [WithResultAt],
// [WithMaxPages], [WithPrefetch], [WithQuery], [WithJSONField],
// [WithAttemptTimeout], [WithIdleTimeout], [WithDump] and [WithDumpLogger];
// each one's documentation says where it
// has no meaning (and is an error) or is ignored. A nil RequestOption is
// skipped.
//
// Options that build the client ([WithSyncEngine], [WithAuth], [WithCache],
// [WithLimits], [WithLogger], [WithObserver], [WithInterceptors],
// [WithValidator], ...) are [Option]s only; what a declaration is ([FormBody],
// [Multipart], [NoAuth], [Idempotent], [PagedBy]) is an [EndpointOption]
// (PagedBy also a [ResourceOption]); [IdempotencyKey] names one request and
// is a [CallOption] only.
type RequestOption interface {
	Option
	EndpointOption
	ResourceOption
	CallOption
}

// Private implementation past this point.

// level is where a request option is given.
type level uint8

const (
	atClient   level = iota // NewClient, NewAsyncClient
	atEndpoint              // an endpoint or paged endpoint declaration
	atResource              // NewResource, NewAsyncResource
	atCall                  // one call
)

// requestSetting is one request option's value: a small comparable type
// that knows how to set itself in a requestConfig at a level, and its
// String is the option as its call (kit.WithTimeout(2s)), without secrets.
type requestSetting interface {
	applyRequest(c *requestConfig, at level) error
	String() string
}

// requestOption is every RequestOption: the one type whose methods make a
// setting an Option, an EndpointOption, a ResourceOption and a CallOption.
// It is comparable when S is, and as small as S.
type requestOption[S requestSetting] struct{ s S }

func (o requestOption[S]) applyClient(c *clientConfig) error {
	if err := o.s.applyRequest(&c.requestConfig, atClient); err != nil {
		return fmt.Errorf("kit: %w", err)
	}
	return nil
}

func (o requestOption[S]) applyEndpoint(c *endpointConfig) {
	if err := o.s.applyRequest(&c.requestConfig, atEndpoint); err != nil {
		c.problem = err.Error()
	}
}

func (o requestOption[S]) applyResource(c *resourceConfig) {
	if err := o.s.applyRequest(&c.requestConfig, atResource); err != nil && c.problem == "" {
		c.problem = err.Error()
	}
}

func (o requestOption[S]) applyCall(c *callConfig) error {
	return o.s.applyRequest(&c.requestConfig, atCall)
}

// String is the option as its call, e.g. kit.WithTimeout(2s).
func (o requestOption[S]) String() string { return o.s.String() }

// GoString is String, so that %#v shows no value String leaves out.
func (o requestOption[S]) GoString() string { return o.s.String() }

// Format prints String whatever the verb (%d, %x, ...), so that no verb
// shows a value String leaves out (a header's, a key's).
func (o requestOption[S]) Format(f fmt.State, _ rune) { formatRedacted(f, o.s.String()) }

// LogValue is the option for log/slog, as String.
func (o requestOption[S]) LogValue() slog.Value { return slog.StringValue(o.s.String()) }

// requestConfig is what request options set at one level: the client's,
// a declaration's, a resource's or a call's. Zero fields are unset, and
// the next level out applies (the client's defaults last).
type requestConfig struct {
	callPolicy // WithMaxBodySize, WithRetry, NoRetry, WithTimeout, WithErrorModel(At), WithBodyCheck

	header     http.Header    // WithHeader on a client, a declaration or a resource
	callHeader []headerOption // WithHeader on a call: canonical keys, in order
	setRetry   bool           // WithRetry or NoRetry was given
	idemHeader string         // WithIdempotencyHeader (WithIdempotencyKey); "": unset
	resultAt   jsonpath.Path  // WithResultAt; nil: unset
	resultText string         // resultAt as given, for messages
	extra      *extraFields   // WithQuery, WithJSONField; nil: none

	maxPages    int  // WithMaxPages
	prefetch    int  // WithPrefetch
	setMaxPages bool // WithMaxPages was given
	setPrefetch bool // WithPrefetch was given
	// pagingOption is the first of WithMaxPages and WithPrefetch given to a
	// declaration, which an endpoint that is not paged refuses.
	pagingOption string
}

// usedPaging records that a walk-only option was given.
func (c *requestConfig) usedPaging(option string) {
	if c.pagingOption == "" {
		c.pagingOption = option
	}
}

// pick returns the first of a walk's settings that is set: the call's, the
// declaration's, the client's.
func pick(callSet bool, call int, declSet bool, decl int, client int) int {
	switch {
	case callSet:
		return call
	case declSet:
		return decl
	}
	return client
}

// literal writes an option as its call with a composite literal, field by
// field ("Name: value", comma-separated), for the options' String methods.
type literal struct {
	b   strings.Builder
	sep string
}

// newLiteral starts a literal with open, e.g. "kit.WithLimits(kit.Limits{".
func newLiteral(open string) *literal {
	w := &literal{}
	w.b.WriteString(open)
	return w
}

// field writes one field.
func (w *literal) field(name string, v any) {
	fmt.Fprintf(&w.b, "%s%s: %v", w.sep, name, v)
	w.sep = ", "
}

// close writes end and returns the text.
func (w *literal) close(end string) string {
	w.b.WriteString(end)
	return w.b.String()
}
