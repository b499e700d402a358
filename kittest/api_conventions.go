package kittest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// api_conventions.go: the routes in the shapes of real APIs (Stripe-like
// idempotent payments, a Slack-like method), documented on API under "Real
// API conventions".

// Payment is a payment made by POST /payments.
type Payment struct {
	ID          string `json:"id"`     // "pay_<n>"
	Object      string `json:"object"` // "payment"
	Amount      int64  `json:"amount"`
	Currency    string `json:"currency"`
	Source      string `json:"source"`
	Description string `json:"description,omitempty"`
	Status      string `json:"status"`  // "succeeded"
	Created     int64  `json:"created"` // Unix seconds
}

// StripeError is the error model of the Stripe-like routes, found at the
// key "error" of their error bodies. Status, RequestID and ShouldRetry are
// not in the body: kit fills them from the response (their `kit` tags), so
// an error found with errors.As says what support needs:
//
//	c, _ := kit.NewClient(srv.URL, kit.WithErrorModelAt[kittest.StripeError]("error"))
//	var se *kittest.StripeError
//	if errors.As(err, &se) { log.Print(se.Code, se.Status, se.RequestID) }
type StripeError struct {
	Type        string `json:"type"` // card_error, invalid_request_error, idempotency_error
	Code        string `json:"code,omitempty"`
	DeclineCode string `json:"decline_code,omitempty"`
	Message     string `json:"message"`
	Param       string `json:"param,omitempty"`

	Status      int    `json:"-" kit:",status"`
	RequestID   string `json:"-" kit:"Request-Id,header"`
	ShouldRetry string `json:"-" kit:"Stripe-Should-Retry,header"` // "true", "false" or ""
}

// Error returns "stripe: <type>/<code>: <message> (status, request id)".
func (e *StripeError) Error() string {
	var b strings.Builder
	b.WriteString("stripe: ")
	b.WriteString(e.Type)
	if e.Code != "" {
		b.WriteString("/" + e.Code)
	}
	b.WriteString(": " + e.Message)
	if e.Status != 0 || e.RequestID != "" {
		fmt.Fprintf(&b, " (%d, %s)", e.Status, e.RequestID)
	}
	return b.String()
}

// SlackStatus is the envelope of every answer of the Slack-like route:
// {"ok":true,…} or {"ok":false,"error":"<code>"}, always at HTTP 200. Its
// Check method is a check for kit.WithBodyCheck:
//
//	kit.WithBodyCheck((*kittest.SlackStatus).Check)
type SlackStatus struct {
	OK      bool   `json:"ok"`
	Error   string `json:"error,omitempty"`
	Warning string `json:"warning,omitempty"`
}

// Check returns a *SlackError when OK is false, else nil.
func (s *SlackStatus) Check() error {
	if s.OK {
		return nil
	}
	return &SlackError{Code: s.Error}
}

// SlackError is an {"ok":false} answer of the Slack-like route.
type SlackError struct {
	Code string // channel_not_found, invalid_arguments, ...
}

// Error returns "slack: <code>".
func (e *SlackError) Error() string { return "slack: " + e.Code }

// SlackChannel is the channel of a {"ok":true,"channel":{…}} answer.
type SlackChannel struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	IsChannel  bool   `json:"is_channel"`
	NumMembers int    `json:"num_members"`
}

// Private implementation past this point.

// apiConventions is the state of the convention routes: payments, the
// saved answers of idempotency keys, and the attempts per key.
type apiConventions struct {
	requests int // Request-Id counter
	payments []Payment
	keys     map[string]*apiKeyed // by Idempotency-Key
}

// apiKeyed is what an Idempotency-Key has seen.
type apiKeyed struct {
	fingerprint [32]byte // of the body of its first request
	attempts    int
	saved       bool // status and body hold the answer to replay
	status      int
	body        []byte
	requestID   string
}

func (c *apiConventions) reset() {
	*c = apiConventions{keys: make(map[string]*apiKeyed)}
}

// apiMaxIdempotencyKey is Stripe's limit on a key's length.
const apiMaxIdempotencyKey = 255

func (a *API) conventionRoutes() {
	a.handle("POST /payments", apiAuthOptional, a.createPayment)
	a.handle("GET /payments/{id}", apiAuthOptional, a.getPayment)
	a.handle("POST /conversations.info", apiAuthOptional, a.conversationsInfo)
}

// stripeError writes a Stripe-shaped error.
func stripeError(w http.ResponseWriter, status int, e StripeError) {
	apiWriteJSON(w, status, map[string]StripeError{"error": e})
}

// requestID gives the request its Request-Id; a.mu must be held.
func (a *API) requestIDLocked(w http.ResponseWriter) string {
	a.conv.requests++
	id := fmt.Sprintf("req_%06d", a.conv.requests)
	w.Header().Set("Request-Id", id)
	return id
}

func (a *API) createPayment(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	reqID := a.requestIDLocked(w)
	a.mu.Unlock()
	q := r.URL.Query()
	lockTimeouts, msg := apiIntParam(q, "lock_timeouts", 0, 0, 1000)
	lose, msg2 := apiIntParam(q, "lose_response", 0, 0, 1000)
	if msg = cmp.Or(msg, msg2); msg != "" {
		stripeError(w, http.StatusBadRequest, StripeError{Type: "invalid_request_error", Code: "parameter_invalid", Message: msg})
		return
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/x-www-form-urlencoded" {
		stripeError(w, http.StatusUnsupportedMediaType, StripeError{Type: "invalid_request_error",
			Message: "Content-Type must be application/x-www-form-urlencoded"})
		return
	}
	body, ok := apiReadBody(w, r)
	if !ok {
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if len(key) > apiMaxIdempotencyKey {
		stripeError(w, http.StatusBadRequest, StripeError{Type: "idempotency_error",
			Message: "Idempotency-Key is longer than " + strconv.Itoa(apiMaxIdempotencyKey) + " characters"})
		return
	}
	fp := sha256.Sum256(body)

	a.mu.Lock()
	k := &apiKeyed{fingerprint: fp}
	if key != "" {
		if seen, ok := a.conv.keys[key]; ok {
			k = seen
		} else {
			a.conv.keys[key] = k
		}
	}
	if k.fingerprint != fp {
		a.mu.Unlock()
		stripeError(w, http.StatusBadRequest, StripeError{Type: "idempotency_error",
			Message: "Keys for idempotent requests can only be used with the same parameters they were first used with."})
		return
	}
	k.attempts++
	attempt := k.attempts
	if attempt <= lockTimeouts {
		a.mu.Unlock()
		w.Header().Set("Stripe-Should-Retry", "true")
		stripeError(w, http.StatusConflict, StripeError{Type: "invalid_request_error", Code: "lock_timeout",
			Message: "This object cannot be accessed right now because another API request or Stripe process is currently accessing it."})
		return
	}
	lost := attempt <= lockTimeouts+lose
	if k.saved {
		a.stats.IdempotentReplays++
		status, saved, orig := k.status, k.body, k.requestID
		a.mu.Unlock()
		if lost {
			panic(http.ErrAbortHandler)
		}
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Original-Request", orig)
		if status == http.StatusPaymentRequired {
			w.Header().Set("Stripe-Should-Retry", "false")
		}
		apiWriteBody(w, status, saved)
		return
	}
	status, answer, invalid := a.chargeLocked(body)
	if invalid {
		if key != "" {
			delete(a.conv.keys, key) // nothing is saved for a request that failed validation
		}
		a.mu.Unlock()
		apiWriteBody(w, status, answer)
		return
	}
	if key != "" {
		k.saved, k.status, k.body, k.requestID = true, status, answer, reqID
	}
	a.mu.Unlock()
	if lost {
		panic(http.ErrAbortHandler) // the work is done; the answer never arrives
	}
	if status == http.StatusPaymentRequired {
		w.Header().Set("Stripe-Should-Retry", "false")
	}
	apiWriteBody(w, status, answer)
}

// chargeLocked validates a payment's form body and makes the payment. It
// returns the answer; invalid is true for a request that did nothing (a
// 400). a.mu must be held.
func (a *API) chargeLocked(body []byte) (status int, answer []byte, invalid bool) {
	fail := func(status int, e StripeError) (int, []byte, bool) {
		b, _ := apiEncodeJSON(map[string]StripeError{"error": e})
		return status, b, status == http.StatusBadRequest
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return fail(http.StatusBadRequest, StripeError{Type: "invalid_request_error", Message: "the body is not a valid form"})
	}
	amountText := form.Get("amount")
	if amountText == "" {
		return fail(http.StatusBadRequest, StripeError{Type: "invalid_request_error", Code: "parameter_missing", Param: "amount", Message: "Missing required param: amount."})
	}
	amount, err := strconv.ParseInt(amountText, 10, 64)
	if err != nil || amount <= 0 {
		return fail(http.StatusBadRequest, StripeError{Type: "invalid_request_error", Code: "parameter_invalid", Param: "amount", Message: "Invalid positive integer: amount."})
	}
	currency := strings.ToLower(form.Get("currency"))
	if len(currency) != 3 || strings.Trim(currency, "abcdefghijklmnopqrstuvwxyz") != "" {
		return fail(http.StatusBadRequest, StripeError{Type: "invalid_request_error", Code: "parameter_invalid", Param: "currency", Message: "Invalid currency: " + strconv.Quote(form.Get("currency")) + "."})
	}
	source := form.Get("source")
	if source == "" {
		source = "tok_visa"
	}
	if source == "tok_chargeDeclined" {
		return fail(http.StatusPaymentRequired, StripeError{Type: "card_error", Code: "card_declined", DeclineCode: "generic_decline", Param: "source", Message: "Your card was declined."})
	}
	p := Payment{
		ID:          fmt.Sprintf("pay_%06d", len(a.conv.payments)+1),
		Object:      "payment",
		Amount:      amount,
		Currency:    currency,
		Source:      source,
		Description: form.Get("description"),
		Status:      "succeeded",
		Created:     a.now().Unix(),
	}
	a.conv.payments = append(a.conv.payments, p)
	a.stats.Payments++
	b, _ := apiEncodeJSON(p)
	return http.StatusOK, b, false
}

func (a *API) getPayment(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	a.mu.Lock()
	a.requestIDLocked(w)
	var found *Payment
	for i := range a.conv.payments {
		if a.conv.payments[i].ID == id {
			p := a.conv.payments[i]
			found = &p
		}
	}
	a.mu.Unlock()
	if found == nil {
		stripeError(w, http.StatusNotFound, StripeError{Type: "invalid_request_error", Code: "resource_missing", Param: "id",
			Message: "No such payment: " + strconv.Quote(id)})
		return
	}
	apiWriteJSON(w, http.StatusOK, found)
}

// apiChannelNames are the channels C1..C5, one a team.
var apiChannelNames = [...]string{"platform", "payments", "growth", "mobile", "data-ml"}

func (a *API) conversationsInfo(w http.ResponseWriter, r *http.Request) {
	body, ok := apiReadBody(w, r)
	if !ok {
		return
	}
	var channel string
	if apiIsJSONType(r) {
		var in struct {
			Channel string `json:"channel"`
		}
		if json.Unmarshal(bytes.TrimSpace(body), &in) != nil {
			apiWriteJSON(w, http.StatusOK, SlackStatus{Error: "invalid_json"})
			return
		}
		channel = in.Channel
	} else {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			apiWriteJSON(w, http.StatusOK, SlackStatus{Error: "invalid_form_data"})
			return
		}
		channel = form.Get("channel")
	}
	if channel == "" {
		apiWriteJSON(w, http.StatusOK, SlackStatus{Error: "invalid_arguments"})
		return
	}
	n, ok := apiParseID(strings.TrimPrefix(channel, "C"))
	team, found := apiTeamByID(n)
	if !strings.HasPrefix(channel, "C") || !ok || !found {
		apiWriteJSON(w, http.StatusOK, SlackStatus{Error: "channel_not_found"})
		return
	}
	a.mu.Lock()
	team = a.teamLocked(team)
	a.mu.Unlock()
	apiWriteJSON(w, http.StatusOK, struct {
		OK      bool         `json:"ok"`
		Channel SlackChannel `json:"channel"`
	}{true, SlackChannel{ID: channel, Name: apiChannelNames[team.ID-1], IsChannel: true, NumMembers: len(team.MemberIDs)}})
}
