package kit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// The benchmarks in this file compare Endpoint.Call with hand-written
// net/http + encoding/json code doing the same work against the same
// loopback server: build the URL (escaped path parameter, query), send,
// check the status, decode the JSON body into a struct (and, for POST,
// encode a struct body). Run with:
//
//	go test -run '^$' -bench 'Call|Baseline' -benchmem -count 6 .

// benchUser is a ~12-field object, the size of a typical API record.
type benchUser struct {
	ID        int64     `json:"id"`
	Login     string    `json:"login"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Company   string    `json:"company,omitempty"`
	Location  string    `json:"location,omitempty"`
	Bio       string    `json:"bio,omitempty"`
	Followers int       `json:"followers"`
	Following int       `json:"following"`
	Admin     bool      `json:"admin"`
	Score     float64   `json:"score"`
	CreatedAt time.Time `json:"created_at"`
	Tags      []string  `json:"tags"`
}

var benchRecord = benchUser{
	ID: 42, Login: "octo", Name: "Octo Cat", Email: "octo@example.com", Company: "Example",
	Location: "Berlin", Bio: "Writes API clients.", Followers: 1200, Following: 3, Admin: true,
	Score: 97.5, CreatedAt: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), Tags: []string{"go", "http", "json"},
}

func benchServer(b *testing.B) *httptest.Server {
	b.Helper()
	body, _ := json.Marshal(benchRecord)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusCreated)
			w.Write(body)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}))
	b.Cleanup(srv.Close)
	return srv
}

type getUserParams struct {
	Login  string
	Fields string
}

var (
	benchGet  = kit.Get[getUserParams, benchUser]("/users/{login}")
	benchPost = kit.Post[struct{ User benchUser }, benchUser]("/users")
)

func BenchmarkCallGet(b *testing.B) {
	srv := benchServer(b)
	c, err := kit.NewClient(srv.URL + "/api")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		u, err := benchGet.Call(ctx, c, getUserParams{Login: "octo", Fields: "all"})
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}

// BenchmarkCallGetInterceptors is BenchmarkCallGet through a client with a
// no-op call interceptor and a no-op attempt interceptor: what the send
// chain's extension points cost.
func BenchmarkCallGetInterceptors(b *testing.B) {
	srv := benchServer(b)
	noop := func(next kit.Sender) kit.Sender {
		return func(ctx context.Context, req *kit.Request) (*kit.Response, error) { return next(ctx, req) }
	}
	c, err := kit.NewClient(srv.URL+"/api", kit.WithInterceptors(noop), kit.WithAttemptInterceptors(noop))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		u, err := benchGet.Call(ctx, c, getUserParams{Login: "octo", Fields: "all"})
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}

func BenchmarkBaselineGet(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	base := srv.URL + "/api"
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		u, err := baselineGet(ctx, hc, base, "octo", "all")
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}

func baselineGet(ctx context.Context, hc *http.Client, base, login, fields string) (benchUser, error) {
	var u benchUser
	q := url.Values{"fields": {fields}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/users/"+url.PathEscape(login)+"?"+q.Encode(), nil)
	if err != nil {
		return u, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return u, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return u, fmt.Errorf("status %d", resp.StatusCode)
	}
	err = json.NewDecoder(resp.Body).Decode(&u)
	return u, err
}

func BenchmarkCallPost(b *testing.B) {
	srv := benchServer(b)
	c, err := kit.NewClient(srv.URL + "/api")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		u, err := benchPost.Call(ctx, c, struct{ User benchUser }{benchRecord})
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}

func BenchmarkBaselinePost(b *testing.B) {
	srv := benchServer(b)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	base := srv.URL + "/api"
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		u, err := baselinePost(ctx, hc, base, &benchRecord)
		if err != nil || u.ID != 42 {
			b.Fatal(u, err)
		}
	}
}

func baselinePost(ctx context.Context, hc *http.Client, base string, in *benchUser) (benchUser, error) {
	var u benchUser
	body, err := json.Marshal(in)
	if err != nil {
		return u, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/users", bytes.NewReader(body))
	if err != nil {
		return u, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return u, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return u, fmt.Errorf("status %d", resp.StatusCode)
	}
	err = json.NewDecoder(resp.Body).Decode(&u)
	return u, err
}
