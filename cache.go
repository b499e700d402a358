package kit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kithttp/kit/internal/cacheentry"
	"github.com/kithttp/kit/internal/httpcache"
)

// CacheStore holds the responses of a client made WithCache: encoded
// entries under opaque keys. NewMemoryCache is one, in this process; the
// kitredis module has one that a fleet of processes shares.
//
// Get returns the entry stored under key and true, or false when there is
// none. Set stores entry under key; the store may drop it after ttl (0:
// when it likes), and kit works out freshness itself, so ttl is only how
// long the entry can be of use. Delete removes what is stored under key
// (none is not an error). Every method must be safe for concurrent use and
// should end when ctx ends. An error from any of them is logged (see
// WithCache) and never fails a call.
type CacheStore interface {
	Get(ctx context.Context, key string) ([]byte, bool, error)
	Set(ctx context.Context, key string, entry []byte, ttl time.Duration) error
	Delete(ctx context.Context, key string) error
}

// WithCache makes the client a private HTTP cache (RFC 9111) for its GET
// requests, keeping responses in s:
//
//   - A stored response that is fresh (Cache-Control max-age, else Expires,
//     else for a response with neither a tenth of its age since
//     Last-Modified, at most 24 hours, the heuristic RFC 9111 allows) is
//     served without a request.
//   - A stale one with a validator (ETag, Last-Modified) is revalidated
//     with If-None-Match / If-Modified-Since; a 304 serves the stored body
//     with its headers updated from the 304, as a 200, when it is for the
//     stored response (RFC 9111 §4.3.4: its ETag, else its Last-Modified,
//     matches the stored one's, or it has neither). A 304 that names
//     another representation updates nothing: the entry is dropped and the
//     request sent again without the conditional headers.
//   - Ages and lifetimes are kept to [0, 2^31 s] (RFC 9111 §1.2.2): a Date
//     centuries away, a huge Age or max-age, never make a stale response
//     fresh, and a served Age is never negative.
//   - A response with Cache-Control no-store (or to a request with it) is
//     never stored; no-cache (response or request) always revalidates; a
//     request's max-age and min-fresh are honoured; Vary is honoured (one
//     variant is kept per URL; for a credential header the store holds a
//     hash of the request's value, not the value), and Vary: * is never
//     stored. Set-Cookie is never stored: the caller that got the response
//     sees it, a hit never does.
//   - Only 2xx responses are stored (200, 203 and 204; another 2xx but 206
//     only with an explicit lifetime); an error status, 5xx included, never.
//     A response that is neither fresh nor has a validator is not stored.
//   - A successful POST, PUT, PATCH or DELETE to a URL removes what is
//     stored for that URL (and for its Location and Content-Location on the
//     same origin), for the same credentials.
//   - Requests with a Range header or a conditional header of the caller's
//     own (an If-None-Match set with WithHeader or a header parameter), and
//     streamed results (io.ReadCloser, Stream), bypass the cache.
//
// Keys are a SHA-256 hash of the method, the URL and the identity of the
// credentials the request would carry (a hash of them, never the secret):
// the client's Auth's, any Authorization, Cookie or secret-looking header
// the request has itself, the user info of its URL, and the cookies the
// cookie jar of the client's *http.Client (WithHTTPClient, or WithEngine
// with an *http.Client) holds for its URL, read for every request. Clients
// with the same credentials share entries; two users of one store never
// see each other's. With TokenAuth the identity is the current token, so a
// renewed token starts from a cold cache; endpoints declared NoAuth share
// entries across every client of the store.
//
// Credentials added below the cache are not in the key, so kit does not
// keep what they fetch: a response to a request that went out with other
// credential headers, or to another URL, than the cache foresaw (an
// attempt interceptor that signs requests or sets Authorization, say) is
// never stored. A client with attempt interceptors also shares no entry
// with any other client (its identity includes a random value of its
// own). Give credentials to WithAuth (an Auth of your own if need be) for
// them to be in the key and their responses cached. kit cannot see
// credentials that an http.RoundTripper of the *http.Client, or an Engine
// of your own, adds to a copy of the request: a client with those needs a
// store of its own.
//
// The cache is a layer of the send chain just inside the endpoint's timeout,
// outside retries: a response served from it takes no rate-limit token, is
// never retried and is not logged (no request was sent); a revalidation is
// a request like any other. Response.FromCache tells a served response. A
// store error is logged through WithLogger (message "kit cache", Warn, with
// the store's error text) and the request goes to the network: a broken
// cache never fails a call. An entry that does not decode (written by
// another version of kit, or corrupted) is a miss and is deleted.
//
// A nil s is an error from NewClient. Default: no cache.
func WithCache(s CacheStore) Option { return cacheOption{s} }

// FromCache reports whether the response was served from the client's cache
// (see WithCache): fresh, or revalidated by a 304.
func (r *Response) FromCache() bool { return r != nil && r.cached }

// Private implementation past this point.

type cacheOption struct{ s CacheStore }

func (o cacheOption) applyClient(c *clientConfig) error {
	if o.s == nil {
		return errors.New("kit: WithCache(nil)")
	}
	c.cache = o.s
	return nil
}

func (o cacheOption) String() string { return fmt.Sprintf("kit.WithCache(%T)", o.s) }

// staleKeep is how long an entry with a validator is kept past its
// freshness, to be revalidated.
const staleKeep = 24 * time.Hour

// maxStoreTTL bounds how long a store is asked to keep an entry.
const maxStoreTTL = 365 * 24 * time.Hour

// cacheLayer is the chain's cache layer: it serves a GET from the
// client's CacheStore when it may, revalidates what is stale, stores what
// may be stored and drops what a write changes. It holds the store, the
// auth layer whose credentials key the entries (nil: no auth), its own
// identity (with attempt interceptors), the client's logger (for the
// store's errors), the client's secrets and the observer's CacheHit hook.
type cacheLayer struct {
	cache    CacheStore
	auth     *authLayer // nil: no auth
	clientID string     // with attempt interceptors, what keeps this client's entries its own (see cacheIdentityOf)
	logger   *slog.Logger
	secrets  *secrets
	onHit    func(context.Context, CacheHitInfo) // Observer.CacheHit; nil: none
}

// wrap returns the layer on top of next, in a chain whose engine has jar
// (nil: none, or one kit cannot see).
func (l *cacheLayer) wrap(next Sender, jar http.CookieJar) Sender {
	return func(ctx context.Context, req *Request) (*Response, error) {
		if req.policy.stream {
			return next(ctx, req)
		}
		switch req.Method {
		case http.MethodGet:
			return l.cachedGet(ctx, next, req, jar)
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			resp, err := next(ctx, req)
			l.invalidate(ctx, req, resp, err, jar)
			return resp, err
		}
		return next(ctx, req)
	}
}

// bypasses reports whether a request header (canonical) takes a GET past
// the cache.
func bypasses(k string) bool {
	switch k {
	case "Range", "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range":
		return true
	}
	return false
}

func (l *cacheLayer) cachedGet(ctx context.Context, next Sender, req *Request, jar http.CookieJar) (*Response, error) {
	credentials := false // the request carries credentials of its own (see cacheIdentity)
	for k := range req.Header {
		if bypasses(k) {
			return next(ctx, req)
		}
		credentials = credentials || isCredentialName(k)
	}
	reqCC := httpcache.Parse(req.Header)
	if reqCC.NoStore {
		return next(ctx, req)
	}
	if len(req.Header["Cache-Control"]) == 0 && slices.Contains(req.Header["Pragma"], "no-cache") {
		reqCC.NoCache = true // RFC 9111 §5.4
	}
	id, err := l.cacheIdentityOf(ctx, req, credentials, jar)
	if err != nil {
		return next(ctx, req) // the auth layer reports it
	}
	// The key is built on the stack: a fresh hit from NewMemoryCache looks
	// it up without making a string of it.
	var keyBuf [256]byte
	keyBytes := l.appendCacheKey(keyBuf[:0], http.MethodGet, req.URL, id)
	var key string
	var stored *cacheentry.Entry
	var now time.Time
	shared := false // stored is NewMemoryCache's, shared by every hit: copy before changing it
	if mc, ok := l.cache.(*memoryCache); ok {
		now = time.Now() // one reading of the clock for the entry's expiry and its age
		stored, shared = l.lookupMemory(ctx, req, mc, keyBytes, now), true
	} else {
		key = string(keyBytes)
		stored = l.lookup(ctx, req, key)
		now = time.Now() // after a store's round trip
	}
	if stored != nil && !stored.NoCache && !reqCC.NoCache {
		age := stored.Age(now)
		usable := stored.Lifetime - reqCC.MinFresh
		if reqCC.HasMaxAge {
			usable = min(usable, reqCC.MaxAge+1) // age ≤ max-age
		}
		if age < usable {
			l.observeHit(ctx, req, false)
			return l.cachedResponse(req, stored, !shared, age), nil
		}
	}
	if key == "" {
		key = string(keyBytes)
	}
	if stored != nil && shared {
		stored = privateEntry(stored)
	}
	send := req
	if stored != nil {
		etag, lm := stored.Header.Get("Etag"), stored.Header.Get("Last-Modified")
		if etag != "" || lm != "" {
			send = req.clone()
			if etag != "" {
				send.Header.Set("If-None-Match", etag)
			}
			if lm != "" {
				send.Header.Set("If-Modified-Since", lm)
			}
		} else {
			stored = nil
		}
	}
	reqTime := time.Now()
	resp, err := next(ctx, send)
	respTime := time.Now()
	var he *HTTPError
	if stored != nil && errors.As(err, &he) && he.StatusCode == http.StatusNotModified {
		if !httpcache.Selects(he.Header, stored.Header) {
			// RFC 9111 §4.3.4: a 304 for another representation updates
			// nothing; what is stored is not it. Ask again for the whole
			// response.
			l.deleteEntry(ctx, req, key)
			stored = nil
			reqTime = time.Now()
			resp, err = next(ctx, req)
			respTime = time.Now()
		}
	}
	if stored != nil && errors.As(err, &he) && he.StatusCode == http.StatusNotModified {
		// RFC 9111 §4.3.4: the stored response, its headers updated.
		for k, vs := range he.Header {
			switch k {
			case "Content-Length", "Content-Encoding", "Transfer-Encoding", "Content-Range", "Connection", "Set-Cookie":
				continue
			}
			stored.Header[k] = vs
		}
		stored.Header.Del("Age")
		cc := httpcache.Parse(stored.Header)
		stored.Lifetime, stored.InitialAge = httpcache.Freshness(stored.Status, stored.Header, cc, reqTime, respTime)
		stored.RespTime, stored.NoCache = respTime, cc.NoCache
		if cc.NoStore {
			l.deleteEntry(ctx, req, key)
		} else {
			l.store(ctx, req, key, stored, cc)
		}
		l.observeHit(ctx, req, true)
		return l.cachedResponse(req, stored, true, stored.Age(time.Now())), nil
	}
	if err != nil {
		return resp, err
	}
	if e, cc, ok := storable(req, reqCC, resp, reqTime, respTime); ok {
		l.store(ctx, req, key, e, cc)
	} else if stored != nil {
		l.deleteEntry(ctx, req, key) // replaced by a response that may not be kept
	}
	return resp, nil
}

// lookupMemory returns the entry mc holds under key for req at now, nil
// when there is none (or it does not decode, or was chosen by other Vary values). The
// entry is shared by every hit: the caller must not change it (see
// privateEntry).
func (l *cacheLayer) lookupMemory(ctx context.Context, req *Request, mc *memoryCache, key []byte, now time.Time) *cacheentry.Entry {
	e, ok, err := mc.decodedEntry(key, now)
	if err != nil {
		l.logCache(ctx, req, "decoding", err)
	}
	if !ok || !varyMatches(e, req.Header) {
		return nil
	}
	return e
}

// lookup returns the entry a store other than NewMemoryCache holds under
// key for req, nil when there is none (or it does not decode, or was chosen
// by other Vary values). The entry is the caller's to change.
func (l *cacheLayer) lookup(ctx context.Context, req *Request, key string) *cacheentry.Entry {
	data, ok, err := l.cache.Get(ctx, key)
	switch {
	case err != nil:
		l.logCache(ctx, req, "reading", err)
		return nil
	case !ok:
		return nil
	}
	e, err := cacheentry.Decode(data)
	if err != nil {
		l.logCache(ctx, req, "decoding", err)
		l.deleteEntry(ctx, req, key)
		return nil
	}
	if !varyMatches(e, req.Header) {
		return nil
	}
	return e
}

// storable returns the entry of a response to req that may be stored.
func storable(req *Request, reqCC httpcache.CacheControl, resp *Response, reqTime, respTime time.Time) (*cacheentry.Entry, httpcache.CacheControl, bool) {
	cc := httpcache.Parse(resp.Header)
	if cc.NoStore || reqCC.NoStore || resp.stream != nil || resp.unforeseen {
		return nil, cc, false
	}
	explicit := httpcache.HasExplicitFreshness(resp.Header, cc)
	switch {
	case httpcache.HeuristicStatus(resp.StatusCode):
	case is2xx(resp.StatusCode) && resp.StatusCode != http.StatusPartialContent && explicit:
	default:
		return nil, cc, false
	}
	var vary []string
	for _, line := range resp.Header["Vary"] {
		for name := range strings.SplitSeq(line, ",") {
			name = strings.TrimSpace(name)
			if name == "*" {
				return nil, cc, false
			}
			if name != "" {
				name = http.CanonicalHeaderKey(name)
				vary = append(vary, name, varyValue(req.Header, name))
			}
		}
	}
	lifetime, initialAge := httpcache.Freshness(resp.StatusCode, resp.Header, cc, reqTime, respTime)
	hasValidator := resp.Header.Get("Etag") != "" || resp.Header.Get("Last-Modified") != ""
	if !hasValidator && (cc.NoCache || lifetime <= initialAge) {
		return nil, cc, false // it could never be used
	}
	header := resp.Header
	if _, ok := header["Set-Cookie"]; ok {
		// The session of whoever got the response: a hit never hands it
		// on. The caller's response keeps it.
		header = maps.Clone(header)
		delete(header, "Set-Cookie")
	}
	return &cacheentry.Entry{
		Status:     resp.StatusCode,
		RespTime:   respTime,
		InitialAge: initialAge,
		Lifetime:   lifetime,
		NoCache:    cc.NoCache,
		Vary:       vary,
		Header:     header,
		Body:       resp.body,
	}, cc, true
}

// store writes e under key, for as long as it can be of use.
func (l *cacheLayer) store(ctx context.Context, req *Request, key string, e *cacheentry.Entry, cc httpcache.CacheControl) {
	ttl := max(e.Lifetime-e.InitialAge, 0)
	if e.Header.Get("Etag") != "" || e.Header.Get("Last-Modified") != "" {
		ttl += staleKeep
	}
	ttl = min(ttl, maxStoreTTL)
	if err := l.cache.Set(ctx, key, e.Encode(), ttl); err != nil {
		l.logCache(ctx, req, "writing", err)
	}
}

func (l *cacheLayer) deleteEntry(ctx context.Context, req *Request, key string) {
	if err := l.cache.Delete(ctx, key); err != nil {
		l.logCache(ctx, req, "deleting", err)
	}
}

// cachedResponse is e served to req at current age age. When e is not
// owned (it is shared by other hits), the response gets a copy of its
// header, values included, so that the caller may change it as it likes;
// the body is shared either way (Response.Bytes says not to modify it).
func (l *cacheLayer) cachedResponse(req *Request, e *cacheentry.Entry, owned bool, age time.Duration) *Response {
	// One allocation for the response, its request, its Age value and
	// (when they are few) its header values.
	s := &servedResponse{age: [1]string{strconv.FormatInt(int64(age/time.Second), 10)}}
	h := e.Header
	if !owned {
		h = cloneHeader(e.Header, 1, s.vals[:0])
	}
	h["Age"] = s.age[:]
	s.req = http.Request{Method: req.Method, URL: req.URL, Header: req.Header, Host: req.URL.Host}
	s.resp = Response{
		StatusCode: e.Status,
		Header:     h,
		Request:    &s.req,
		body:       e.Body,
		redact:     l.secrets.redactorOf(req),
		cached:     true,
	}
	return &s.resp
}

// varyMatches reports whether a request with header h carries the values
// the stored response e was chosen by (RFC 9111 §4.1).
func varyMatches(e *cacheentry.Entry, h http.Header) bool {
	for i := 0; i+1 < len(e.Vary); i += 2 {
		if varyValue(h, e.Vary[i]) != e.Vary[i+1] {
			return false
		}
	}
	return true
}

// privateEntry returns a copy of a shared entry (NewMemoryCache's) that the
// caller may change: its own header, values included (it may end up in a
// caller's response).
func privateEntry(e *cacheentry.Entry) *cacheentry.Entry {
	c := *e
	c.Header = cloneHeader(e.Header, 1, nil)
	return &c
}

// observeHit reports a call answered from the cache.
func (l *cacheLayer) observeHit(ctx context.Context, req *Request, revalidated bool) {
	if l.onHit != nil {
		l.onHit(ctx, CacheHitInfo{Request: req, Revalidated: revalidated})
	}
}

// servedResponse is what cachedResponse allocates, in one piece.
type servedResponse struct {
	resp Response
	req  http.Request
	age  [1]string
	vals [servedValues]string
}

// servedValues is how many header values a hit copies without an
// allocation of their own.
const servedValues = 12

// invalidate removes what is stored for the URL of a successful write
// (RFC 9111 §4.4), and for its Location and Content-Location on the same
// origin.
func (l *cacheLayer) invalidate(ctx context.Context, req *Request, resp *Response, err error, jar http.CookieJar) {
	var header http.Header
	var he *HTTPError
	switch {
	case err == nil:
		header = resp.Header
	case errors.As(err, &he) && he.StatusCode >= 300 && he.StatusCode < 400:
		header = he.Header
	default:
		return
	}
	id, ierr := l.cacheIdentityOf(ctx, req, true, jar)
	if ierr != nil {
		return
	}
	l.deleteEntry(ctx, req, l.cacheKey(http.MethodGet, req.URL, id))
	for _, h := range [...]string{"Location", "Content-Location"} {
		v := header.Get(h)
		if v == "" {
			continue
		}
		u, perr := req.URL.Parse(v)
		if perr != nil || !sameOrigin(u, req.URL) || u.String() == req.URL.String() {
			continue
		}
		l.deleteEntry(ctx, req, l.cacheKey(http.MethodGet, u, id))
	}
}

// cacheKey is the key of a response to method on u for credentials id:
// "kit:" and the hex SHA-256 of them, so that no URL (nor anything in its
// query) shows in a store outside the process. NewMemoryCache, in the
// process, gets them unhashed: the hash would only cost time.
func (l *cacheLayer) cacheKey(method string, u *url.URL, id string) string {
	var stack [256]byte
	return string(l.appendCacheKey(stack[:0], method, u, id))
}

// appendCacheKey appends the key cacheKey returns to b.
func (l *cacheLayer) appendCacheKey(b []byte, method string, u *url.URL, id string) []byte {
	if _, ok := l.cache.(*memoryCache); ok {
		return appendKeyText(b, method, u, id)
	}
	var stack [512]byte
	sum := sha256.Sum256(appendKeyText(stack[:0], method, u, id))
	b = append(b, "kit:"...)
	return hex.AppendEncode(b, sum[:])
}

// appendKeyText appends the text a key is made of: method, identity and
// URL. The URL is last: neither of the others (a method kit sends, a hex
// hash or "") holds a NUL, so no URL can make another's key.
func appendKeyText(b []byte, method string, u *url.URL, id string) []byte {
	b = append(b, method...)
	b = append(b, 0)
	b = append(b, id...)
	b = append(b, 0)
	b = append(b, u.Scheme...)
	b = append(b, "://"...)
	b = append(b, u.Host...)
	b = append(b, u.EscapedPath()...)
	if u.RawQuery != "" || u.ForceQuery {
		b = append(b, '?')
		b = append(b, u.RawQuery...)
	}
	return b
}

// logCache logs a store error; the call goes on.
func (l *cacheLayer) logCache(ctx context.Context, req *Request, doing string, err error) {
	if l.logger == nil || !l.logger.Enabled(ctx, slog.LevelWarn) {
		return
	}
	l.logger.LogAttrs(ctx, slog.LevelWarn, "kit cache",
		slog.String("method", req.Method),
		slog.String("url", l.secrets.redactorOf(req).url(req.URL)),
		slog.String("error", doing+" the cache: "+err.Error()),
	)
}
