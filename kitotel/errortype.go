package kitotel

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"

	"github.com/kithttp/kit"
)

// errorType is the error.type of a failed call, attempt, walk or stream:
// the status code of an error status ("503"), else one of a few classes
// (timeout, canceled, name_resolution_error, connection_error,
// body_too_large, decode_error, validation_error, rate_limited, closed),
// else "_OTHER". Never the error's text, which may hold a URL. "" for a
// nil error.
func errorType(err error, status int) string {
	if err == nil {
		return ""
	}
	if status == 0 {
		if he, ok := errors.AsType[*kit.HTTPError](err); ok {
			status = he.StatusCode
		}
	}
	if status != 0 {
		if status >= 100 && status < 600 {
			return statusTexts[status-100]
		}
		return strconv.Itoa(status)
	}
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, kit.ErrClosed):
		return "closed"
	case errors.Is(err, kit.ErrBodyTooLarge):
		return "body_too_large"
	case errors.As(err, &dnsErr):
		return "name_resolution_error"
	}
	if _, ok := errors.AsType[*kit.DecodeError](err); ok {
		return "decode_error"
	}
	if _, ok := errors.AsType[*kit.ValidationError](err); ok {
		return "validation_error"
	}
	if _, ok := errors.AsType[net.Error](err); ok || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "connection_error"
	}
	return "_OTHER"
}

// statusTexts are the status codes 100..599 as text, made once.
var statusTexts = func() []string {
	s := make([]string, 500)
	for i := range s {
		s[i] = strconv.Itoa(100 + i)
	}
	return s
}()
