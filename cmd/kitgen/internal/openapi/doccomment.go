package openapi

import (
	"regexp"
	"strings"

	"github.com/kithttp/kit/cmd/kitgen/internal/safetext"
)

// mdLinkRE is a Markdown link, [text](url).
var mdLinkRE = regexp.MustCompile(`\[([^\[\]]+)\]\(([^()\s]+)\)`)

// mdListRE is a Markdown list item: "- x", "* x", "+ x" or "1. x".
var mdListRE = regexp.MustCompile(`^\s*([-*+]|\d+[.)])\s+(.*)$`)

// mdHeadingRE is a Markdown heading line, "## Title".
var mdHeadingRE = regexp.MustCompile(`^\s*#{1,6}\s+(.*?)\s*#*\s*$`)

// docText turns a document's description (CommonMark, as OpenAPI says)
// into the lines of a Go doc comment, without the "// ": paragraphs
// wrapped at 76 columns and separated by "", list items as "  - item",
// fenced code indented by a tab, headings as plain paragraphs, and links
// as [text] with a "[text]: url" definition at the end (text (url) when
// the URL is not http(s), or the text names another URL already), whose
// definitions are returned apart, to end the comment (gofmt puts them
// there). Every
// line has been through safetext.Comment: nothing in it ends the comment.
func docText(desc string) (lines, linkDefs []string) {
	desc = strings.ReplaceAll(strings.ReplaceAll(desc, "\r\n", "\n"), "\r", "\n")
	var out []string
	var defs []string
	linkTo := map[string]string{}
	links := func(s string) string {
		return mdLinkRE.ReplaceAllStringFunc(s, func(m string) string {
			sub := mdLinkRE.FindStringSubmatch(m)
			text, url := strings.Join(strings.Fields(sub[1]), " "), sub[2]
			if !strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://") {
				return text + " (" + url + ")"
			}
			if prev, ok := linkTo[text]; ok && prev != url {
				return text + " (" + url + ")"
			} else if !ok {
				linkTo[text] = url
				defs = append(defs, "["+text+"]: "+url)
			}
			return "[" + text + "]"
		})
	}
	var para []string // words of the paragraph or item being gathered
	item := false
	marker := "-" // the list item's marker: "-" or a number and "."
	flush := func() {
		if len(para) == 0 {
			return
		}
		text := strings.Join(para, " ")
		if item {
			for i, l := range wrapWidth(text, 72) {
				if i == 0 {
					out = append(out, "  "+marker+" "+l)
				} else {
					out = append(out, "    "+l)
				}
			}
		} else {
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			out = append(out, wrapWidth(text, 76)...)
			out = append(out, "")
		}
		para, item = nil, false
	}
	fence := false
	for _, line := range strings.Split(desc, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			flush()
			if !fence && len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
			fence = !fence
			if !fence {
				out = append(out, "")
			}
			continue
		}
		if fence {
			if s := strings.TrimRight(safetext.Comment(line), " \t"); s != "" {
				out = append(out, "\t"+s)
			} else {
				out = append(out, "")
			}
			continue
		}
		switch {
		case trimmed == "":
			flush()
			if item || len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		case mdListRE.MatchString(line):
			if !item && len(out) > 0 && out[len(out)-1] != "" {
				flush()
				out = append(out, "")
			}
			flush()
			item = true
			sub := mdListRE.FindStringSubmatch(line)
			marker = "-"
			if n := strings.TrimRight(sub[1], ".)"); n != sub[1] {
				marker = n + "."
			}
			para = strings.Fields(links(safetext.Comment(sub[2])))
		case mdHeadingRE.MatchString(line):
			flush()
			para = strings.Fields(links(safetext.Comment(mdHeadingRE.FindStringSubmatch(line)[1])))
			flush()
		default:
			para = append(para, strings.Fields(links(safetext.Comment(line)))...)
		}
	}
	flush()
	for _, d := range defs {
		linkDefs = append(linkDefs, strings.ReplaceAll(safetext.Comment(d), "*/", "* /"))
	}
	// No blank line twice, nor at either end.
	var clean []string
	for _, l := range out {
		l = strings.ReplaceAll(l, "*/", "* /")
		if l == "" && (len(clean) == 0 || clean[len(clean)-1] == "") {
			continue
		}
		clean = append(clean, l)
	}
	for len(clean) > 0 && clean[len(clean)-1] == "" {
		clean = clean[:len(clean)-1]
	}
	return clean, linkDefs
}

// wrapWidth breaks text into lines of at most width columns, at spaces.
// No line starts with "+build", which gofmt would take for a build
// constraint: such a word stays on the line before (the first word is
// written "+ build").
func wrapWidth(text string, width int) []string {
	var lines []string
	line := ""
	for i, w := range strings.Fields(text) {
		buildLike := strings.HasPrefix(w, "+build")
		if i == 0 && buildLike {
			w = "+ " + w[1:]
		}
		if line != "" && len(line)+1+len(w) > width && !buildLike {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// writeDoc writes a doc comment at indent: lead, a sentence that starts
// with the name it documents ("" for none), then the description's other text, then
// each extra paragraph (a Deprecated: paragraph, a link to more).
func writeDoc(b *strings.Builder, indent, lead, desc string, extra ...string) {
	lines := wrapWidth(strings.ReplaceAll(safetext.Comment(lead), "*/", "* /"), 76)
	body, defs := docText(desc)
	if len(body) > 0 {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, body...)
	}
	for _, e := range extra {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, wrapWidth(strings.ReplaceAll(safetext.Comment(e), "*/", "* /"), 76)...)
	}
	if len(defs) > 0 {
		if len(lines) > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, defs...)
	}
	for _, l := range lines {
		if l == "" {
			b.WriteString(indent + "//\n")
		} else {
			b.WriteString(indent + "// " + l + "\n")
		}
	}
}
