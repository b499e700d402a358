package kittest

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"net/http"
)

// LoginFlow is the error model of one route of the API, POST
// /flows/login: a failed login answers 400 with the login flow (as Ory
// Kratos does), whose messages a login screen shows, while every other
// error of the route has the API's usual body, [APIError]. Its id is
// required (`kit:",required"`): a 400 without one, such as the route's
// answer to a body that is not JSON, is not a LoginFlow. A client
// declares it for that route and that status:
//
//	login := kit.Post[LoginParams, Token]("/flows/login",
//		kit.WithErrorModelFor[kittest.LoginFlow](http.StatusBadRequest))
//
// *LoginFlow implements error, so errors.As finds it.
type LoginFlow struct {
	ID string `json:"id" kit:",required"` // the flow, to submit it again
	UI struct {
		Messages []FlowMessage `json:"messages"`
	} `json:"ui"`
}

// FlowMessage is one message of a [LoginFlow], for the person logging in.
type FlowMessage struct {
	ID   int    `json:"id"`   // 4000006: the credentials are invalid
	Type string `json:"type"` // "error"
	Text string `json:"text"`
}

// Error returns the flow's first message, or "login flow <id>".
func (f *LoginFlow) Error() string {
	if len(f.UI.Messages) > 0 {
		return f.UI.Messages[0].Text
	}
	return "login flow " + f.ID
}

// loginFlow handles POST /flows/login: the token of /login for the right
// credentials, a 400 LoginFlow for wrong ones, the usual APIError for a
// body that is not a JSON object of strings.
func (a *API) loginFlow(w http.ResponseWriter, r *http.Request) {
	body, ok := apiReadJSON(w, r, '{')
	if !ok {
		return
	}
	var creds struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	if err := json.Unmarshal(body, &creds); err != nil {
		apiBadRequest(w, "username and password must be strings")
		return
	}
	userOK := subtle.ConstantTimeCompare([]byte(creds.Username), []byte(a.cfg.username)) == 1
	passOK := subtle.ConstantTimeCompare([]byte(creds.Password), []byte(a.cfg.password)) == 1
	if userOK && passOK {
		a.issueToken(w)
		return
	}
	var f LoginFlow
	f.ID = rand.Text()[:12]
	f.UI.Messages = []FlowMessage{{ID: 4000006, Type: "error", Text: "The provided credentials are invalid, check for spelling mistakes in your password or username."}}
	apiWriteJSON(w, http.StatusBadRequest, f)
}
