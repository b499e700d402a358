package kitoauth2_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kitoauth2"
	"golang.org/x/oauth2/clientcredentials"
)

type Account struct {
	Name string `json:"name"`
}

var getAccount = kit.Get[kit.NoParams, Account]("/account")

func ExampleAuth() {
	// A loopback OAuth2 provider: a client-credentials token endpoint and
	// an API that wants its token.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/token":
			json.NewEncoder(w).Encode(map[string]any{"access_token": "abc", "token_type": "bearer", "expires_in": 3600})
		case "/api/account":
			if r.Header.Get("Authorization") != "Bearer abc" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, `{"name":"acme"}`)
		}
	}))
	defer srv.Close()

	cc := &clientcredentials.Config{ClientID: "app", ClientSecret: "app-secret", TokenURL: srv.URL + "/token"}
	auth := kitoauth2.Auth(cc.TokenSource(context.Background()))
	c, err := kit.NewClient(srv.URL+"/api", kit.WithAuth(auth))
	if err != nil {
		log.Fatal(err)
	}
	acct, err := getAccount.Call(context.Background(), c, kit.NoParams{})
	if err != nil {
		log.Fatal(err)
	}
	tok, _ := auth.Token(context.Background())
	fmt.Println(acct.Name, tok.Type)
	// Output:
	// acme Bearer
}
