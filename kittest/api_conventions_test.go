package kittest

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

const apiTForm = "application/x-www-form-urlencoded"

func TestAPI_PaymentsIdempotency(t *testing.T) {
	api, srv := apiTStart(t)
	pay := func(key, body, query string) apiTResp {
		h := map[string]string{}
		if key != "" {
			h["Idempotency-Key"] = key
		}
		return apiTDo(t, srv, apiTReq{method: "POST", path: "/payments" + query, ctype: apiTForm, body: body, header: h})
	}

	first := pay("k1", "amount=2000&currency=EUR&description=order+6735", "")
	first.wantStatus(t, http.StatusOK)
	var p Payment
	first.decode(t, &p)
	if p.ID != "pay_000001" || p.Amount != 2000 || p.Currency != "eur" || p.Source != "tok_visa" || p.Status != "succeeded" || p.Description != "order 6735" {
		t.Fatalf("payment = %+v", p)
	}
	if id := first.header.Get("Request-Id"); !strings.HasPrefix(id, "req_") || first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first answer headers = %v", first.header)
	}

	replay := pay("k1", "amount=2000&currency=EUR&description=order+6735", "")
	replay.wantStatus(t, http.StatusOK)
	if string(replay.body) != string(first.body) || replay.header.Get("Idempotent-Replayed") != "true" ||
		replay.header.Get("Original-Request") != first.header.Get("Request-Id") || replay.header.Get("Request-Id") == first.header.Get("Request-Id") {
		t.Fatalf("replay = %d %v %s", replay.status, replay.header, replay.body)
	}

	other := pay("k1", "amount=1&currency=eur", "")
	other.wantStatus(t, http.StatusBadRequest)
	var e struct{ Error StripeError }
	other.decode(t, &e)
	if e.Error.Type != "idempotency_error" {
		t.Fatalf("same key, other body = %s", other.body)
	}

	pay("", "amount=5&currency=usd", "").wantStatus(t, http.StatusOK)
	pay("", "amount=5&currency=usd", "").wantStatus(t, http.StatusOK)
	if st := api.Stats(); st.Payments != 3 || st.IdempotentReplays != 1 {
		t.Fatalf("stats = %d payments, %d replays; want 3, 1", st.Payments, st.IdempotentReplays)
	}
	got := apiTGet(t, srv, "/payments/pay_000001")
	got.wantStatus(t, http.StatusOK)
	missing := apiTGet(t, srv, "/payments/pay_999")
	missing.wantStatus(t, http.StatusNotFound)
	missing.decode(t, &e)
	if e.Error.Code != "resource_missing" || missing.header.Get("Request-Id") == "" {
		t.Fatalf("missing = %s", missing.body)
	}
	api.Reset()
	if st := api.Stats(); st.Payments != 0 {
		t.Fatalf("after Reset: %d payments", st.Payments)
	}
	pay("k1", "amount=1&currency=eur", "").wantStatus(t, http.StatusOK) // keys are forgotten too
}

func TestAPI_PaymentsErrors(t *testing.T) {
	api, srv := apiTStart(t)
	for _, tc := range []struct {
		body, ctype, query string
		status             int
		typ, code          string
		shouldRetry        string
	}{
		{"currency=eur", apiTForm, "", 400, "invalid_request_error", "parameter_missing", ""},
		{"amount=-3&currency=eur", apiTForm, "", 400, "invalid_request_error", "parameter_invalid", ""},
		{"amount=3&currency=euro", apiTForm, "", 400, "invalid_request_error", "parameter_invalid", ""},
		{"amount=3&currency=eur&source=tok_chargeDeclined", apiTForm, "", 402, "card_error", "card_declined", "false"},
		{`{"amount":3}`, "application/json", "", 415, "invalid_request_error", "", ""},
		{"amount=3&currency=eur", apiTForm, "?lock_timeouts=x", 400, "invalid_request_error", "parameter_invalid", ""},
		{"amount=3&currency=eur", apiTForm, "?lock_timeouts=1", 409, "invalid_request_error", "lock_timeout", "true"},
	} {
		r := apiTDo(t, srv, apiTReq{method: "POST", path: "/payments" + tc.query, ctype: tc.ctype, body: tc.body})
		r.wantStatus(t, tc.status)
		var e struct{ Error StripeError }
		r.decode(t, &e)
		if e.Error.Type != tc.typ || e.Error.Code != tc.code || e.Error.Message == "" || r.header.Get("Stripe-Should-Retry") != tc.shouldRetry {
			t.Errorf("%s %s: %v %s", tc.body, tc.query, r.header, r.body)
		}
	}
	if n := api.Stats().Payments; n != 0 {
		t.Fatalf("%d payments made by failing requests", n)
	}
	long := strings.Repeat("k", 256)
	r := apiTDo(t, srv, apiTReq{method: "POST", path: "/payments", ctype: apiTForm, body: "amount=1&currency=eur", header: map[string]string{"Idempotency-Key": long}})
	r.wantStatus(t, http.StatusBadRequest)
}

// A lost response is lost after the work: a key's retry replays it.
func TestAPI_PaymentsScripts(t *testing.T) {
	api, srv := apiTStart(t)
	post := func(key string) (apiTResp, error) {
		req, _ := http.NewRequest("POST", srv.URL+"/payments?lock_timeouts=1&lose_response=1", strings.NewReader("amount=9&currency=eur"))
		req.Header.Set("Content-Type", apiTForm)
		req.Header.Set("Idempotency-Key", key)
		resp, err := srv.Client().Do(req)
		if err != nil {
			return apiTResp{}, err
		}
		defer resp.Body.Close()
		return apiTResp{status: resp.StatusCode, header: resp.Header}, nil
	}
	if r, err := post("s1"); err != nil || r.status != http.StatusConflict {
		t.Fatalf("attempt 1 = %v, %v; want a 409", r.status, err)
	}
	if _, err := post("s1"); err == nil {
		t.Fatal("attempt 2 got an answer; want the connection cut")
	}
	if n := api.Stats().Payments; n != 1 {
		t.Fatalf("%d payments after the lost answer, want 1", n)
	}
	r, err := post("s1")
	if err != nil || r.status != http.StatusOK || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("attempt 3 = %v %v, %v; want the replay", r.status, r.header, err)
	}
	if st := api.Stats(); st.Payments != 1 || st.IdempotentReplays != 1 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestAPI_SlackConversationsInfo(t *testing.T) {
	_, srv := apiTStart(t)
	for _, tc := range []struct{ ctype, body, want string }{
		{"application/json", `{"channel":"C2"}`, ""},
		{apiTForm, "channel=C2", ""},
		{"application/json", `{"channel":"C9"}`, "channel_not_found"},
		{"application/json", `{"channel":"X2"}`, "channel_not_found"},
		{"application/json", `{}`, "invalid_arguments"},
		{"application/json", `{`, "invalid_json"},
		{apiTForm, "channel=%zz", "invalid_form_data"},
	} {
		r := apiTDo(t, srv, apiTReq{method: "POST", path: "/conversations.info", ctype: tc.ctype, body: tc.body})
		r.wantStatus(t, http.StatusOK)
		var got struct {
			SlackStatus
			Channel SlackChannel `json:"channel"`
		}
		r.decode(t, &got)
		err := got.Check()
		var se *SlackError
		switch {
		case tc.want == "" && (err != nil || got.Channel.ID != "C2" || got.Channel.Name != "payments" || got.Channel.NumMembers == 0):
			t.Errorf("%s: %s", tc.body, r.body)
		case tc.want != "" && (!errors.As(err, &se) || se.Code != tc.want || err.Error() != "slack: "+tc.want):
			t.Errorf("%s: %s, err %v; want %s", tc.body, r.body, err, tc.want)
		}
	}
}

func TestStripeErrorText(t *testing.T) {
	e := &StripeError{Type: "card_error", Code: "card_declined", Message: "Your card was declined.", Status: 402, RequestID: "req_1"}
	if got, want := e.Error(), "stripe: card_error/card_declined: Your card was declined. (402, req_1)"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got := (&StripeError{Type: "api_error", Message: "m"}).Error(); got != "stripe: api_error: m" {
		t.Fatalf("Error() = %q", got)
	}
}
