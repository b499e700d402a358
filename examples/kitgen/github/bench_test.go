package github_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/examples/kitgen/github"
)

// staticEngine answers every request with the same user, without a
// network, so that a benchmark measures kit and the generated code.
type staticEngine struct{}

func (staticEngine) Do(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": {"application/json"}},
		Body:       io.NopCloser(strings.NewReader(`{"id":1,"name":"Ada Lovelace","email":"ada@example.com","active":true}`)),
		Request:    req,
	}, nil
}

// BenchmarkGetUser compares the generated GetUser with the same endpoint
// called by hand (handwritten_test.go): the generated method adds one
// struct literal and one interface call to Endpoint.Call.
func BenchmarkGetUser(b *testing.B) {
	c, err := kit.NewClient("https://api.example.com", kit.WithSyncEngine(staticEngine{}))
	if err != nil {
		b.Fatal(err)
	}
	gh := github.BindClient(c)
	ctx := context.Background()
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := gh.GetUser(ctx, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := getUser.Call(ctx, c, getUserParams{1}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
