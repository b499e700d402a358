package kit

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// WithLogger logs every request the client sends to l: one record per
// attempt (a retried call logs each attempt; the resend after a 401 refresh
// is logged too, with the same attempt number). Records have the message
// "kit request" and these attributes:
//
//   - method: the HTTP method
//   - url: the request URL, redacted as in error messages: user info,
//     secret-looking query values and secret-looking path parameters
//     ({token}, every segment of a {token...}) are "REDACTED"
//   - status: the response status, when there was a response
//   - duration: from sending the request to having read its body (for an
//     error status: the part of it kept in the [*HTTPError]; for a streamed
//     result, an io.ReadCloser or a [Stream]: to having its headers)
//   - attempt: 1 for the first attempt, 2 for the first retry, ...
//   - error: the error of an attempt that got no usable response (a
//     connection error, a body over the limit, ...); an error status is
//     given by status alone
//
// The level is Info for an attempt that got a 2xx response and Warn for
// every other attempt (an error status, a connection error, an attempt
// that is retried). Headers are never logged, so credentials are not
// either. An Observer's LogAttrs adds attributes of its own to every
// record (kitotel adds trace_id and span_id). The logger is called with the call's context, from whichever
// goroutine makes the call (async calls included), so its handler must be
// safe for concurrent use, as slog's own handlers are. A nil l means no
// logging, which is the default.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

// Private implementation past this point.

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applyClient(c *clientConfig) error {
	c.logger = o.l
	return nil
}

func (o loggerOption) String() string { return "kit.WithLogger(...)" }

// logLayer is the chain's logging layer: one record per attempt, below
// auth, so the resend after a 401 is logged too. It holds the logger, the
// observer's LogAttrs hook and the client's secrets (for the URL).
type logLayer struct {
	logger   *slog.Logger
	logAttrs func(context.Context, []slog.Attr) []slog.Attr // Observer.LogAttrs; nil: none
	secrets  *secrets
}

// wrap returns the layer on top of next.
func (l *logLayer) wrap(next Sender) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		start := time.Now()
		resp, err := next(ctx, req)
		l.logAttempt(ctx, req, start, resp, err)
		return resp, err
	}
}

// logAttempt logs one attempt.
func (l *logLayer) logAttempt(ctx context.Context, req *Request, start time.Time, resp *Response, err error) {
	status := 0
	var he *HTTPError
	switch {
	case resp != nil:
		status = resp.StatusCode
	case errors.As(err, &he):
		status, err = he.StatusCode, nil // the status says it
	}
	level := slog.LevelInfo
	if err != nil || !is2xx(status) {
		level = slog.LevelWarn
	}
	if !l.logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 6)
	attrs = append(attrs,
		slog.String("method", req.Method),
		slog.String("url", l.secrets.redactorOf(req).url(req.URL)),
	)
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	attrs = append(attrs,
		slog.Duration("duration", time.Since(start)),
		slog.Int("attempt", max(req.attempt, 1)),
	)
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	if l.logAttrs != nil {
		attrs = l.logAttrs(ctx, attrs)
	}
	l.logger.LogAttrs(ctx, level, "kit request", attrs...)
}
