package kit

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// WithLogger logs every request the client sends to l: one record per
// attempt (a retried call logs each attempt; the resend after a 401 refresh
// is logged too, with the same attempt number). Records have the message
// "kit request" and these attributes:
//
//   - method: the HTTP method
//   - url: the request URL, with user info and secret-looking query values
//     redacted (as in error messages)
//   - status: the response status, when there was a response
//   - duration: from sending the request to having read its body (for a
//     response that is retried or refreshed: to receiving its headers)
//   - attempt: 1 for the first attempt, 2 for the first retry, ...
//   - error: the error of an attempt that got no usable response (a
//     connection error, a body over the limit, ...); an error status is
//     given by status alone
//
// The level is Info for an attempt that got a 2xx response and Warn for
// every other attempt (an error status, a connection error, an attempt
// that is retried). Headers are never logged, so credentials are not
// either. The logger is called with the call's context, from whichever
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

// logAttempt logs one attempt; status is 0 when there was no response.
func (st *clientState) logAttempt(ctx context.Context, req *http.Request, attempt, status int, start time.Time, err error) {
	if st.logger == nil {
		return
	}
	level := slog.LevelInfo
	if err != nil || status < 200 || status > 299 {
		level = slog.LevelWarn
	}
	if !st.logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 6)
	attrs = append(attrs,
		slog.String("method", req.Method),
		slog.String("url", redactURL(req.URL)),
	)
	if status != 0 {
		attrs = append(attrs, slog.Int("status", status))
	}
	attrs = append(attrs,
		slog.Duration("duration", time.Since(start)),
		slog.Int("attempt", attempt),
	)
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	st.logger.LogAttrs(ctx, level, "kit request", attrs...)
}
