package kit

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"reflect"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kithttp/kit/internal/jsonpath"
)

// WithResultAt declares a result wrapped in an envelope: R is decoded from
// the value at path, a dotted key, instead of from the whole body. Slack's
// conversations.info answers {"ok":true,"channel":{…}}:
//
//	var info = kit.Post[InfoParams, Channel]("/conversations.info", kit.WithResultAt("channel"))
//
// A 2xx body without that key is a *DecodeError; a key whose value is null
// gives the zero R. The body is read and parsed once, and R is validated as
// usual. With R = Result[T], T is decoded from the key and the Result keeps
// the whole response. A path that is empty or has an empty segment makes
// NewClient, the declaration or the call fail.
//
// It is a [RequestOption], for results decoded from JSON (R a data model,
// any, or Result of one). On an endpoint declaration or a call whose R is
// not decoded (*Response, io.ReadCloser, a Stream) it is an error, as it is
// on a paged endpoint's declaration and on a walk (Iterate, Pages, All, and
// a Resource's List), whose paginator says where the records are (its
// ItemsKey). On a client it applies to every endpoint call and resource
// operation whose result is decoded from JSON, and is ignored by the
// others and by walks; on a resource, to its Get, Create, Update and Patch
// (not to List and walks). The call's wins over the declaration's, which
// wins over the client's.
func WithResultAt(path string) RequestOption {
	p, err := jsonpath.Parse(path)
	return requestOption[resultAtOption]{resultAtOption{path: path, parsed: &parsedPath{p, err}}}
}

// WithBodyCheck looks for errors in 2xx bodies, as APIs that always answer
// 200 report them: every 2xx JSON body (not an empty one, nor a streamed
// one) is also decoded into a new E, its fields tagged `kit:",status"` and
// `kit:"Name,header"` filled as for WithErrorModel, and handed to check. A
// non-nil error fails the call with an *HTTPError whose StatusCode, Header
// and Body are the response's, whose Model is the *E, and which wraps the
// check's error, so that errors.As finds the caller's type. Slack's
// {"ok":false,"error":"channel_not_found"} and GraphQL's {"errors":[…]} at
// 200 are one option each:
//
//	kit.WithBodyCheck(func(e *SlackStatus) error {
//		if !e.OK {
//			return &SlackError{Code: e.Error}
//		}
//		return nil
//	})
//
// The check runs on every attempt, on the body the engine returned (an
// interceptor's own answer made with NewResponse is taken as it is), inside
// the retry layer: RetryPolicy's
// RetryIf sees its failures like any other (Retryable says no to them,
// their status not being among Statuses). A body that does not decode into
// E fails the call with a *DecodeError: it is never taken as a success.
// The body is read once.
//
// It is a [RequestOption]: on a client, every request of the client (the
// pages of walks included); on a declaration, that endpoint's or resource's
// check, which wins over the client's; on a call, that call's check, which
// wins over both. A nil check makes NewClient, the declaration or the call
// fail.
func WithBodyCheck[E any](check func(*E) error) RequestOption {
	t := reflect.TypeFor[E]()
	bc := &bodyCheck{typ: t}
	if check == nil {
		bc.problem = fmt.Sprintf("WithBodyCheck[%s](nil): the check is nil", t)
		return requestOption[bodyCheckOption]{bodyCheckOption{bc}}
	}
	f, err := responseFieldsOf(t)
	if err != nil {
		bc.problem = fmt.Sprintf("WithBodyCheck[%s]: %v", t, err)
	}
	bc.run = func(resp *Response) (any, error, error) {
		v := new(E)
		if err := decodeBody(resp, v); err != nil {
			return nil, nil, err
		}
		f.fill(reflect.ValueOf(v).Elem(), resp.StatusCode, resp.Header)
		return v, check(v), nil
	}
	return requestOption[bodyCheckOption]{bodyCheckOption{bc}}
}

// Private implementation past this point.

// resultAtOption is WithResultAt's setting. It holds its parsed path by
// pointer, so it stays comparable.
type resultAtOption struct {
	path   string
	parsed *parsedPath
}

// parsedPath is a dotted path parsed, or why it does not parse.
type parsedPath struct {
	p   jsonpath.Path
	err error
}

func (o resultAtOption) applyRequest(c *requestConfig, _ level) error {
	if o.parsed.err != nil {
		return fmt.Errorf("WithResultAt(%q): %v", o.path, o.parsed.err)
	}
	c.resultAt, c.resultText = o.parsed.p, o.path
	return nil
}

func (o resultAtOption) String() string { return fmt.Sprintf("kit.WithResultAt(%q)", o.path) }

// bodyCheck is WithBodyCheck: the check, with E's decoding around it.
type bodyCheck struct {
	typ     reflect.Type
	problem string
	// run decodes resp's body into a new E and checks it: the *E, the
	// check's error, and a *DecodeError when the body is not an E.
	run func(resp *Response) (model any, checkErr, decodeErr error)
}

// bodyCheckOption holds a pointer, so it stays comparable.
type bodyCheckOption struct{ bc *bodyCheck }

func (o bodyCheckOption) applyRequest(c *requestConfig, _ level) error {
	if o.bc.problem != "" {
		return errors.New(o.bc.problem)
	}
	c.bodyCheck = o.bc
	return nil
}

func (o bodyCheckOption) String() string { return fmt.Sprintf("kit.WithBodyCheck[%s](...)", o.bc.typ) }

// checkBody runs the body check in force for a request with policy pol on
// resp, a 2xx response whose body has been read: nil when there is none,
// when the body is empty, or when the check passes.
func (st *clientState) checkBody(pol *callPolicy, resp *Response) error {
	bc := st.bodyCheck
	if pol.bodyCheck != nil {
		bc = pol.bodyCheck
	}
	if bc == nil || len(bytes.TrimSpace(resp.body)) == 0 {
		return nil
	}
	model, checkErr, decodeErr := bc.run(resp)
	if decodeErr != nil {
		var de *DecodeError
		if errors.As(decodeErr, &de) {
			de.Err = fmt.Errorf("WithBodyCheck: %w", de.Err)
		}
		return decodeErr
	}
	if checkErr == nil {
		return nil
	}
	body := resp.body
	if len(body) > MaxErrorBodySize {
		body = body[:MaxErrorBodySize:MaxErrorBodySize]
	}
	hreq := resp.Request
	return &HTTPError{
		Method:     hreq.Method,
		URL:        resp.redact.url(hreq.URL),
		StatusCode: resp.StatusCode,
		Header:     resp.Header,
		Body:       body,
		Model:      model,
		finalURL:   cmp.Or(resp.finalURL, hreq.URL),
		retry:      st.retry.forPolicy(pol),
		cause:      checkErr,
	}
}

// decodeAt decodes the value at path in resp's body into v, reporting a
// missing key or a value that does not decode as a *DecodeError. A null
// value leaves v as it is.
func decodeAt(resp *Response, path jsonpath.Path, v any) error {
	found := false
	err := jsonpath.Walk(resp.body, []jsonpath.Path{path}, func(_ int, dec *jsontext.Decoder) error {
		found = true
		if dec.PeekKind() == 'n' {
			return dec.SkipValue()
		}
		return unmarshalDecode(dec, v)
	})
	if err == nil && !found {
		err = fmt.Errorf("the body has no key %q", path.String())
	}
	if err == nil {
		return nil
	}
	return decodeError(resp, v, err)
}
