package kit

import (
	"context"
	"net/http"
)

// Auth adds credentials to a request. kit calls Authenticate on a clone of
// each request that uses auth (endpoints declared with NoAuth never do), and
// only for requests to the client's base URL origin. Implementations must be
// safe for concurrent use.
type Auth interface {
	Authenticate(req *http.Request) error
}

// Refresher is an Auth whose credentials can be renewed. When a call that
// uses auth gets a 401 and the client's Auth is a Refresher, kit calls
// Refresh once and sends the request again, once.
type Refresher interface {
	Refresh(ctx context.Context) error
}
