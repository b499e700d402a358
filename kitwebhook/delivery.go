package kitwebhook

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/kithttp/kit/internal/jsonpath"
)

// Delivery is one verified webhook delivery and its payload.
type Delivery[T any] struct {
	// ID is the delivery's id: from the scheme's headers, else from the
	// body's WithIDKey member; "" when neither has one.
	ID string
	// Event is the delivery's event type (WithEventKey, WithEventHeader);
	// "" when it has none.
	Event string
	// Time is when the sender signed it; zero for a scheme without a
	// signed timestamp.
	Time time.Time
	// Header is the request's header.
	Header http.Header
	// Body is the raw body, as verified.
	Body []byte
	// Payload is Body decoded as JSON into T, with encoding/json's rules
	// for struct tags (kit's codec).
	Payload T
}

// Unwrap reads r's body (up to WithMaxBodySize), verifies it with s and
// decodes it into a Delivery[T]: for a receiver that routes requests
// itself. Unwrap does no replay protection (a Handler does); its errors
// match ErrTooLarge, the verification errors of s, or say that the body is
// not T's JSON.
func Unwrap[T any](r *http.Request, s Scheme, opts ...Option) (*Delivery[T], error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	body, err := readBody(r, c.maxBody)
	if err != nil {
		return nil, err
	}
	m, err := s.Verify(r.Header, body, c.now(), c.tolerance)
	if err != nil {
		return nil, err
	}
	d := &Delivery[T]{ID: m.ID, Time: m.Time, Header: r.Header, Body: body}
	if d.Event, d.ID, err = c.fields(r.Header, body, d.ID); err != nil {
		return nil, err
	}
	if err := decodePayload(body, &d.Payload); err != nil {
		return nil, err
	}
	return d, nil
}

// readBody reads the whole body, refusing one over limit.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	if r.ContentLength > limit {
		return nil, fmt.Errorf("kitwebhook: reading the body: %w: Content-Length %d over the limit of %d bytes", ErrTooLarge, r.ContentLength, limit)
	}
	size := int64(512)
	if r.ContentLength > 0 {
		size = r.ContentLength + 1
	}
	buf := make([]byte, 0, size)
	lr := io.LimitReader(r.Body, limit+1)
	for {
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("kitwebhook: reading the body: %w", err)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
	if int64(len(buf)) > limit {
		return nil, fmt.Errorf("kitwebhook: reading the body: %w: over the limit of %d bytes", ErrTooLarge, limit)
	}
	return buf, nil
}

// fields reads the event type and, when the headers gave none, the id.
func (c *config) fields(header http.Header, body []byte, id string) (event, gotID string, err error) {
	gotID = id
	if c.eventHdr != "" {
		event = header.Get(c.eventHdr)
	}
	var paths []jsonpath.Path
	var idx [2]int // which value each path fills: 0 event, 1 id
	if c.eventKey != nil {
		idx[len(paths)] = 0
		paths = append(paths, c.eventKey)
	}
	if id == "" && c.idKey != nil {
		idx[len(paths)] = 1
		paths = append(paths, c.idKey)
	}
	if len(paths) == 0 {
		return event, gotID, nil
	}
	if len(paths) == 2 && (paths[0].String() == paths[1].String()) {
		paths = paths[:1]
	}
	err = jsonpath.Walk(body, paths, func(i int, dec *jsontext.Decoder) error {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		s := scalarText(v)
		if idx[i] == 0 {
			event = s
			if len(paths) == 1 && id == "" && c.idKey != nil {
				gotID = s
			}
		} else {
			gotID = s
		}
		return nil
	})
	if err != nil {
		return "", "", &PayloadError{Err: err}
	}
	return event, gotID, nil
}

// scalarText is a JSON string's text or a number's digits; "" otherwise.
func scalarText(v jsontext.Value) string {
	switch v.Kind() {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	case '0':
		return string(v)
	}
	return ""
}

// jsonOpts are kit's: encoding/json's rules on the v2 engine.
var jsonOpts = json.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv1.ReportErrorsWithLegacySemantics(false))

func decodePayload(body []byte, v any) error {
	if err := json.Unmarshal(body, v, jsonOpts); err != nil {
		return &PayloadError{Err: err}
	}
	return nil
}

// PayloadError is a verified body that is not the JSON the receiver
// expects. A Handler answers it 400: the sender's retry would not change it.
type PayloadError struct {
	// Err is the decoder's error; its text names the offset, never more of
	// the body than the JSON library quotes.
	Err error
}

func (e *PayloadError) Error() string { return "kitwebhook: decoding the payload: " + e.Err.Error() }

func (e *PayloadError) Unwrap() error { return e.Err }
