package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestTour runs the whole tour against its embedded API and checks that
// every section ran and reported what it should.
func TestTour(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatalf("tour failed: %v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{
		"== 1. Client",
		`its own model (kit.WithErrorModelFor[kittest.LoginFlow](400)): "The provided credentials are invalid`,
		"sent back with kit.WithQuery and kit.WithJSONField: /echo?dry_run=true",
		`the server read {"created":"1700000000","lines":[{"amount":"500","type":"custom_line_item"},{"type":"invoice_line_item"}]}`,
		`the same union holding a range: {"created":{"gte":"1","lt":"9"}}`,
		`a map of objects in a form body: {"currency_options":{"eur":{"amount_off":"500"}},"name":"spring"}`,
		"the first attempt hung, the second got Ada Lovelace",
		"got [1 2 3 4 5], each once",
		"on a download silent at byte 70000: 200000 bytes",
		`"job 1 output" after 3 polls`,
		"kit.WithDump: > Authorization: REDACTED",
		"a bad base URL is refused",
		"→ POST /teams/1/users?team=platform",
		"nothing sent; *kit.ValidationError",
		"*kit.HTTPError: status 404",
		"deleted: 204",
		"kit: Resource.Get: resource has no path",
		"/linked/users  kit.LinkHeader    50 users of team 3",
		"→ GET /paged/users?page=2&page_size=4",
		"pagination does not advance",
		"GET /users/{id} CallInto: Barbara Liskov",
		"params of another type: kit: GET /users/{id}: Operation.CallInto: params is *main.MemberQuery",
		"Pages of a paged operation: 50 records of team 2 in 6 pages",
		"pages counted from 0, walked with kit.StartAtOne: 226 users, from user 26",
		"call 2: Alan Turing, answered by the fallback",
		"a walk of team 2 failed over at its first page: 49 members",
		"pages counted from 0, walked with kit.StartUnknown: 251 users, from user 1",
		"/token/users  pageToken answered by nextPageToken (Google): 166 active users, every page",
		"GET /me as Ada Lovelace, after 2 logins",
		"a cursor walk with WithPrefetch(2), one page ahead",
		": 251 users in 13 requests",
		"after Close: kit: GET /users/{id}: client is closed",
		"does not implement kit.Engine",
		"answered from memory: 2 hits, 2 304s at the server",
		"3 calls of GET /limited/users/1 (Cache-Control: private, max-age=60): 1 request; FromCache [false true true]",
		"2 304s at the server, served from the cache; the quota left stays [58 58 58]",
		"a walk of 250 users in 6 pages waits for each reset instead of running into a 403 (0 refused at the server)",
		"the next call fails at once, nothing sent: *kit.RateLimitError (limit 4, remaining 0)",
		"without the signing interceptor: *kit.HTTPError 401",
		"became a *kit.Poller[users.Job]; Wait polled until job 1 succeeded after 3 polls",
		"OAuth2 client credentials, form-encoded: a Bearer token",
		"→ POST /oauth/token",
		"(deepObject): the server saw /echo/audit_logs?created[gt]=1700000000&limit=20&metadata[order]=6735",
		"`kit:\"ids,csv\"` on a []int: one parameter ids=2,4,7, which /filter/users splits itself: 3 users",
		`on a map[string]any: the JSON body {"name":"octoapp","public":true}`,
		`multipart upload: the server got part "doc", file tour.bin, 5242880 bytes, checksum match true`,
		"streamed download (R = kit.Result[io.ReadCloser]): 48 MiB",
		"202 Accepted with Location exports/1",
		"export 1 is done",
		"observer: GET /status/{code} attempt 2 failed with 503; attempt 3 in 0s",
		"calls{GET /users/{id}, 200}          3",
		"pages{GET /users}                    13",
		"refused (kit.ErrCrossOrigin): a walk stays on its origin",
		"it got no Authorization and no Cookie",
		"ErrNotModified=true",
		"*kittest.APIError code=not_found",
		"== 11. Paged endpoints and pipelined walks",
		"handler: msg_2 invoice.paid, 4200 cents",
		"→ 200 duplicate delivery; acknowledged",
		"→ 401 kitwebhook: Standard Webhooks: Webhook-Timestamp: timestamp outside the tolerance",
		"outcomes seen by the observer: [handled handled duplicate ignored rejected rejected]",
		"→ GET /teams/2/members?active=true&page=2&page_size=10",
		"kit.Paged /teams/{id}/members: 34 active members of team 2",
		"with 2 ms a page, a sync walk: 200 members of team 5 in ",
		"the same walk pipelined, GoIterate with WithPrefetch(8): 200 members in ",
		"× as fast (in order, each once)",
		"== 12. Generated clients: kitgen",
		"declared as GetUser(ctx, id int) with //kit:get /users/{id}: Ada Lovelace",
		"etag sent as If-None-Match: ErrNotModified=true",
		"→ GET /linked/teams/4/members?page=2&per_page=5",
		"stopped after 6 members",
		"POST /chat answered text/event-stream; the tokens, printed as they arrive:",
		`token  0 "You "`,
		"the reply: You said: What is kit? Here is my answer, streamed one token at a time.",
		"events 1 2 3 4 5 6 7 8 9 10, each once, in order; the last connection resumed with Last-Event-ID 8",
		"NDJSON: 50 users of team 4, the first",
		"a JSON array of 100000 records (about 19 MB) decoded one element at a time",
		". The send chain's contract",
		"WithRetry retried both: Ada Lovelace after 3 attempts, 1 sent",
		"/users/1: WithInterceptors: interceptor 0 returned neither a response nor an error",
		"kit: NewClient: WithInterceptors: interceptor 0 returned a nil Sender",
		". Real APIs: the option rule, safe retries, envelopes",
		`one WithHeader at three levels, the nearest wins: the server saw "client" (client only), "declaration" (declaration over client), "call" (call over both)`,
		"one call with its own header and timeout",
		"a payment retried safely: ",
		"Idempotent-Replayed: true; payments made: 1",
		"a declined card, not retried (Stripe-Should-Retry: false): card_error card_declined, status 402, Request-Id req_",
		"Slack-like conversations.info C2, unwrapped from \"channel\": #payments",
		"an ok:false answer at HTTP 200 is an error: *kittest.SlackError channel_not_found",
		". Parallel calls: one client, 64 goroutines",
		"256 calls in 4 bursts of 64 goroutines through a default kit.NewClient",
		"later bursts reused the first one's connections: true",
		". The shapes real APIs use",
		"Stripe-like list (starting_after = the last record's id, has_more): 251 users in 6 requests, none past the end",
		"next-page URL in the body (links.next, kit.NextLink): 251 users in 3 requests",
		"→ POST /search/users",
		"POST search with the cursor in the body (kit.PagedPost, Cursor.InBody): 33 active users of team 3",
		"nested form (FormBody(kit.FormIndexed)): the server read metadata map[order_id:6735], expand customer, items [{Price:price_1 Quantity:2}]",
		"PATCH with kit.Nullable: active=false team_id=1 sent, the name left alone: \"Frances Allen\"",
		". Generated from an OpenAPI document: kitgen openapi",
		"c.UsersAPI.ScanUsers(ctx, nil): 251 users, a cursor walk kitgen openapi detected from the document",
		"an unknown user: errors.As finds the document's error model: true",
		"c.UsersAPI.ListUsersPages(ctx, &{PerPage: 100}): pages of [100 100 51] users, each with its response",
		`kit.WithQuery("q", "lovelace"), kit.WithHeader(...)): 10 users`,
		"walked by the cursor that overlay.yaml names",
		`*users.LoginFlow (its 400 in the document): "The provided credentials are invalid`,
		"the root model too: false",
		"instead of the document's https://api.example.com: user 1 is Ada Lovelace",
		"from a Swagger 2.0 document: Login's formData parameters are a form body (a Bearer token), ListUsers walks 251 users by Link header",
		"{path...} keeps its slashes, {repo} does not: /echo/kit%2Fmain/contents/docs/read%20me.md",
		". Done",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("tour output lacks %q", want)
		}
	}
	if strings.Count(text, "\n") < 40 {
		t.Errorf("tour printed only %d lines", strings.Count(text, "\n"))
	}
	if t.Failed() {
		t.Log(text)
	}
}
