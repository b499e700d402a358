package openai

// The driver of TestOpenAPIPrismOpenAI (cmd/kitgen): copied into the
// package generated from OpenAI's document and run against Stoplight Prism
// serving that document with --errors, so a request the document does not
// allow fails (422) instead of passing unnoticed. Most of the document's
// responses have no examples: Prism builds them from the schemas ("string",
// 0, the first enum value), which the assertions below expect.

import (
	"context"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/kithttp/kit"
)

func TestAgainstPrism(t *testing.T) {
	base := os.Getenv("KIT_PRISM_OPENAI")
	ctx := context.Background()
	c, err := NewClient(base, kit.WithAuth(kit.Bearer("sk-test")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	// Security: every operation needs the bearer (ApiKeyAuth). Without it
	// Prism answers 401; with it, 200.
	anon, err := NewClient(base)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	var he *kit.HTTPError
	if _, err := anon.ModelsAPI.ListModels(ctx); !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Errorf("ListModels without a token: %v, want a 401 from Prism", err)
	}
	models, err := c.ModelsAPI.ListModels(ctx)
	if err != nil || models.Object != ListModelsResponseObjectList {
		t.Errorf("ListModels with a token: %+v, %v", models, err)
	}

	// A list paginated by cursor (after = last_id while has_more): Prism's
	// page says has_more false, so the walk is that first page.
	limit, order := int64(2), ListAssistantsOrderDesc
	n := 0
	for a, err := range c.AssistantsAPI.ListAssistants(ctx, &ListAssistantsParams{Limit: &limit, Order: &order}) {
		if err != nil {
			t.Fatalf("ListAssistants: %v", err)
		}
		if a.Object != AssistantObjectObjectAssistant || a.ID == "" {
			t.Errorf("ListAssistants, record %d: %+v", n, a)
		}
		n++
	}
	if n == 0 {
		t.Error("ListAssistants gave no records")
	}

	// A POST with a JSON body of required scalars and an enum.
	up, err := c.UploadsAPI.CreateUpload(ctx, CreateUploadRequest{
		Filename: "training_examples.jsonl",
		Purpose:  CreateUploadRequestPurposeFineTune,
		Bytes:    2147483648,
		MimeType: "text/jsonl",
	})
	if err != nil {
		t.Fatalf("CreateUpload: %v", err)
	}
	if up.Status != UploadStatusPending || up.Object == nil || *up.Object != UploadObjectUpload {
		t.Errorf("CreateUpload: %+v", up)
	}
	// Prism does check this body: one without the required bytes is refused.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/uploads", strings.NewReader(`{"filename":"a.jsonl","purpose":"batch","mime_type":"text/jsonl"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("POST /uploads without bytes: %d, want 422 (is Prism running with --errors?)", resp.StatusCode)
	}

	// A multipart upload: a file part and a form field, checked by Prism
	// against the document's multipart/form-data schema.
	f, err := c.FilesAPI.CreateFile(ctx, CreateFileRequest{
		File:    kit.FileFromBytes("train.jsonl", []byte(`{"prompt":"a","completion":"b"}`+"\n")),
		Purpose: CreateFileRequestPurposeAssistants,
	})
	if err != nil {
		t.Fatalf("CreateFile: %v", err)
	}
	if f.Object != OpenAIFileObjectFile || f.ID == "" || f.Status == "" {
		t.Errorf("CreateFile: %+v", f)
	}

	// The document's error model: Prefer: code=429 makes Prism answer with
	// the TooManyRequests response the document declares (an ErrorResponse
	// and a Retry-After); one attempt, so that no retry waits.
	c429, err := NewClient(base, kit.WithAuth(kit.Bearer("sk-test")), kit.WithHeader("Prefer", "code=429"), kit.WithRetry(kit.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer c429.Close()
	_, err = c429.AssistantsAPI.GetAssistant(ctx, "asst_abc123")
	var apiErr *ErrorResponse
	if !errors.As(err, &apiErr) || apiErr.ErrorField.Message == "" || !errors.As(err, &he) || he.StatusCode != http.StatusTooManyRequests {
		t.Errorf("GetAssistant answered 429: %v; want an *ErrorResponse", err)
	}
}
