package kit

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/kithttp/kit/internal/jsonpath"
	"github.com/kithttp/kit/internal/routing"
)

// fuzzEnvelopeError is an error model with fields filled from the response.
type fuzzEnvelopeError struct {
	Code      string `json:"code"`
	Status    int    `json:"-" kit:",status"`
	RequestID string `json:"-" kit:"Request-Id,header"`
}

// FuzzEnvelope feeds arbitrary bodies to what reads envelopes: a result at a
// key (WithResultAt), a body check (WithBodyCheck) and an error model at a
// key (WithErrorModelAt). None of them panics; a result at a key is either
// what encoding/json finds at that key or a *DecodeError; a body check gives
// nil, an *HTTPError wrapping the check's error, or a *DecodeError; an error
// model is nil or has its response fields filled.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"ok":true,"channel":{"id":"C1","name":"general"}}`,
		`{"ok":false,"error":"channel_not_found"}`,
		`{"ok":true,"channel":null}`,
		`{"channel":{"id":1}}`,
		`{"error":{"code":"card_declined"}}`,
		`{"error":null}`,
		`{"error":"flat"}`,
		`[{"channel":{}}]`,
		`{"channel":{"id":"a"},"channel":{"id":"b"}}`,
		`{"ok":true,"channel":{"id":"C1"}} trailing`,
		`<html>bad gateway</html>`,
		``,
	} {
		f.Add([]byte(s))
	}
	st := &clientState{validator: defaultValidator}
	reqURL := &url.URL{Scheme: "http", Host: "example.com", Path: "/conversations.info"}
	at, _ := jsonpath.Parse("channel")
	type channel struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	type status struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	checkErr := errors.New("not ok")
	check := WithBodyCheck(func(s *status) error {
		if !s.OK {
			return checkErr
		}
		return nil
	}).(requestOption[bodyCheckOption]).s.bc
	model := WithErrorModelAt[fuzzEnvelopeError]("error").(requestOption[errorModelOption]).s.m
	f.Fuzz(func(t *testing.T, body []byte) {
		header := http.Header{"Content-Type": {"application/json"}, "Request-Id": {"req_1"}}
		resp := &Response{StatusCode: 200, Header: header, body: body,
			Request: &http.Request{Method: http.MethodPost, URL: reqURL}}

		got, err := decodeResult[channel](routing.ResultTyped, 0, st, resp, nil, at)
		var de *DecodeError
		if err != nil && (!errors.As(err, &de) || got != channel{}) {
			t.Fatalf("result at a key: %+v, %v", got, err)
		}
		var want struct {
			Channel *channel `json:"channel"`
		}
		if err == nil && len(body) > 0 && json.Valid(body) && json.Unmarshal(body, &want) == nil && want.Channel != nil && *want.Channel != got {
			t.Fatalf("result at a key: kit %+v, encoding/json %+v, for %q", got, *want.Channel, body)
		}

		pol := &callPolicy{bodyCheck: check}
		switch err := st.checkBody(pol, resp); {
		case err == nil:
		case errors.As(err, &de):
		default:
			var he *HTTPError
			if !errors.As(err, &he) || !errors.Is(err, checkErr) || he.StatusCode != 200 || he.Model == nil {
				t.Fatalf("body check: %v", err)
			}
		}

		if m := model.model(402, header, body); m != nil {
			e, ok := m.(*fuzzEnvelopeError)
			if !ok || e.Status != 402 || e.RequestID != "req_1" {
				t.Fatalf("error model %#v", m)
			}
		}
	})
}
