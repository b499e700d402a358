package main

import (
	"context"
	"errors"
	"net/http"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// Error models per status, members a model does not name, and what a
// declaration does not name.
type (
	flowCredentials struct {
		Username string `json:"username"`
		Password string `json:"password"`
	}
	// lean is a user model that knows two members and keeps the rest.
	lean struct {
		Name  string            `json:"name"`
		Email string            `json:"email"`
		Extra kit.UnknownFields `json:",embed"`
	}
)

var flowLogin = kit.Post[struct{ Body flowCredentials }, tokenResponse]("/flows/login",
	kit.NoAuth(), kit.WithErrorModelFor[kittest.LoginFlow](http.StatusBadRequest))

func errorsTour(ctx context.Context, t *tour, baseURL string, hc *http.Client) error {
	t.section("Error models per status, unknown members, extra fields")
	c, err := kit.NewClient(baseURL, kit.WithHTTPClient(hc), kit.WithErrorModel[kittest.APIError]())
	if err != nil {
		return err
	}
	defer c.Close()

	_, err = flowLogin.Call(ctx, c, struct{ Body flowCredentials }{flowCredentials{"demo", "wrong"}})
	var flow *kittest.LoginFlow
	if !errors.As(err, &flow) {
		return errors.New("no *kittest.LoginFlow in a failed login: " + errString(err))
	}
	t.say("a failed login answers 400 with its own model (kit.WithErrorModelFor[kittest.LoginFlow](400)): %q", flow.UI.Messages[0].Text)
	var apiErr *kittest.APIError
	_, err = kit.Get[struct{ ID int }, User]("/users/{id}").Call(ctx, c, struct{ ID int }{424242})
	if !errors.As(err, &apiErr) {
		return errors.New("no *kittest.APIError for a 404: " + errString(err))
	}
	t.say("other statuses keep the client's model: %s", apiErr.Error())

	u, err := kit.Get[struct{ ID int }, lean]("/users/{id}").Call(ctx, c, struct{ ID int }{2})
	if err != nil {
		return err
	}
	t.say("kit.UnknownFields keeps what the model does not name: %s has team_id %s and %d other members", u.Name, u.Extra["team_id"], len(u.Extra)-1)

	got, err := kit.Put[struct{ Body lean }, echoed]("/echo").Call(ctx, c, struct{ Body lean }{u},
		kit.WithQuery("dry_run", "true"), kit.WithJSONField("metadata.source", "tour"))
	if err != nil {
		return err
	}
	t.say("sent back with kit.WithQuery and kit.WithJSONField: %s %s", got.RequestURI, got.Body)
	return nil
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
