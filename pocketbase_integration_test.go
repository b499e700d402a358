//go:build integration

// Integration tests against PocketBase, a real third-party server (built
// from its examples/base by .ci/pocketbase): a multipart file upload and a
// form-encoded record round trip, checked by reading back what PocketBase
// stored; and (pocketbase_realtime_integration_test.go) its realtime
// server-sent events as a typed stream. They are built only with -tags
// integration; the script fails if a test is skipped or does not run.

package kit_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kithttp/kit"
)

// pbError is PocketBase's error body.
type pbError struct {
	Status  int            `json:"status"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

func (e *pbError) Error() string { return strconv.Itoa(e.Status) + " " + e.Message }

type pbRecord struct {
	ID    string  `json:"id" validate:"required"`
	Title string  `json:"title"`
	Notes string  `json:"notes"`
	Count float64 `json:"count"`
	Doc   string  `json:"doc"`
}

type pbUpload struct {
	Title string   `json:"title"`
	Count int      `json:"count"`
	Doc   kit.File `json:"doc"`
}

type pbForm struct {
	Title string `json:"title"`
	Notes string `json:"notes"`
	Count int    `json:"count"`
}

type pbCollection struct {
	Name   string    `json:"name"`
	Type   string    `json:"type"`
	Fields []pbField `json:"fields"`
}

type pbField struct {
	Name      string `json:"name"`
	Type      string `json:"type"`
	MaxSelect int    `json:"maxSelect,omitempty"`
	MaxSize   int    `json:"maxSize,omitempty"`
}

type pbRecordRef struct {
	Collection string
	ID         string
}

var (
	pbLogin = kit.Post[struct {
		Body struct {
			Identity string `json:"identity"`
			Password string `json:"password"`
		}
	}, struct {
		Token string `json:"token" validate:"required"`
	}]("/api/collections/_superusers/auth-with-password", kit.NoAuth())
	pbCreateCollection = kit.Post[struct{ Body pbCollection }, *kit.Response]("/api/collections")
	pbDeleteCollection = kit.Delete[struct{ Name string }, *kit.Response]("/api/collections/{name}")
	pbCreateMultipart  = kit.Post[struct {
		Collection string
		Body       pbUpload
	}, pbRecord]("/api/collections/{collection}/records", kit.Multipart())
	pbCreateForm = kit.Post[struct {
		Collection string
		Body       pbForm
	}, pbRecord]("/api/collections/{collection}/records", kit.FormBody())
	pbGetRecord = kit.Get[pbRecordRef, kit.Result[pbRecord]]("/api/collections/{collection}/records/{id}")
	pbFile      = kit.Get[struct {
		Collection, ID, Name string
	}, kit.Result[io.ReadCloser]]("/api/files/{collection}/{id}/{name}")
)

// pocketBase returns a client of the PocketBase that .ci/pocketbase
// started, logged in as its superuser (a TokenAuth that calls the login
// endpoint), and a new collection with the fields of pbRecord, deleted when
// the test ends. It skips the test when no PocketBase is configured.
func pocketBase(t *testing.T, ctx context.Context) (*kit.Client, string) {
	t.Helper()
	base := os.Getenv("KIT_POCKETBASE_URL")
	if base == "" {
		t.Skip("PocketBase not configured: set KIT_POCKETBASE_URL (bash .ci/pocketbase starts one)")
	}
	var c *kit.Client
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		var p struct {
			Body struct {
				Identity string `json:"identity"`
				Password string `json:"password"`
			}
		}
		p.Body.Identity, p.Body.Password = os.Getenv("KIT_POCKETBASE_EMAIL"), os.Getenv("KIT_POCKETBASE_PASSWORD")
		r, err := pbLogin.Call(ctx, c, p)
		return kit.Token{Value: r.Token}, err
	})
	c = newClient(t, base, kit.WithAuth(auth), kit.WithErrorModel[pbError]())

	coll := "kit_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	_, err := pbCreateCollection.Call(ctx, c, struct{ Body pbCollection }{pbCollection{Name: coll, Type: "base", Fields: []pbField{
		{Name: "title", Type: "text"}, {Name: "notes", Type: "text"}, {Name: "count", Type: "number"},
		{Name: "doc", Type: "file", MaxSelect: 1, MaxSize: 64 << 20},
	}}})
	if err != nil {
		t.Fatalf("creating collection %s: %v", coll, err)
	}
	t.Cleanup(func() {
		if _, err := pbDeleteCollection.Call(context.Background(), c, struct{ Name string }{coll}); err != nil {
			t.Errorf("deleting collection %s: %v", coll, err)
		}
	})
	return c, coll
}

func TestPocketBaseUploadAndForm(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, coll := pocketBase(t, ctx)

	// A multipart upload of a 3 MiB file from disk (streamed, with a
	// Content-Length), read back: the record and the file's bytes.
	content := make([]byte, 3<<20)
	rand.Read(content)
	path := filepath.Join(t.TempDir(), "payload.bin")
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	doc, err := kit.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := pbCreateMultipart.Call(ctx, c, struct {
		Collection string
		Body       pbUpload
	}{coll, pbUpload{Title: "multipart from kit", Count: 42, Doc: doc}})
	if err != nil {
		t.Fatalf("multipart upload: %v", err)
	}
	got, err := pbGetRecord.Call(ctx, c, pbRecordRef{coll, rec.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got.Value.Title != "multipart from kit" || got.Value.Count != 42 || got.Value.Doc == "" {
		t.Fatalf("stored record %+v", got.Value)
	}
	file, err := pbFile.Call(ctx, c, struct{ Collection, ID, Name string }{coll, rec.ID, got.Value.Doc})
	if err != nil {
		t.Fatalf("downloading %s: %v", got.Value.Doc, err)
	}
	h := sha256.New()
	n, err := io.Copy(h, file.Value)
	file.Value.Close()
	want := sha256.Sum256(content)
	if err != nil || n != int64(len(content)) || hex.EncodeToString(h.Sum(nil)) != hex.EncodeToString(want[:]) {
		t.Fatalf("stored file: %d bytes (want %d), %v, checksum match %v", n, len(content), err, hex.EncodeToString(h.Sum(nil)) == hex.EncodeToString(want[:]))
	}
	t.Logf("pocketbase: uploaded %d bytes as %s (Content-Type %s), read them back intact", len(content), got.Value.Doc, file.Header.Get("Content-Type"))

	// A form-encoded record, read back.
	form := pbForm{Title: "form & fields = kit", Notes: "ünïcode, spaces and +plus", Count: 7}
	frec, err := pbCreateForm.Call(ctx, c, struct {
		Collection string
		Body       pbForm
	}{coll, form})
	if err != nil {
		t.Fatalf("form post: %v", err)
	}
	fgot, err := pbGetRecord.Call(ctx, c, pbRecordRef{coll, frec.ID})
	if err != nil {
		t.Fatal(err)
	}
	if fgot.Value.Title != form.Title || fgot.Value.Notes != form.Notes || fgot.Value.Count != 7 || fgot.Value.Doc != "" {
		t.Fatalf("stored form record %+v, want %+v", fgot.Value, form)
	}

	// PocketBase's error model, through errors.As.
	_, err = pbGetRecord.Call(ctx, c, pbRecordRef{coll, "missingrecord00"})
	var pe *pbError
	if !errors.As(err, &pe) || pe.Status != 404 {
		t.Fatalf("missing record: err = %v, want PocketBase's 404 error model", err)
	}
}
