package kittest

import (
	"bytes"
	"net/http"
	"sync"
	"time"
)

// API is an in-memory REST API with deterministic demo data: users, teams
// and posts, every common pagination style over the users collection, bearer-token
// authentication, conditional requests, optional request signing, streams
// (server-sent events, NDJSON, huge JSON arrays) and a few failure helpers. It serves kit's runnable
// examples and tour, and is meant for users' own tests:
//
//	srv := httptest.NewServer(kittest.NewAPI())
//	defer srv.Close()
//
// API implements http.Handler and is safe for concurrent use. It never
// panics on a request: malformed input is answered with a JSON error.
//
// Every JSON response has Content-Type application/json. Errors have the
// body {"error": "<code>", "message": "<text>"}, and 422 validation errors
// add "fields": {"<field>": "<problem>"}: the error model, whose Go type is
// APIError (for kit.WithErrorModel[kittest.APIError]()). The codes are bad_request (400),
// unauthorized, invalid_credentials and invalid_signature (401), not_found (404),
// method_not_allowed (405, with an Allow header), conflict (409),
// payload_too_large (413, request bodies are limited to 1 MiB),
// unsupported_media_type (415) and validation_failed (422).
//
// # Data
//
// A user is {"id", "name", "email", "team_id", "active", "created_at"};
// seeded users have ids 1..n (see WithUsers), team_id cycling over 1..5,
// active unless the id is divisible by 3. User 1, "Ada Lovelace", is the
// demo account returned by /me. A team is {"id", "name", "member_ids"}; the
// five teams are Platform, Payments, Growth, Mobile and "Data & ML". A post
// is {"id", "user_id", "title", "body"}; each of the first 20 users has two.
//
// # Routes
//
//	GET    /health                      {"status":"ok"}
//	GET    /users                       {"data","total","page","page_size"}; page, page_size
//	POST   /users                       create (201)
//	GET    /users/{id}                  one user, with an ETag (304 if not modified)
//	PUT    /users/{id}                  full replace
//	PATCH  /users/{id}                  merge the given fields
//	DELETE /users/{id}                  204, also deletes the user's posts
//	GET    /users/{id}/posts            JSON array of posts
//	GET    /teams                       JSON array of teams
//	GET    /teams/{id}                  one team, with an ETag (304 if not modified)
//	POST   /teams/{id}/users?team=NAME  bulk create (JSON array), 201 with the team
//	GET    /teams/{id}/members          the team's users, like /users; page, page_size
//	GET    /offset/teams/{id}/members   the team's users, like /offset/users
//	GET    /cursor/teams/{id}/members   the team's users, like /cursor/users
//	GET    /linked/teams/{id}/members   the team's users, like /linked/users
//	GET    /paged/users                 {"data"}; page, page_size
//	GET    /offset/users                {"items","offset","limit","total"}; offset, limit
//	GET    /cursor/users                {"results","meta":{"next_cursor"}}; cursor, limit
//	GET    /cursor-flat/users           {"results","next_cursor"}; cursor, limit
//	GET    /linked/users                JSON array and a Link header; page, per_page
//	GET    /nested/users                {"payload":{"records"},"page"}; page, page_size
//	GET    /clamped/users               like /paged, but past the end repeats the last page
//	GET    /zero/users                  {"data","page"} and a Link header: pages count from 0; page, page_size
//	GET    /stuck/users                 like /cursor, but next_cursor is always "stuck"
//	GET    /marker/users                {"entries","limit","next_marker"} (Box); marker, limit
//	GET    /token/users                 {"users","nextPageToken"} (Google); pageToken, pageSize
//	GET    /stripe/users                {"object","data","has_more","url"}; starting_after (a user id), limit
//	GET    /next/users                  {"data","links":{"next"},"meta"}: the next page's URL in the body; page, page_size
//	POST   /search/users                {"filter","page_size","start_cursor"} -> {"results","next_cursor","has_more"}
//	GET    /activity                    {"items","paging":{"after"}}: records of several kinds ("kind"); since, limit
//	POST   /charges                     form body with nested keys (metadata[k], expand[N], items[N][price]); 201
//	GET    /filter/users                deepObject query objects: filter[team_id], filter[active], id[gt|gte|lt|lte]; ids=3,5,8 (a list joined: csv); a JSON array
//	ANY    /brackets                    the query and form body as Rails, PHP and Stripe read brackets: {"query","form"}
//	POST   /login                       {"access_token","token_type","expires_in"}
//	POST   /flows/login                 the same token; wrong credentials: 400 with a LoginFlow, not an APIError
//	POST   /oauth/token                 OAuth 2.0 client credentials grant (form-encoded)
//	GET    /me                          the demo user (token required)
//	GET    /private/reports             {"data":[...]} (token required)
//	ANY    /status/{code}               responds with status code (200-599)
//	GET    /slow?ms=N                   waits N ms (default 1000, max 30000)
//	GET    /text                        text/plain "hello, not json"
//	GET    /big?bytes=N                 a JSON string of N 'a's (default 1024, max 64 MiB)
//	POST   /uploads                     multipart/form-data upload; 201 with an Upload report
//	GET    /uploads/{id}                the Upload report again
//	PUT    /files/{name}                raw upload of the body; 201 with an Upload report
//	GET    /download?bytes=N            N bytes generated on the fly (default 1 MiB); Range, If-Range, ETag; stall_after=K
//	POST   /exports                     {"bytes":N}: 202 Accepted with a Location
//	GET    /exports/{id}                {"id","status":"done","bytes"}
//	GET    /events                      text/event-stream of numbered events; count, retry, drop_every, stall_after, done, ...
//	POST   /lro/jobs                    {"polls","fail","never","retry_after"}: 202 with Operation-Location and Location
//	GET    /lro/jobs/{id}               202 {"status":"running"} until the job ends, then 200 succeeded (with "result") or failed
//	POST   /chat                        {"message"}: a reply streamed token by token (text/event-stream)
//	GET    /users.ndjson                the users as NDJSON (application/x-ndjson); the listing filters
//	GET    /records?count=N             N generated records (default 1000) as one JSON array
//	GET    /records.ndjson?count=N      the same records as NDJSON
//	ANY    /echo, /echo/{rest...}       describes the request it received
//	GET    /limited/users               /users under a GitHub-style rate limit (see below)
//	GET    /limited/users/{id}          /users/{id} (ETag, 304) under the same limit
//	POST   /payments                    Stripe-like: form body, Idempotency-Key, {"error":{…}} errors, Request-Id
//	GET    /payments/{id}               the payment
//	POST   /conversations.info          Slack-like: always 200, {"ok":true,"channel"} or {"ok":false,"error"}
//
// All user listings share the filters active=true|false, team_id=N and
// q=<case-insensitive substring of the name>, and are ordered by id. The
// /teams/{id}/members listings are nested collections for paged endpoints
// (kit.Paged): their team is the one in the path (a team_id parameter is
// ignored), an unknown team is a 404, and their Link headers point at
// "members?page=...". The
// cursor is opaque; on the last page next_cursor is null in /cursor/users
// and "" in /cursor-flat/users. Page
// numbers start at 1 (at 0 in /zero/users, whose default page is 0); page sizes and limits default to 20 and must be
// between 1 and 100; a malformed or out-of-range paging parameter, filter
// or cursor is a 400.
//
// Link headers (on /linked/users) carry path-relative references such as
// <users?page=3&per_page=10>, to be resolved against the request URL as RFC
// 3986 describes, so they stay correct when the API is mounted under a
// prefix with http.StripPrefix; the request's other query parameters are
// kept. Likewise the Location of a 3xx from /status/{code} is "../health"
// and that of a created user "users/<id>".
//
// In request bodies, unknown fields, "id" and "created_at" are ignored, and
// null resets a field to its default; "active" defaults to true on create
// and replace. /status/{code} also takes retry_after=N, which adds a
// Retry-After header.
//
// /me and /private/reports always require an "Authorization: Bearer <token>"
// header with a token from /login; with WithRequireAuth(true) every route
// except /login, /health and /status/{code} does. A missing or invalid token
// is a 401 with the header WWW-Authenticate: Bearer error="invalid_token".
// Requests that match no route get their 404 or 405 without a token check.
//
// GET /users/{id} and GET /teams/{id} send a strong ETag: the quoted
// lowercase hex of the first 8 bytes of the SHA-256 of the exact JSON body,
// so it changes whenever the body does (after a PUT or PATCH that changes
// the user, or when the team's members change). A request whose
// If-None-Match is "*" or lists an entity tag weakly equal to it (RFC 9110
// §13.1.2: W/ prefixes are ignored) gets 304 Not Modified with the ETag
// header and no body, counted in Stats.NotModified. A malformed
// If-None-Match is ignored.
//
// The /limited routes behave like GitHub's REST API under its rate limit
// (WithRateQuota, default 60 requests a minute): every response carries
// X-RateLimit-Limit, -Remaining, -Used, -Reset (a Unix time in seconds) and
// -Resource, and Cache-Control: private, max-age=N (?max_age=N, default
// 60). A request past the quota is a 403 with the same headers, counted in
// Stats.RateLimited; a 304 Not Modified is counted in Stats.NotModified and
// not against the quota.
//
// POST /oauth/token is an OAuth 2.0 token endpoint for the client
// credentials grant (RFC 6749 section 4.4): an
// application/x-www-form-urlencoded body with grant_type=client_credentials
// and the client's credentials, either as client_id and client_secret in
// the body or as HTTP Basic (section 2.3.1), not both. The client id and
// secret are the username and password of WithCredentials. It answers like
// /login, and its tokens are valid wherever /login's are; errors follow
// section 5.2, {"error","error_description"} (with "message" too): a body
// that is not a form is invalid_request (400), another grant type
// unsupported_grant_type (400), wrong credentials invalid_client (401). It
// counts in Stats.Logins.
//
// POST /uploads takes a multipart/form-data body, read as a stream: any
// number of text parts (each at most 1 MiB; a part whose Content-Type is
// application/json must hold valid JSON) and file parts (a filename in
// their Content-Disposition) of any size, which are hashed, not kept. It
// answers 201 with the Upload report and a Location "uploads/<id>". A body
// that is not multipart/form-data is a 415; a malformed one, one without
// parts, or a part without a name, a 400. PUT /files/{name} reports a raw
// body the same way, as one file. GET /download?bytes=N serves N bytes (at
// most 1 TiB) of application/octet-stream with a Content-Length,
// generated as they are sent; DownloadContent gives the same bytes. It
// has Accept-Ranges: bytes and a strong ETag, and answers a Range (one or
// several) with 206 Partial Content, unless an If-Range no longer
// matches. With stall_after=K a response that starts before byte K sends
// the bytes up to K and then nothing until the client gives up: a download
// that goes idle, which a client resumes with Range: bytes=K- (see
// kit.WithIdleTimeout). POST
// /exports starts an export of {"bytes": N} and answers 202 Accepted with
// a Location "exports/<id>" to follow; GET on it reports the export done.
//
// # Real API shapes
//
// /marker/users is Box's marker list and /token/users Google's page-token
// list: the page answers the request's token parameter X with next_X (in
// the API's case style: next_marker, nextPageToken), absent on the last
// page. /stripe/users is Stripe's list: starting_after is the id of the last user
// of the page before, and has_more is false on the last page, even a full
// one (a client that ignores it sends one request too many). /next/users
// names the next page's URL at links.next, a path-relative reference like
// "users?page=2&page_size=20" that keeps the request's other parameters,
// and null on the last page. POST /search/users is Notion's search: the
// JSON body {"filter":{"active","team_id","q"},"page_size","start_cursor"}
// must come with every page, and the answer has "results", "next_cursor"
// and "has_more". POST /charges takes a Stripe-like form body with nested
// keys (amount, currency, metadata[KEY], expand[N], items[N][price],
// items[N][quantity]; indexes from 0 without gaps) and answers 201 with the
// charge it read, or a 400 naming the first key it does not expect: a key
// nested otherwise (metadata=x, expand[]=x), or sent twice. GET /activity
// is a feed whose records are of several kinds, told apart by "kind"
// (joined, deactivated, and badge, a kind a client's document may not
// know), walked with since and the next cursor at paging.after.
//
// # Streams
//
// GET /events is a server-sent event stream (text/event-stream) of count
// numbered events (default 10, at most 1,000,000), each
//
//	id: N
//	event: tick
//	data: {"seq":N,"text":"event N"}
//
// with N from 1, or from the one after a Last-Event-ID header's value (an
// integer; anything else is a 400), so that a client that reconnects
// resumes where it was. The query parameters script the stream: retry=MS
// sends "retry: MS" first; heartbeat=true a comment line before each
// event; delay_ms=N (at most 1000) waits between events; done=true ends
// the stream with "data: [DONE]"; stall_after=K sends nothing more after
// K events on each connection (until the client goes away), as a server
// that hangs does; and drop_every=K cuts each connection after K events,
// in the middle of the next one (after its id line and part of its data),
// as a dropped connection does: a client that resumes with Last-Event-ID
// gets every event once. The data decodes into Event.
//
// POST /chat takes {"message": "..."} (a 422 when it is empty) and streams
// a reply, ChatReply(message), as a chat completion API does: one
// "event: token" per word with data {"index":i,"text":"word "} (a
// ChatChunk), flushed as it is written, then "data: [DONE]". delay_ms=N (at
// most 1000) waits before each token.
//
// GET /users.ndjson serves the users (with the filters of the listings) as
// application/x-ndjson, one JSON object a line. GET /records serves count
// generated records (default 1000) as one JSON array, and GET
// /records.ndjson the same as NDJSON; with bytes=N instead, as many records
// as fit in N bytes. Record i is RecordAt(i), about 190 bytes of JSON; the
// records are generated as they are sent, never stored, so a stream of
// gigabytes costs the server a 64 KiB buffer.
//
// With WithSigningKey every route except GET /health also requires a
// request signature, checked before the bearer token: the headers
// X-Timestamp (Unix seconds, decimal digits) and X-Signature, the
// lowercase hex of
//
//	HMAC-SHA256(key, METHOD + "\n" + PATH + "\n" + X-Timestamp + "\n" + BODY)
//
// where METHOD is the request method, PATH the escaped path the API sees
// (URL.EscapedPath(): after any http.StripPrefix, without the query) and
// BODY the exact request body bytes (empty if none). For example, GET
// /users/7 at Unix time 1767323045 with no body signs
// "GET\n/users/7\n1767323045\n". A missing, malformed or wrong signature,
// or a timestamp more than 5 minutes (in whole seconds) from the API's
// clock, is a 401 with the code invalid_signature, no WWW-Authenticate
// header, and is counted in Stats.Unauthorized. The body is read (a 413
// if over 1 MiB) only once the headers and timestamp are acceptable.
// Requests that match no route are not checked.
//
// # Real API conventions
//
// POST /payments takes an application/x-www-form-urlencoded body (as
// Stripe's API does, and nothing else: another Content-Type is a 415) with
// amount (a positive integer, in the currency's smallest unit), currency
// (three letters), and optional source (a test token, default "tok_visa")
// and description. It answers 200 with a Payment. Every answer of these
// routes carries a Request-Id header ("req_<n>"), and their errors have
// Stripe's shape, {"error":{"type","code","message","param"}}, the
// StripeError model at the key "error" (for
// kit.WithErrorModelAt[kittest.StripeError]("error")):
//
//   - a missing or malformed parameter: 400 invalid_request_error
//     (parameter_missing, parameter_invalid), nothing saved;
//   - source=tok_chargeDeclined: 402 card_error card_declined with
//     "Stripe-Should-Retry: false";
//   - an unknown payment: 404 invalid_request_error resource_missing.
//
// A request with an Idempotency-Key header (at most 255 characters) is
// carried out once: its answer (a 200 or a 402) is saved under the key, and
// a request with the same key and the same body gets that answer again,
// with "Idempotent-Replayed: true" and "Original-Request: <its Request-Id>"
// headers, and no new payment; the same key with another body is a 400
// idempotency_error. Stats.Payments counts payments made and
// Stats.IdempotentReplays the replays.
//
// Two query parameters script the failures that make idempotency keys
// necessary; both count the attempts made with one Idempotency-Key (every
// request without a key is a first attempt):
//
//   - lock_timeouts=N: the first N attempts answer 409 invalid_request_error
//     lock_timeout, with "Stripe-Should-Retry: true", before doing anything;
//   - lose_response=N: the first N attempts that get past that are carried
//     out (or replayed), and then their connection is cut before any
//     answer, as when a network fails after the server did the work.
//
// POST /conversations.info answers as Slack's Web API does: always HTTP
// 200, with {"ok":true,"channel":{…}} (a SlackChannel at the key "channel")
// or {"ok":false,"error":"<code>"} (see SlackStatus): channel_not_found for
// an unknown channel, invalid_arguments without one. It takes a JSON body
// {"channel":"C1"} or a form body channel=C1. The channels C1..C5 are the
// five teams, named "platform", "payments", "growth", "mobile" and
// "data-ml", with the teams' member counts.
type API struct {
	cfg apiConfig
	mux *http.ServeMux
	now func() time.Time // the clock; tests in this package replace it

	mu      sync.Mutex
	users   []apiUser // sorted by ID
	posts   []apiPost // sorted by ID
	tokens  map[string]*apiToken
	uploads []Upload
	exports []apiExport
	jobs    []*apiJob      // /lro/jobs: api_lro.go
	conv    apiConventions // payments and idempotency keys: api_conventions.go
	stats   Stats

	quotaStart time.Time // the /limited routes' current window
	quotaUsed  int       // requests counted in it
}

// APIOption configures an API made by NewAPI. The options are WithUsers,
// WithCredentials, WithTokenTTL, WithTokenUses, WithRequireAuth,
// WithSigningKey, WithLatency and WithRateQuota.
type APIOption interface {
	apply(*apiConfig)
}

type apiConfig struct {
	users       int
	username    string
	password    string
	tokenTTL    time.Duration
	tokenUses   int
	requireAuth bool
	signingKey  []byte        // empty: no request signing
	latency     time.Duration // WithLatency
	quota       int           // WithRateQuota; 0: 60
	quotaWindow time.Duration // WithRateQuota; 0: a minute
}

type apiOptionFunc func(*apiConfig)

func (f apiOptionFunc) apply(c *apiConfig) { f(c) }

// apiMaxUsers bounds WithUsers so that a typo cannot exhaust memory.
const apiMaxUsers = 1_000_000

// WithUsers sets the number of seeded users, ids 1..n (default 250). The
// data is deterministic: two APIs with the same n serve the same users.
// n is clamped to the range 0..1,000,000.
func WithUsers(n int) APIOption {
	return apiOptionFunc(func(c *apiConfig) { c.users = min(max(n, 0), apiMaxUsers) })
}

// WithCredentials sets the username and password accepted by POST /login
// and POST /flows/login
// (default "demo" / "s3cret").
func WithCredentials(user, password string) APIOption {
	return apiOptionFunc(func(c *apiConfig) { c.username, c.password = user, password })
}

// WithTokenTTL makes access tokens expire d after they are issued (default
// one hour). /login reports the lifetime in expires_in, in whole seconds
// rounded up. A d of zero or less disables time-based expiry, and /login
// then omits expires_in.
func WithTokenTTL(d time.Duration) APIOption {
	return apiOptionFunc(func(c *apiConfig) { c.tokenTTL = d })
}

// WithTokenUses makes an access token expire after n authenticated
// requests: each request that presents the token on a route requiring
// authentication uses it once, and the request that would exceed n is
// rejected with a 401. The default, 0 (or less), means unlimited.
func WithTokenUses(n int) APIOption {
	return apiOptionFunc(func(c *apiConfig) { c.tokenUses = max(n, 0) })
}

// WithRequireAuth, when on is true, makes every route except /login,
// /health and /status/{code} require a valid access token. By default
// (false) only /me and /private/reports do.
func WithRequireAuth(on bool) APIOption {
	return apiOptionFunc(func(c *apiConfig) { c.requireAuth = on })
}

// WithLatency makes the API wait d before it answers each request, as a
// server across a network would: for demos and benchmarks of concurrent
// requests and pipelined walks (kit.WithPrefetch). A request whose context
// ends first gets no response. The request is counted in Stats when it
// arrives. d of zero or less (the default) answers at once.
func WithLatency(d time.Duration) APIOption {
	return apiOptionFunc(func(c *apiConfig) { c.latency = d })
}

// Stats is a snapshot of an API's request counters, as returned by
// API.Stats.
type Stats struct {
	// Requests counts every request the API received, including those
	// answered with an error.
	Requests int
	// Logins counts POST /login requests, successful or not.
	Logins int
	// Unauthorized counts requests rejected with a 401 because their
	// access token was missing or invalid, or (with WithSigningKey) their
	// signature was (failed logins are not counted).
	Unauthorized int
	// NotModified counts 304 Not Modified responses: conditional GETs of
	// /users/{id}, /limited/users/{id} and /teams/{id} whose If-None-Match
	// matched the ETag.
	NotModified int
	// RateLimited counts requests to the /limited routes refused with a
	// 403 because the quota (WithRateQuota) was used up.
	RateLimited int
	// ByPath counts requests by "METHOD /path", where the path is the one
	// the API saw (after any http.StripPrefix), without the query, e.g.
	// "GET /users/7". It is never nil.
	ByPath map[string]int
	// Payments counts the payments POST /payments made (a replay of an
	// idempotency key's answer makes none).
	Payments int
	// IdempotentReplays counts the answers of POST /payments replayed for
	// an Idempotency-Key seen before.
	IdempotentReplays int
}

// NewAPI returns an API seeded with deterministic demo data, configured by
// opts. Nil options are ignored.
func NewAPI(opts ...APIOption) *API {
	cfg := apiConfig{
		users:    250,
		username: "demo",
		password: "s3cret",
		tokenTTL: time.Hour,
	}
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	a := &API{cfg: cfg, mux: http.NewServeMux(), now: time.Now}
	a.routes()
	a.reset()
	return a
}

// ServeHTTP implements http.Handler.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			// A safety net: a bug must not take the test server down.
			apiWriteError(w, http.StatusInternalServerError, "internal", "internal server error")
		}
	}()
	if r.URL == nil {
		apiWriteError(w, http.StatusBadRequest, "bad_request", "request has no URL")
		return
	}
	a.mu.Lock()
	a.stats.Requests++
	a.stats.ByPath[r.Method+" "+r.URL.Path]++
	a.mu.Unlock()
	if d := a.cfg.latency; d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-r.Context().Done():
			timer.Stop()
			return
		}
	}

	if _, pattern := a.mux.Handler(r); pattern != "" {
		a.mux.ServeHTTP(w, r)
		return
	}
	// No route matched: let the mux decide between 404, 405 and a redirect
	// to a cleaned path, and answer 404 and 405 in JSON.
	c := &apiCapture{header: http.Header{}}
	a.mux.ServeHTTP(c, r)
	switch c.code {
	case http.StatusNotFound:
		apiWriteError(w, http.StatusNotFound, "not_found", "no route for "+r.Method+" "+r.URL.Path)
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", c.header.Get("Allow"))
		apiWriteError(w, http.StatusMethodNotAllowed, "method_not_allowed",
			"method "+r.Method+" is not allowed on "+r.URL.Path)
	default:
		for k, v := range c.header {
			w.Header()[k] = v
		}
		w.WriteHeader(max(c.code, http.StatusOK))
		w.Write(c.body.Bytes())
	}
}

// Stats returns a snapshot of the request counters.
func (a *API) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.stats
	s.ByPath = make(map[string]int, len(a.stats.ByPath))
	for k, v := range a.stats.ByPath {
		s.ByPath[k] = v
	}
	return s
}

// ExpireTokens invalidates every access token issued so far, so that the
// next authenticated request with any of them is a 401. Tokens issued
// afterwards are valid.
func (a *API) ExpireTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokens = make(map[string]*apiToken)
}

// Reset restores the seeded data, invalidates every access token and zeroes
// the counters, as if the API had just been made by NewAPI with the same
// options.
func (a *API) Reset() {
	a.reset()
}

func (a *API) reset() {
	users, posts := apiSeed(a.cfg.users)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.users, a.posts = users, posts
	a.tokens = make(map[string]*apiToken)
	a.uploads, a.exports = nil, nil
	a.conv.reset()
	a.stats = Stats{ByPath: make(map[string]int)}
	a.quotaStart, a.quotaUsed = time.Time{}, 0
}

// apiAuthPolicy says when a route requires an access token.
type apiAuthPolicy uint8

const (
	apiAuthNever    apiAuthPolicy = iota // /login, /health, /status/{code}
	apiAuthOptional                      // only with WithRequireAuth(true)
	apiAuthAlways                        // /me, /private/*
)

func (a *API) routes() {
	a.handle("GET /health", apiAuthNever, a.health)
	a.handle("POST /login", apiAuthNever, a.login)
	a.handle("POST /flows/login", apiAuthNever, a.loginFlow)
	a.handle("POST /oauth/token", apiAuthNever, a.oauthToken)
	a.handle("/status/{code}", apiAuthNever, a.status)

	a.handle("GET /me", apiAuthAlways, a.me)
	a.handle("GET /private/reports", apiAuthAlways, a.reports)

	a.handle("GET /users", apiAuthOptional, a.listUsers)
	a.handle("POST /users", apiAuthOptional, a.createUser)
	a.handle("GET /users/{id}", apiAuthOptional, a.getUser)
	a.handle("PUT /users/{id}", apiAuthOptional, a.replaceUser)
	a.handle("PATCH /users/{id}", apiAuthOptional, a.patchUser)
	a.handle("DELETE /users/{id}", apiAuthOptional, a.deleteUser)
	a.handle("GET /users/{id}/posts", apiAuthOptional, a.userPosts)
	a.handle("GET /teams", apiAuthOptional, a.listTeams)
	a.handle("GET /teams/{id}", apiAuthOptional, a.getTeam)
	a.handle("POST /teams/{id}/users", apiAuthOptional, a.createTeamUsers)
	a.handle("GET /teams/{id}/members", apiAuthOptional, a.teamMembers(a.listUsers))
	a.handle("GET /offset/teams/{id}/members", apiAuthOptional, a.teamMembers(a.offsetUsers))
	a.handle("GET /cursor/teams/{id}/members", apiAuthOptional, a.teamMembers(a.cursorUsers))
	a.handle("GET /linked/teams/{id}/members", apiAuthOptional, a.teamMembers(a.linkedUsers))

	a.handle("GET /paged/users", apiAuthOptional, a.pagedUsers)
	a.handle("GET /offset/users", apiAuthOptional, a.offsetUsers)
	a.handle("GET /cursor/users", apiAuthOptional, a.cursorUsers)
	a.handle("GET /cursor-flat/users", apiAuthOptional, a.cursorFlatUsers)
	a.handle("GET /linked/users", apiAuthOptional, a.linkedUsers)
	a.handle("GET /nested/users", apiAuthOptional, a.nestedUsers)
	a.handle("GET /clamped/users", apiAuthOptional, a.clampedUsers)
	a.handle("GET /zero/users", apiAuthOptional, a.zeroUsers)
	a.handle("GET /stuck/users", apiAuthOptional, a.stuckUsers)
	a.handle("GET /marker/users", apiAuthOptional, a.markerUsers)
	a.handle("GET /token/users", apiAuthOptional, a.pageTokenUsers)
	a.handle("GET /stripe/users", apiAuthOptional, a.stripeUsers)
	a.handle("GET /next/users", apiAuthOptional, a.nextUsers)
	a.handle("GET /activity", apiAuthOptional, a.activity)
	a.handle("POST /search/users", apiAuthOptional, a.searchUsers)
	a.handle("POST /charges", apiAuthOptional, a.createCharge)
	a.handle("GET /filter/users", apiAuthOptional, a.filterUsers)
	a.handle("/brackets", apiAuthOptional, a.brackets)

	a.handle("GET /slow", apiAuthOptional, a.slow)
	a.handle("GET /text", apiAuthOptional, a.text)
	a.handle("GET /big", apiAuthOptional, a.big)
	a.handle("POST /uploads", apiAuthOptional, a.upload)
	a.handle("GET /uploads/{id}", apiAuthOptional, a.getUpload)
	a.handle("PUT /files/{name}", apiAuthOptional, a.uploadRaw)
	a.handle("GET /download", apiAuthOptional, a.download)
	a.handle("POST /exports", apiAuthOptional, a.startExport)
	a.handle("GET /exports/{id}", apiAuthOptional, a.getExport)
	a.handle("GET /events", apiAuthOptional, a.events)
	a.handle("POST /lro/jobs", apiAuthOptional, a.startJob)
	a.handle("GET /lro/jobs/{id}", apiAuthOptional, a.pollJob)
	a.handle("POST /chat", apiAuthOptional, a.chat)
	a.handle("GET /users.ndjson", apiAuthOptional, a.usersNDJSON)
	a.handle("GET /records", apiAuthOptional, a.records(false))
	a.handle("GET /records.ndjson", apiAuthOptional, a.records(true))
	a.handle("/echo", apiAuthOptional, a.echo)
	a.handle("/echo/{rest...}", apiAuthOptional, a.echo)
	a.handle("GET /limited/users", apiAuthOptional, a.limited(a.listUsers))
	a.handle("GET /limited/users/{id}", apiAuthOptional, a.limited(a.getUser))
	a.conventionRoutes()
}

func (a *API) handle(pattern string, policy apiAuthPolicy, h http.HandlerFunc) {
	signed := pattern != "GET /health" // WithSigningKey leaves /health open
	a.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if signed && !a.verifySignature(w, r) {
			return
		}
		if policy == apiAuthAlways || (policy == apiAuthOptional && a.cfg.requireAuth) {
			if !a.authorize(w, r) {
				return
			}
		}
		h(w, r)
	})
}

// apiCapture is a ResponseWriter that records a response in memory.
type apiCapture struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (c *apiCapture) Header() http.Header { return c.header }

func (c *apiCapture) WriteHeader(code int) {
	if c.code == 0 {
		c.code = code
	}
}

func (c *apiCapture) Write(p []byte) (int, error) {
	if c.code == 0 {
		c.code = http.StatusOK
	}
	return c.body.Write(p)
}
