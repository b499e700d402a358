package kit

import (
	"testing"

	"github.com/kithttp/kit/internal/leakcheck"
)

// TestMain runs the package's tests (internal and external), then fails the
// run if any goroutine outlives them: a client, server, iterator or future
// that was not shut down. See internal/leakcheck.
func TestMain(m *testing.M) { leakcheck.Main(m) }
