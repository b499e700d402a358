package swagger2

// This file is yours: kitgen openapi writes it once, and afterwards
// rewrites only its go:generate line, to the flags of the last run.

//go:generate go tool kitgen openapi -package swagger2 spec.yaml
//go:generate go tool kitgen

import "github.com/kithttp/kit"

// DefaultBaseURL is the first server the document names.
const DefaultBaseURL = "https://api.example.com/"

// New returns a client of DefaultBaseURL; pass kit.WithAuth for the API's
// credentials, if it has any.
func New(opts ...kit.Option) (*Client, error) {
	return NewClient(DefaultBaseURL, opts...)
}
