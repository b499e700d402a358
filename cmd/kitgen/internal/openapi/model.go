package openapi

import (
	"errors"
	"fmt"
)

// Doc is an OpenAPI 3.0 or 3.1 document, reduced to what a client needs:
// its operations in document order, the named schemas they use, the
// servers and the security schemes. $refs are resolved: a reference is the
// object it names, so two uses of one component are the same pointer.
type Doc struct {
	Version string // the document's openapi field, e.g. "3.0.3" or "3.1.0"; "2.0" for Swagger 2.0
	Title   string
	Servers []string
	// ServerList is the servers with their descriptions and variables,
	// in document order (Servers holds their URLs).
	ServerList []Server
	Ops        []*Operation
	Schemas    []*Schema                  // components/schemas, in document order
	Security   map[string]*SecurityScheme // components/securitySchemes by name
	DefSecure  []SecurityRequirement      // the document's top-level security
	// Skipped lists the operations that cannot be read, each with why; the
	// rest of the document is still usable.
	Skipped []Skip
	// Notes are remarks on what was read: a part of a schema left out.
	Notes []Note
	// Webhooks are the requests the API sends (webhooks, callbacks).
	Webhooks []*Webhook
}

// Server is a servers entry.
type Server struct {
	URL         string // as written, with {variables}
	Description string
	Variables   []ServerVariable // in document order
}

// ServerVariable is a variable of a server's URL.
type ServerVariable struct {
	Name, Default, Description string
	Enum                       []string
}

// Skip is an operation left out of a Doc, and why.
type Skip struct {
	Method, Path string
	Pos          Pos
	Reason       string
}

// Operation is one method on one path.
type Operation struct {
	Method      string // upper case: GET, POST, ...
	Path        string // as written, with {placeholders}
	ID          string // operationId; "" when absent
	Summary     string
	Description string
	Tags        []string
	Deprecated  bool
	// ExternalDocs is the URL of the operation's externalDocs, "" when
	// it has none.
	ExternalDocs string
	Params       []*Parameter // path-level and operation-level, merged (the operation's win)
	Body         *RequestBody // nil: none
	Responses    []*Response  // in document order; "default" has Status 0
	Security     []SecurityRequirement
	HasSecurity  bool // Security is set on the operation (an empty list means no auth)
	Extensions   map[string]any
	Pos          Pos
}

// Parameter is a path, query, header or cookie parameter.
type Parameter struct {
	Name        string
	In          string // path, query, header, cookie
	Description string
	Required    bool
	Deprecated  bool
	Style       string // as declared, or the default for In
	Explode     bool   // as declared, or the default for Style
	Schema      *Schema
	Extensions  map[string]any
	// Component is the components/parameters name the operation
	// refers to it by, "" for a parameter written in place.
	Component string
	Pos       Pos
}

// RequestBody is an operation's body, by media type.
type RequestBody struct {
	Description string
	Required    bool
	Content     []*MediaType
	Pos         Pos
}

// Response is one status's answer.
type Response struct {
	Status      int    // 200, 404, ...; 0 for "default"
	Range       string // "2XX", "4XX", "5XX" for a range; "" otherwise
	Description string
	Headers     map[string]*Schema
	Content     []*MediaType
	Pos         Pos
}

// MediaType is a body of one content type.
type MediaType struct {
	Type     string // e.g. "application/json", lower case, parameters dropped
	Schema   *Schema
	Item     *Schema                  // OpenAPI 3.2 itemSchema, for streams
	Encoding map[string]*FormEncoding // form and multipart fields' encodings
	Pos      Pos
}

// FormEncoding is how one form field is written.
type FormEncoding struct {
	ContentType string
	Style       string
	Explode     *bool
}

// SecurityRequirement names the schemes one alternative needs, all at once.
type SecurityRequirement []string

// SecurityScheme is a components/securitySchemes entry.
type SecurityScheme struct {
	Name   string
	Type   string // http, apiKey, oauth2, openIdConnect, mutualTLS
	Scheme string // for http: bearer, basic
	In     string // for apiKey: header, query, cookie
	Param  string // for apiKey: the header or query parameter's name
	Flows  []string
	// TokenURL is the clientCredentials flow's token endpoint, "" when
	// the scheme has none.
	TokenURL string
	Pos      Pos
}

// Schema is a JSON schema, with 3.0's and 3.1's ways of saying the same
// thing made one: nullable is a flag whether it came from "nullable: true"
// or from "null" in a type list or a oneOf branch.
type Schema struct {
	Name        string // the components/schemas name; "" for an inline schema
	Type        string // object, array, string, integer, number, boolean; "" when unconstrained
	Nullable    bool
	Format      string
	Description string
	Enum        []any
	Default     any
	// Minimum and Maximum are the bounds of a number, nil when not
	// given.
	Minimum, Maximum *float64
	Properties       []*Property
	Required         []string
	Items            *Schema
	// AdditionalProperties is the schema of the values of a map: nil when
	// none is allowed or said; Any when the value is unconstrained.
	AdditionalProperties *Schema
	// Closed is set when the object allows no member its properties do
	// not name (additionalProperties or unevaluatedProperties false).
	Closed              bool
	AllOf, OneOf, AnyOf []*Schema
	Discriminator       *Discriminator
	ReadOnly, WriteOnly bool
	Deprecated          bool
	Extensions          map[string]any
	Pos                 Pos
}

// Any is the schema with no constraint ({} or true).
var Any = &Schema{Name: ""}

// Property is one field of an object schema, in document order.
type Property struct {
	Name   string
	Schema *Schema
}

// Discriminator picks a oneOf/anyOf branch by a property's value.
type Discriminator struct {
	Property string
	Mapping  map[string]*Schema // explicit mappings, resolved
}

// Pos is a position in a document.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a problem at a position of a document.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// wrap puts context before an error's message, keeping the position of the
// *Error inside, so that a problem deep in a schema is reported where it is.
func wrap(err error, context string) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Pos: e.Pos, Msg: context + ": " + e.Msg}
	}
	return fmt.Errorf("%s: %w", context, err)
}
