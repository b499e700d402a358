package main

import (
	"fmt"
	"strings"
)

// oneCallProgram is the source of a program that calls one operation of
// the package generated at importPath: newClient is the generator's
// constructor (it takes the server's URL and returns the client and an
// error) and call the method call on the client c (ctx and the package,
// imported as api, in scope). It is only linked, never run: its size,
// stripped, is what one call of the generated client costs a binary.
func oneCallProgram(importPath, newClient, call string) string {
	var b strings.Builder
	b.WriteString("// Command onecall calls one operation of a generated client; the\n")
	b.WriteString("// comparison links it to weigh the binary.\n")
	b.WriteString("package main\n\n")
	b.WriteString("import (\n\t\"context\"\n\t\"fmt\"\n\t\"os\"\n\n")
	fmt.Fprintf(&b, "\tapi %q\n)\n\n", importPath)
	b.WriteString("func main() {\n")
	fmt.Fprintf(&b, "\tc, err := api.%s(\"https://example.com\")\n", newClient)
	b.WriteString("\tif err != nil {\n\t\tfmt.Fprintln(os.Stderr, err)\n\t\tos.Exit(1)\n\t}\n")
	b.WriteString("\tctx := context.Background()\n")
	fmt.Fprintf(&b, "\tres, err := c.%s\n", call)
	b.WriteString("\tif err != nil {\n\t\tfmt.Fprintln(os.Stderr, err)\n\t\tos.Exit(1)\n\t}\n")
	b.WriteString("\tfmt.Printf(\"%+v\\n\", res)\n}\n")
	return b.String()
}
