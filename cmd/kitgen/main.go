// Kitgen generates kit clients from Go declarations.
//
// A package declares its API as a struct embedding *kit.Client (or
// *kit.AsyncClient), marked //kit:client, that embeds endpoint interfaces
// (or holds them in named fields: groups, called as c.Repos.Get) and holds
// resource fields. Each interface method is an endpoint: its
// //kit:get (post, put, patch, delete) directive gives the path, its own
// parameters are routed by name and type (a {placeholder} by name, a data
// model to the JSON body, anything else to the query), and its result
// chooses the call: (R, error), error, *kit.Future[R] or iter.Seq2[T, error].
//
//	//go:generate go tool kitgen
//
//	//kit:client
//	type Client struct {
//		*kit.Client
//		API
//		//kit:resource /users
//		Users *kit.Resource[User]
//	}
//
//	type API interface {
//		//kit:get /users/{id}
//		GetUser(ctx context.Context, id int) (User, error)
//	}
//
// kitgen writes kit_gen.go beside the declarations, with NewClient and
// BindClient filling every field. Usage:
//
//	kitgen [-o kit_gen.go] [-tags a,b] [-check] [-version] [dir ...]
//
// dir defaults to the current directory, where go generate runs. Mistakes
// are reported as file:line:col: message, and the old file is kept. -check
// writes nothing and fails when a generated file is not up to date (for
// CI); -version prints the kit version it generates for. A package whose
// module builds with another published version of kit is refused with both
// versions and the command to run: kitgen routes parameters by its own
// kit's rules.
//
// From an OpenAPI 3.0, 3.1 or 3.2 document, or a Swagger 2.0 one (JSON or
// YAML):
//
//	kitgen openapi [-o dir] [-package name] [-config file] [-overlay file]... [-remote] [-ops globs] [-tags a,b] [-env PREFIX] [-docs] [-check] [-v] spec
//
// writes dir/openapi_gen.go (models and //kit: interfaces, always
// regenerated), dir/client.go when it does not exist (afterwards only its
// go:generate line is rewritten, to the flags of the run), and
// dir/kit_gen.go, and prints what it emitted, skipped (with reasons) and
// paginated; -v adds one line per paginated operation with its paginator
// and the evidence, and per operation that looks paged but is one page
// (which also gets a note). An operation it cannot map is skipped, never
// the whole document. -config names a YAML file that says how operations paginate
// where detection cannot see it (the document's x-kit-pagination,
// x-speakeasy-pagination, x-fern-pagination and x-ms-pageable are read
// too). -overlay applies an OpenAPI Overlay 1.0 file to the document
// first (repeatable, in order). $refs to URLs are followed only with
// -remote (which also takes a URL as the spec). -env PREFIX makes New read
// the base URL and each security scheme's secret from PREFIX_...
// environment variables when the caller gives none (the caller's option
// wins, then the environment, then the document); -docs writes api.md.
// Client holds the operations of each tag in a named field, called as
// c.UsersAPI.GetUser (a test replaces one group: &Client{UsersAPI: fake});
// -embed, deprecated, embeds them as earlier versions did (embedding makes
// the compiler write two wrapper functions per operation; it goes in the
// next version).
//
// Every generated method ends with opts ...kit.CallOption, options for that
// call (kit.WithQuery for a parameter the document does not name,
// kit.WithHeader, kit.WithTimeout...). A paginated operation has two
// methods: Op, an iter.Seq2 of its records, and OpPages, of its pages,
// each with its records and response. An operation whose error responses
// have another schema than the client's decodes them into its own model
// (kit.WithErrorModelFor for a status), which errors.As finds.
// examples/openapi is a generated client (with an overlay and -env), and
// examples/openapi/swagger2 one generated from a Swagger 2.0 document. The
// directives and routing rules are described in the kitgen guide of
// github.com/kithttp/kit (docs/kitgen.md; docs/openapi.md for kitgen openapi).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/cmd/kitgen/internal/gen"
	"github.com/kithttp/kit/cmd/kitgen/internal/openapi"
	"github.com/kithttp/kit/cmd/kitgen/internal/safetext"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "openapi" {
		return runOpenAPI(args[1:])
	}
	fs := flag.NewFlagSet("kitgen", flag.ContinueOnError)
	output := fs.String("o", gen.DefaultOutput, "name of the generated `file` in each package directory")
	tags := fs.String("tags", "", "comma-separated build `tags` to load the packages with")
	check := fs.Bool("check", false, "write nothing; exit 1 if a generated file is not up to date")
	version := fs.Bool("version", false, "print the version of kit this kitgen generates for, and exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `kitgen generates kit clients.

usage:
  kitgen [-o kit_gen.go] [-tags a,b] [-check] [-version] [dir ...]
        kit_gen.go of each package's //kit: declarations (Go interfaces)
  %s
        a client package from an OpenAPI 3.x or Swagger 2.0 document
        (kitgen openapi -h for its flags)

flags of kitgen [dir ...]:
`, openapiUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *version {
		fmt.Fprintf(fs.Output(), "kitgen v%s (generates code for github.com/kithttp/kit v%s)\n", kit.Version, kit.Version)
		return 0
	}
	if *output != filepath.Base(*output) || !strings.HasSuffix(*output, ".go") || strings.HasSuffix(*output, "_test.go") {
		fmt.Fprintf(os.Stderr, "kitgen: -o %s: want a .go file name (not a test file) without a directory\n", *output)
		return 2
	}
	var tagList []string
	if *tags != "" {
		tagList = strings.Split(*tags, ",")
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	cfg := gen.Config{Output: *output, Tags: tagList, Check: *check, Stderr: os.Stderr}
	if !gen.Run(cfg, dirs) {
		return 1
	}
	return 0
}

// openapiUsage is kitgen openapi's synopsis.
const openapiUsage = "kitgen openapi [-o dir] [-package name] [-config file] [-overlay file]... [-remote] [-ops globs] [-tags a,b] [-env PREFIX] [-docs] [-check] [-v] spec.{json,yaml}"

// runOpenAPI is kitgen openapi: a package of //kit: declarations from an
// OpenAPI document, then kitgen's own pass over it.
func runOpenAPI(args []string) int {
	fs := flag.NewFlagSet("kitgen openapi", flag.ContinueOnError)
	dir := fs.String("o", ".", "the package `dir`ectory to write")
	pkg := fs.String("package", "", "the package `name` (default: from the directory)")
	ops := fs.String("ops", "", "comma-separated `globs` of operationIds to keep (default: all)")
	tags := fs.String("tags", "", "comma-separated OpenAPI `tags`: keep only their operations (default: all)")
	check := fs.Bool("check", false, "write nothing; exit 1 if a generated file is not up to date")
	config := fs.String("config", "", "a YAML `file` naming how operations paginate (see the README)")
	remote := fs.Bool("remote", false, "follow $refs to http(s) URLs (and accept a URL as the spec)")
	var overlays []string
	fs.Func("overlay", "an OpenAPI Overlay 1.0 `file` to apply to the document first (repeatable: applied in order)", func(s string) error {
		overlays = append(overlays, s)
		return nil
	})
	env := fs.String("env", "", "New reads the base URL and the secrets from `PREFIX`_... environment variables")
	docs := fs.Bool("docs", false, "write api.md beside the package: every method, its signature, usage and pagination")
	embed := fs.Bool("embed", false, "deprecated: embed the operations' interfaces in Client, as before, rather than name a field per group (c.ReposAPI.ReposGet); embedding makes the compiler write two wrapper functions per operation; it goes in the next version")
	verbose := fs.Bool("v", false, "list every paginated operation with its paginator and the evidence, those that look paged but are one page, and every long-running operation with its poller and the evidence")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n\n", openapiUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	cfg := openapi.Config{Spec: fs.Arg(0), Dir: *dir, Package: *pkg, Ops: *ops, Config: *config, Overlays: overlays, Remote: *remote, Check: *check, Env: *env, Docs: *docs, Embed: *embed}
	if *tags != "" {
		cfg.Tags = strings.Split(*tags, ",")
	}
	rep, err := openapi.Run(cfg)
	if rep != nil {
		rep.Print(os.Stdout, cfg.Spec)
		if *verbose {
			rep.PrintPagination(os.Stdout)
			rep.PrintPollers(os.Stdout)
		}
	}
	if err != nil {
		// The message may quote the document: one line, as it is.
		fmt.Fprintln(os.Stderr, safetext.Terminal(err.Error()))
		return 1
	}
	return 0
}
