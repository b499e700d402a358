//go:build integration

// Integration test against json-server, a real third-party REST server.
// It is built only with -tags integration, which .ci/integration passes
// after starting json-server; the script fails if the test is skipped or
// does not run.

package kit_test

import (
	"errors"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// record is the shape of json-server's generated records (.ci/integration).
type record struct {
	ID     int      `json:"id,omitempty"`
	Name   string   `json:"name" validate:"required"`
	Email  string   `json:"email" validate:"required,email"`
	Score  int      `json:"score"`
	Active bool     `json:"active"`
	Tags   []string `json:"tags"`
}

// jsonServer returns a client for the json-server that .ci/integration
// starts, skipping the test when none is reachable.
func jsonServer(t *testing.T) (*kit.Client, int) {
	t.Helper()
	base := os.Getenv("KIT_JSONSERVER_URL")
	if base == "" {
		t.Skip("json-server not configured: set KIT_JSONSERVER_URL (bash .ci/integration starts one)")
	}
	resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + "/records/1")
	if err != nil {
		t.Skipf("json-server at %s not reachable: %v", base, err)
	}
	resp.Body.Close()
	n, err := strconv.Atoi(os.Getenv("KIT_JSONSERVER_RECORDS"))
	if err != nil {
		t.Fatalf("KIT_JSONSERVER_RECORDS: %v", err)
	}
	return newClient(t, base), n
}

func TestJSONServerIterate(t *testing.T) {
	c, n := jsonServer(t)
	want := make([]int, n)
	for i := range want {
		want[i] = i + 1
	}
	tests := []struct {
		name string
		p    kit.Paginator
	}{
		{"PageNumber", kit.PageNumber{PageParam: "_page", SizeParam: "_limit", PageSize: 70}},
		{"Offset", kit.Offset{OffsetParam: "_start", LimitParam: "_limit", Limit: 64}},
		{"LinkHeader", kit.LinkHeader{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := kit.NewResource[record](c, "/records", kit.WithPaginator(tt.p))
			query := map[string]any{"_sort": "id"}
			if tt.name == "LinkHeader" {
				query["_page"], query["_limit"] = 1, 90
			}
			var ids []int
			for rec, err := range res.Iterate(t.Context(), query) {
				if err != nil {
					t.Fatal(err)
				}
				if rec.Name != "record-"+strconv.Itoa(rec.ID) {
					t.Fatalf("record %d has name %q", rec.ID, rec.Name)
				}
				ids = append(ids, rec.ID)
			}
			// Records created by the CRUD test may exist beyond the seed.
			if len(ids) < n || !slices.Equal(ids[:n], want) {
				t.Fatalf("got %d records (first %v), want ids 1..%d in order", len(ids), ids[:min(5, len(ids))], n)
			}
		})
	}
}

func TestJSONServerCRUD(t *testing.T) {
	c, _ := jsonServer(t)
	res := kit.NewResource[record](c, "/records")
	ctx := t.Context()
	created, err := res.Create(ctx, record{Name: "kit", Email: "kit@example.com", Score: 3, Tags: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if created.ID == 0 || created.Name != "kit" {
		t.Fatalf("created %+v", created)
	}
	got, err := res.Get(ctx, created.ID)
	if err != nil || got.Email != "kit@example.com" {
		t.Fatalf("get: %+v, %v", got, err)
	}
	got.Score = 99
	updated, err := res.Update(ctx, created.ID, got)
	if err != nil || updated.Score != 99 {
		t.Fatalf("update: %+v, %v", updated, err)
	}
	patched, err := res.Patch(ctx, created.ID, struct {
		Active bool `json:"active"`
	}{true})
	if err != nil || !patched.Active || patched.Score != 99 {
		t.Fatalf("patch: %+v, %v", patched, err)
	}
	list, err := res.List(ctx, map[string]any{"name": "kit"})
	if err != nil || len(list) != 1 || list[0].ID != created.ID {
		t.Fatalf("list: %+v, %v", list, err)
	}
	resp, err := res.Delete(ctx, created.ID)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("delete: %v, %v", resp, err)
	}
	_, err = res.Get(ctx, created.ID)
	var he *kit.HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusNotFound {
		t.Fatalf("get after delete: %v", err)
	}
}
