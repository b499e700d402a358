package openapi

import "testing"

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"user_id": "UserID", "issues/list-for-repo": "IssuesListForRepo", "HTTPServer": "HTTPServer",
		"+1": "Plus1", "-1": "X1", "": "Fallback", "filter[state]": "FilterState", "StartTime<": "StartTime",
		"createChatCompletion": "CreateChatCompletion", "repos/get-content": "ReposGetContent", "2fa": "X2fa",
		"api_url": "APIURL", "x-github-api-version": "XGithubAPIVersion",
		// A letter with no upper case gave an unexported name: a field
		// encoding/json neither sends nor reads.
		"名前": "X名前", "ǅx": "Ǆx", "ª": "Xª",
	} {
		if got := exported(in, "Fallback"); got != want {
			t.Errorf("exported(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"per_page": "perPage", "type": "type_", "id": "id", "url_path": "urlPath", "X-Request-Id": "xRequestID",
		"ctx": "ctx_", "owner": "owner", "string": "string_", "ID": "id",
	} {
		if got := local(in); got != want {
			t.Errorf("local(%q) = %q, want %q", in, got, want)
		}
	}
	n := newNamer("Client")
	for _, c := range []struct{ in, want string }{{"Client", "Client2"}, {"User", "User"}, {"User", "User2"}, {"User2", "User22"}} {
		if got := n.name(c.in); got != c.want {
			t.Errorf("name(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
