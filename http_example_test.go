package kit_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// R = kit.Result[T] gives the decoded value and the response's status and
// headers together; a conditional request that gets 304 Not Modified is an
// error matching kit.ErrNotModified.
func ExampleResult() {
	srv, c := demoAPI()
	defer srv.Close()
	ctx := context.Background()

	type UserIfChanged struct {
		ID   int
		ETag string `kit:"If-None-Match,header,omitempty"`
	}
	getUser := kit.Get[UserIfChanged, kit.Result[User]]("/users/{id}")

	r, err := getUser.Call(ctx, c, UserIfChanged{ID: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.Value.Name, r.StatusCode, r.Header.Get("ETag") != "")

	_, err = getUser.Call(ctx, c, UserIfChanged{ID: 1, ETag: r.Header.Get("ETag")})
	fmt.Println(errors.Is(err, kit.ErrNotModified))
	// Output:
	// Ada Lovelace 200 true
	// true
}

// WithErrorModel decodes the API's error bodies; errors.As finds the model
// through the *kit.HTTPError.
func ExampleWithErrorModel() {
	srv := httptest.NewServer(kittest.NewAPI())
	defer srv.Close()
	c, err := kit.NewClient(srv.URL, kit.WithErrorModel[kittest.APIError]())
	if err != nil {
		log.Fatal(err)
	}

	_, err = getUser.Call(context.Background(), c, struct{ ID int }{424242})
	var apiErr *kittest.APIError
	if errors.As(err, &apiErr) {
		fmt.Println("code:", apiErr.Code)
	}
	var he *kit.HTTPError
	if errors.As(err, &he) {
		fmt.Println("status:", he.StatusCode)
	}
	// Output:
	// code: not_found
	// status: 404
}

// FormBody sends the body model as application/x-www-form-urlencoded, its
// fields named by their json tags: here an OAuth2 client credentials token
// request (RFC 6749).
func ExampleFormBody() {
	srv, c := demoAPI()
	defer srv.Close()

	type TokenRequest struct {
		GrantType    string `json:"grant_type"`
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		Scope        string `json:"scope,omitempty"`
	}
	type Token struct {
		AccessToken string `json:"access_token" validate:"required"`
		TokenType   string `json:"token_type"`
	}
	token := kit.Post[struct{ Form TokenRequest }, Token]("/oauth/token", kit.FormBody(), kit.NoAuth())

	tok, err := token.Call(context.Background(), c, struct{ Form TokenRequest }{
		TokenRequest{GrantType: "client_credentials", ClientID: "demo", ClientSecret: "s3cret"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tok.TokenType, len(tok.AccessToken) > 0)
	// Output:
	// Bearer true
}

// Multipart sends the body model as multipart/form-data: File fields are
// file parts, streamed; other fields are text parts.
func ExampleMultipart() {
	srv, c := demoAPI()
	defer srv.Close()

	type UploadForm struct {
		Title string   `json:"title" validate:"required"`
		Doc   kit.File `json:"doc"`
	}
	upload := kit.Post[struct{ Form UploadForm }, kittest.Upload]("/uploads", kit.Multipart())

	up, err := upload.Call(context.Background(), c, struct{ Form UploadForm }{UploadForm{
		Title: "notes",
		Doc:   kit.FileFromBytes("notes.txt", []byte("hello, multipart")),
	}})
	if err != nil {
		log.Fatal(err)
	}
	f := up.Files[0]
	fmt.Println(up.Fields["title"][0], f.Field, f.Name, f.Size)
	// Output:
	// notes doc notes.txt 16
}

// R = io.ReadCloser hands the body over unread: a download of any size
// holds a small buffer, and the body size limit does not apply.
func Example_download() {
	srv, c := demoAPI()
	defer srv.Close()

	download := kit.Get[struct{ Bytes int64 }, io.ReadCloser]("/download")
	body, err := download.Call(context.Background(), c, struct{ Bytes int64 }{64 << 20}) // twice the default body limit
	if err != nil {
		log.Fatal(err)
	}
	defer body.Close() // releases the connection
	h := sha256.New()
	n, err := io.Copy(h, body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d MiB, sha256 %x…\n", n>>20, h.Sum(nil)[:4])
	// Output:
	// 64 MiB, sha256 ce46b2fe…
}

// A `kit:",url"` field replaces the whole URL of a call: here the Location
// of a 202 Accepted, resolved against the base URL.
func Example_followLocation() {
	srv, c := demoAPI()
	defer srv.Close()
	ctx := context.Background()

	type Export struct {
		ID     int    `json:"id"`
		Status string `json:"status"`
	}
	startExport := kit.Post[struct{ Body struct{ Bytes int } }, kit.Result[Export]]("/exports")
	getExport := kit.Get[struct {
		Location string `kit:",url"`
	}, Export]("/exports")

	r, err := startExport.Call(ctx, c, struct{ Body struct{ Bytes int } }{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(r.StatusCode, r.Value.Status, r.Header.Get("Location"))
	e, err := getExport.Call(ctx, c, struct {
		Location string `kit:",url"`
	}{r.Header.Get("Location")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(e.ID, e.Status)
	// Output:
	// 202 pending exports/1
	// 1 done
}
