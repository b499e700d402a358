// Package docscheck holds the test that keeps the documentation's Go code
// honest: every go block of README.md, docs/*.md and cmd/kitgen/README.md
// that is a complete file is built and vetted (and a main program run), and
// every other go block is parsed as a fragment. It has no code of its own.
package docscheck
