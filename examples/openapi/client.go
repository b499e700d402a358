package users

// This file is yours: kitgen openapi writes it once, and afterwards
// rewrites only its go:generate line, to the flags of the last run.

//go:generate go tool kitgen openapi -package users -overlay overlay.yaml -env USERS spec.yaml
//go:generate go tool kitgen

import "github.com/kithttp/kit"

// DefaultBaseURL is the first server the document names.
const DefaultBaseURL = "https://api.example.com"

// New returns a client of $USERS_BASE_URL, or of DefaultBaseURL when it is
// unset, with the options the environment gives (OptionsFromEnv) and then
// opts, which win over them: an option the caller gives, then the
// environment, then the document.
func New(opts ...kit.Option) (*Client, error) {
	return NewClient(BaseURLFromEnv(DefaultBaseURL), append(OptionsFromEnv(), opts...)...)
}
