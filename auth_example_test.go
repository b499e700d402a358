package kit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/kithttp/kit"
)

type MyProfile struct {
	Name string `json:"name"`
}

var getMyProfile = kit.Get[kit.NoParams, MyProfile]("/me")

func ExampleBearer() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer my-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"alice"}`)
	}))
	defer srv.Close()

	auth := kit.Bearer("my-token")
	c, err := kit.NewClient(srv.URL, kit.WithAuth(auth))
	if err != nil {
		log.Fatal(err)
	}
	me, err := getMyProfile.Call(context.Background(), c, kit.NoParams{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(me.Name)
	fmt.Println(auth) // printing an auth never shows the secret
	// Output:
	// alice
	// kit.Bearer(REDACTED)
}

// LoginForm is the body of POST /login; LoginToken is its answer.
type LoginForm struct {
	Payload struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
}

type LoginToken struct {
	AccessToken string `json:"access_token"`
}

// The login endpoint is declared NoAuth: it is what produces the token.
var postLogin = kit.Post[LoginForm, LoginToken]("/login", kit.NoAuth())

func ExampleTokenAuth() {
	// A server that issues a token on POST /login and revokes it after one
	// use of GET /me.
	var mu sync.Mutex
	issued, valid := 0, ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/login":
			issued++
			valid = fmt.Sprintf("token-%d", issued)
			json.NewEncoder(w).Encode(LoginToken{AccessToken: valid})
		case "/me":
			if tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); tok != valid {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			valid = "" // one use only
			fmt.Fprint(w, `{"name":"alice"}`)
		}
	}))
	defer srv.Close()

	// The fetch function logs in through the same client: capture the
	// variable, and pass ctx on.
	var c *kit.Client
	auth := kit.TokenAuth(func(ctx context.Context) (kit.Token, error) {
		var body LoginForm
		body.Payload.User, body.Payload.Password = "alice", "secret"
		res, err := postLogin.Call(ctx, c, body)
		if err != nil {
			return kit.Token{}, err
		}
		return kit.Token{Value: res.AccessToken}, nil
	}, kit.OnToken(func(tok kit.Token) {
		fmt.Println("new token:", tok.Value) // save it here, e.g. for kit.WithInitialToken
	}))
	c, err := kit.NewClient(srv.URL, kit.WithAuth(auth))
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	for range 2 {
		// The first call logs in; the second gets a 401, logs in again
		// and is sent again, transparently.
		me, err := getMyProfile.Call(ctx, c, kit.NoParams{})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("hello,", me.Name)
	}
	// Output:
	// new token: token-1
	// hello, alice
	// new token: token-2
	// hello, alice
}
