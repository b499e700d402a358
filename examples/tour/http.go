package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// The rest of HTTP: bodies other than JSON, results with their headers,
// streamed downloads, Locations to follow and the API's error model.

// tokenForm is an OAuth2 client credentials request (RFC 6749), sent
// form-encoded: its fields are named by their json tags.
type tokenForm struct {
	GrantType    string `json:"grant_type"`
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// uploadForm is a multipart body: the File is a file part, streamed.
type uploadForm struct {
	Title string   `json:"title" validate:"required"`
	Doc   kit.File `json:"doc"`
}

type export struct {
	ID     int    `json:"id"`
	Status string `json:"status"`
	Bytes  int64  `json:"bytes"`
}

var (
	oauthToken  = kit.Post[struct{ Form tokenForm }, tokenResponse]("/oauth/token", kit.FormBody(), kit.NoAuth())
	uploadFile  = kit.Post[struct{ Form uploadForm }, kittest.Upload]("/uploads", kit.Multipart())
	download    = kit.Get[struct{ Bytes int64 }, kit.Result[io.ReadCloser]]("/download")
	startExport = kit.Post[struct{ Body struct{ Bytes int64 } }, kit.Result[export]]("/exports")
	followURL   = kit.Get[struct {
		Location string `kit:",url"`
	}, export]("/exports")
	userIfChanged = kit.Get[struct {
		ID   int
		ETag string `kit:"If-None-Match,header,omitempty"`
	}, kit.Result[User]]("/users/{id}")
)

func httpTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("The rest of HTTP: forms, uploads, downloads, Locations, ETags, error models")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithErrorModel[kittest.APIError]())
	if err != nil {
		return err
	}
	defer c.Close()

	tok, err := oauthToken.Call(ctx, c, struct{ Form tokenForm }{tokenForm{"client_credentials", "demo", "s3cret"}})
	if err != nil {
		return err
	}
	t.say("OAuth2 client credentials, form-encoded: a %s token for %d s", tok.TokenType, tok.ExpiresIn)

	doc := make([]byte, 5<<20)
	for i := range doc {
		doc[i] = byte(i % 251)
	}
	up, err := uploadFile.Call(ctx, c, struct{ Form uploadForm }{uploadForm{Title: "tour", Doc: kit.FileFromBytes("tour.bin", doc)}})
	if err != nil {
		return err
	}
	f := up.Files[0]
	sum := sha256.Sum256(doc)
	t.say("multipart upload: the server got part %q, file %s, %d bytes, checksum match %v", f.Field, f.Name, f.Size, f.SHA256 == fmt.Sprintf("%x", sum))

	r, err := download.Call(ctx, c, struct{ Bytes int64 }{48 << 20})
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, r.Value)
	r.Value.Close()
	if err != nil {
		return err
	}
	t.say("streamed download (R = kit.Result[io.ReadCloser]): %d MiB of %s, past the 32 MiB body limit", n>>20, r.Header.Get("Content-Type"))

	started, err := startExport.Call(ctx, c, struct{ Body struct{ Bytes int64 } }{struct{ Bytes int64 }{1024}})
	if err != nil {
		return err
	}
	loc := started.Header.Get("Location")
	e, err := followURL.Call(ctx, c, struct {
		Location string `kit:",url"`
	}{loc})
	if err != nil {
		return err
	}
	t.say("%d %s with Location %s; followed with a `kit:\",url\"` field: export %d is %s", started.StatusCode, http.StatusText(started.StatusCode), loc, e.ID, e.Status)

	u, err := userIfChanged.Call(ctx, c, struct {
		ID   int
		ETag string `kit:"If-None-Match,header,omitempty"`
	}{ID: 2})
	if err != nil {
		return err
	}
	_, err = userIfChanged.Call(ctx, c, struct {
		ID   int
		ETag string `kit:"If-None-Match,header,omitempty"`
	}{ID: 2, ETag: u.Header.Get("ETag")})
	t.say("kit.Result[User] gave %s with ETag %s; asking again with it: ErrNotModified=%v", u.Value.Name, u.Header.Get("ETag"), errors.Is(err, kit.ErrNotModified))

	_, err = getUser.Call(ctx, c, struct{ ID int }{424242})
	var apiErr *kittest.APIError
	if errors.As(err, &apiErr) {
		t.say("the API's error model through errors.As: *kittest.APIError code=%s message=%q", apiErr.Code, apiErr.Message)
	}
	return nil
}
