package kit

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/kithttp/kit/internal/jsonpath"
)

// PollOptions says how a [Poller] follows a long-running operation. The
// zero value fits the common shapes: a status field "status" in the
// operation's JSON body, the result in the last body, waits from
// Retry-After, else 1 s, never longer than 60 s.
type PollOptions struct {
	// URLAt is where the operation's URL is in the first response's JSON
	// body (a dotted path such as "operation.href"), for APIs that send it
	// there; it is used when the response has no Operation-Location,
	// Azure-AsyncOperation nor Location header. "": headers only.
	URLAt string

	// StatusAt is where the operation's state is in a poll's JSON body.
	// "" means "status". See Done for the states it knows.
	StatusAt string

	// Done decides, from a poll's 2xx response, whether the operation has
	// reached a terminal state, and with err whether that state is a
	// failure (the poller then ends with err, wrapped in an
	// [*OperationError]). nil means the default rule: a 202 is running; a
	// state at StatusAt of succeeded, success, successful, completed,
	// complete or done (any case) is a success; failed, failure, error,
	// canceled or cancelled is a failure; any other state is running; a
	// 2xx other than 202 without a state is a success. It must be safe
	// for concurrent use.
	Done func(resp *Response) (done bool, err error)

	// ResultAt is where R is in the last poll's JSON body (a dotted
	// path such as "result"); "" means the whole body.
	ResultAt string

	// Wait is the wait between polls when a response has no Retry-After.
	// 0 means 1 s.
	Wait time.Duration

	// MaxWait caps every wait, Retry-After's included. 0 means 60 s.
	MaxWait time.Duration
}

// OperationError is the error of a long-running operation that reached a
// failed terminal state: its URL (redacted), the state text, and the
// error that Done gave (for the default rule, one naming the state).
type OperationError struct {
	URL    string
	Status string
	Err    error
}

func (e *OperationError) Error() string {
	return fmt.Sprintf("kit: operation %s ended %s: %v", e.URL, cmp.Or(e.Status, "in failure"), e.Err)
}

// Unwrap returns the error that Done gave.
func (e *OperationError) Unwrap() error { return e.Err }

// ErrNoOperationURL is matched by the error of [NewPoller] for a response
// that names no operation URL (no Operation-Location, Azure-AsyncOperation
// or Location header, nor a URL at PollOptions.URLAt).
var ErrNoOperationURL = errors.New("kit: the response names no operation URL")

// Poller follows a long-running operation: a request answered 202
// Accepted with the URL of its operation (in an Operation-Location,
// Azure-AsyncOperation or Location header, or a body field), which the
// poller requests with GET until it reaches a terminal state, then
// decodes the operation's result into R (decoded and validated as an
// endpoint's R would be).
//
//	res, err := startExport.Call(ctx, c, params) // R = *kit.Response: the 202
//	p, err := kit.NewPoller[Export](c, res, kit.PollOptions{})
//	save(p.Token())                               // resume later with ResumePoller
//	export, err := p.Wait(ctx)
//
// Each poll is a call of the client: it takes the whole send chain (auth,
// retries, rate limits, the observer's events and kitotel's spans, with
// the declaration "GET {operation}"), and the origin rule applies: an
// operation URL on another origin gets no credentials. Between polls the
// poller waits the response's Retry-After (seconds or a date), else
// PollOptions.Wait, never longer than MaxWait; the wait ends early when
// the context does, and the poll then fails with the context's error. An
// operation that never ends polls until the context ends: bound it with
// one. The client's observers see each poll with Observer.Poll.
//
// A Poller is safe for concurrent use, one Wait (or Poll) at a time
// doing the polling. Its Token, the operation's URL, survives the process:
// [ResumePoller] goes on from it.
type Poller[R any] struct {
	b      Binding
	opts   PollOptions
	final  *Endpoint[pollTarget, R]
	status jsonpath.Path
	result jsonpath.Path
	token  string

	mu    sync.Mutex
	polls int
	done  bool
	last  *Response
	err   error
}

// NewPoller returns the poller of the operation that resp (the first
// response, typically a 202 Accepted, from an endpoint whose R is
// *Response or a [Result]) started, through the client b. Relative URLs
// are resolved against resp's request URL. A response other than a 202
// that is done already by the terminal-state rule (the operation ended at
// once) needs no URL: the poller is done, its Token "". The error matches
// [ErrNoOperationURL] when resp names none otherwise, and is a [*DeclarationError]
// for an R that is not a result type or bad PollOptions paths.
func NewPoller[R any](b Binding, resp *Response, o PollOptions) (*Poller[R], error) {
	p, err := newPoller[R](b, o)
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, errors.New("kit: NewPoller: nil *Response")
	}
	var base *url.URL
	if resp.Request != nil {
		base = resp.Request.URL
	}
	if resp.finalURL != nil {
		base = resp.finalURL
	}
	u, err := operationURL(base, resp.Header, resp.body, o.URLAt)
	if err != nil {
		// An operation that ended in its first response (a 200 or 201
		// with the result, as a document that declares them besides the
		// 202 allows) needs no URL: the poller is done, with no Token.
		if errors.Is(err, ErrNoOperationURL) && resp.StatusCode != http.StatusAccepted && resp.StatusCode != 0 {
			if done, derr := p.isDone(resp); done {
				p.finish(resp, derr)
				return p, nil
			}
		}
		return nil, err
	}
	p.token = u
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != 0 {
		// Done at once (a 200 or 201 with the result): the first response
		// is the last.
		if done, derr := p.isDone(resp); done {
			p.finish(resp, derr)
		}
	}
	return p, nil
}

// ResumePoller returns the poller of the operation whose [Poller.Token]
// was saved: an absolute http or https URL. Nothing is sent until Wait or
// Poll.
func ResumePoller[R any](b Binding, token string, o PollOptions) (*Poller[R], error) {
	p, err := newPoller[R](b, o)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(token)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("kit: ResumePoller: the token is not an absolute http(s) URL")
	}
	p.token = token
	return p, nil
}

// Token returns the operation's URL, which [ResumePoller] takes to go on
// polling it elsewhere or later; "" for an operation that ended in its
// first response without naming one. It may hold a secret the server put
// in it: store it as such.
func (p *Poller[R]) Token() string { return p.token }

// Done reports whether the operation has reached a terminal state.
func (p *Poller[R]) Done() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

// Poll requests the operation's state once (unless it is done already)
// and reports whether it is done. Its error is the poll's (the operation
// goes on: poll again) or, once done, the operation's failure.
func (p *Poller[R]) Poll(ctx context.Context) (done bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return true, p.err
	}
	_, err = p.pollOnce(ctx, false)
	return p.done, err
}

// Wait polls until the operation is done and returns its result, R
// decoded from the last poll's body (at ResultAt). It fails with the
// operation's [*OperationError], a poll's error (after the client's own
// retries), or the context's error. The client's engine must implement
// [Engine]; for an [AsyncClient] use [Poller.Go].
func (p *Poller[R]) Wait(ctx context.Context) (R, error) {
	return p.wait(ctx, false)
}

// Go runs Wait on a goroutine of the client's, returning at once with a
// [Future] of its result; the client's engine must implement
// [AsyncEngine]. [AsyncClient.Close] waits for it (and cancels it).
func (p *Poller[R]) Go(ctx context.Context) *Future[R] {
	st, err := p.final.d.state(p.b)
	if err != nil {
		return failedFuture[R](err)
	}
	if err := st.closedError(pollEndpointName); err != nil {
		return failedFuture[R](err)
	}
	return goFuture(st, ctx, pollEndpointName, func(ctx context.Context) (R, error) { return p.wait(ctx, true) })
}

// Private implementation past this point.

// pollTarget is the parameter of a poll: the operation's URL.
type pollTarget struct {
	URL string `kit:",url"`
}

const pollEndpointName = "GET {operation}"

// pollEndpoint is every poll's declaration; its result is the response.
var pollEndpoint = named(Get[pollTarget, *Response]("/"))

// named names a poll's declaration "GET {operation}" in errors and
// events: its URL is the operation's, not the declared "/".
func named[R any](e *Endpoint[pollTarget, R]) *Endpoint[pollTarget, R] {
	e.d.name = pollEndpointName
	return e
}

func newPoller[R any](b Binding, o PollOptions) (*Poller[R], error) {
	if b == nil {
		return nil, errorf("NewPoller", "%w", ErrNilBinding)
	}
	if o.Wait < 0 || o.MaxWait < 0 {
		return nil, fmt.Errorf("kit: NewPoller: negative Wait %v or MaxWait %v", o.Wait, o.MaxWait)
	}
	final, err := NewEndpoint[pollTarget, R](http.MethodGet, "/")
	if err != nil {
		return nil, err
	}
	p := &Poller[R]{b: b, opts: o, final: named(final)}
	if p.status, err = jsonpath.Parse(cmp.Or(o.StatusAt, "status")); err != nil {
		return nil, fmt.Errorf("kit: NewPoller: StatusAt: %w", err)
	}
	if o.ResultAt != "" {
		if p.result, err = jsonpath.Parse(o.ResultAt); err != nil {
			return nil, fmt.Errorf("kit: NewPoller: ResultAt: %w", err)
		}
	}
	if o.URLAt != "" {
		if _, err := jsonpath.Parse(o.URLAt); err != nil {
			return nil, fmt.Errorf("kit: NewPoller: URLAt: %w", err)
		}
	}
	return p, nil
}

// operationURL finds the operation's URL in a first response: its
// headers, then the body at urlAt; relative to base.
func operationURL(base *url.URL, h http.Header, body []byte, urlAt string) (string, error) {
	raw := ""
	for _, k := range []string{"Operation-Location", "Azure-Asyncoperation", "Location"} {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			raw = v
			break
		}
	}
	if raw == "" && urlAt != "" && len(body) > 0 {
		path, _ := jsonpath.Parse(urlAt)
		if v, found, err := jsonpath.Lookup(body, path); err == nil && found {
			var s string
			if json.Unmarshal(v, &s) == nil {
				raw = strings.TrimSpace(s)
			}
		}
	}
	if raw == "" {
		return "", ErrNoOperationURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %q is not a URL", ErrNoOperationURL, redactor{}.text(raw))
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%w: %s is not an absolute http(s) URL", ErrNoOperationURL, redactURL(u))
	}
	return u.String(), nil
}

// pollWait is the wait before the next poll after resp.
func (p *Poller[R]) pollWait(h http.Header) time.Duration {
	wait := cmp.Or(p.opts.Wait, time.Second)
	if ra, ok := retryAfter(h, time.Now()); ok {
		wait = ra
	}
	return min(wait, cmp.Or(p.opts.MaxWait, 60*time.Second))
}

// isDone applies the terminal-state rule to a 2xx poll response.
func (p *Poller[R]) isDone(resp *Response) (bool, error) {
	if p.opts.Done != nil {
		return p.opts.Done(resp)
	}
	state := ""
	if len(resp.body) > 0 {
		if v, found, err := jsonpath.Lookup(resp.body, p.status); err == nil && found {
			_ = json.Unmarshal(v, &state)
		}
	}
	switch strings.ToLower(state) {
	case "succeeded", "success", "successful", "completed", "complete", "done":
		return true, nil
	case "failed", "failure", "error", "canceled", "cancelled":
		return true, fmt.Errorf("its state is %q", state)
	case "":
		return resp.StatusCode != http.StatusAccepted, nil
	}
	return false, nil
}

// finish records the end of the operation with its last response.
func (p *Poller[R]) finish(resp *Response, err error) {
	p.done, p.last = true, resp
	if err != nil {
		state := ""
		if v, found, lerr := jsonpath.Lookup(resp.body, p.status); lerr == nil && found {
			_ = json.Unmarshal(v, &state)
		}
		p.err = &OperationError{URL: redactor{}.text(p.token), Status: state, Err: err}
	}
}

// pollOnce sends one poll (under p.mu) and records a terminal state. It
// returns the wait before the next poll.
func (p *Poller[R]) pollOnce(ctx context.Context, async bool) (time.Duration, error) {
	var resp *Response
	var err error
	if async {
		resp, err = pollEndpoint.Go(ctx, p.b, pollTarget{p.token}).Await(ctx)
	} else {
		resp, err = pollEndpoint.Call(ctx, p.b, pollTarget{p.token})
	}
	p.polls++
	done := false
	if err == nil {
		var derr error
		if done, derr = p.isDone(resp); done {
			p.finish(resp, derr)
		}
	}
	wait := time.Duration(0)
	if err == nil && !done {
		wait = p.pollWait(resp.Header)
	}
	if st, serr := p.final.d.state(p.b); serr == nil {
		st.observe.poll(ctx, PollInfo{URL: redactor{secrets: &st.secrets}.text(p.token), Poll: p.polls, Response: resp, Err: err, Done: done, Wait: wait})
	}
	if err != nil {
		return 0, err
	}
	return wait, p.err
}

func (p *Poller[R]) wait(ctx context.Context, async bool) (R, error) {
	var zero R
	if ctx == nil {
		return zero, errors.New("kit: Poller.Wait: nil Context")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.done {
		wait, err := p.pollOnce(ctx, async)
		if err != nil {
			return zero, err
		}
		if p.done {
			break
		}
		if err := sleepCtx(ctx, wait); err != nil {
			return zero, fmt.Errorf("kit: waiting to poll %s: %w", redactor{}.text(p.token), err)
		}
	}
	if p.err != nil {
		return zero, p.err
	}
	st, err := p.final.d.state(p.b)
	if err != nil {
		return zero, err
	}
	return decodeResult[R](p.final.d.result, p.final.d.inner, st, p.last, nil, p.result)
}

// PollInfo describes one poll of a long-running operation ([Poller]).
type PollInfo struct {
	// URL is the operation's URL, redacted.
	URL string

	// Poll is the poll's number, from 1.
	Poll int

	// Response is the poll's 2xx response; nil after an error.
	Response *Response

	// Err is the poll's error (the operation's failure is not one: see
	// Done and the Poller's result).
	Err error

	// Done is true when the operation reached a terminal state.
	Done bool

	// Wait is how long the poller waits before the next poll (0 when
	// done or after an error).
	Wait time.Duration
}

// poll reports a poll to the observer's Poll hook, if any.
func (ob *observation) poll(ctx context.Context, info PollInfo) {
	if ob != nil && ob.o.Poll != nil {
		ob.o.Poll(ctx, info)
	}
}
