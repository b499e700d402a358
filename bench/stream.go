package bench

import (
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// StreamPage decodes {"data":[...],"next_cursor":...,...} in one pass.
func StreamPage(r io.Reader, p *Page, opts ...jsonv2.Options) error {
	dec := jsontext.NewDecoder(r, opts...)
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return fmt.Errorf("expected object, got %v", tok.Kind())
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		switch name.String() {
		case "data":
			err = jsonv2.UnmarshalDecode(dec, &p.Data)
		case "next_cursor":
			err = jsonv2.UnmarshalDecode(dec, &p.NextCursor)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return err
		}
	}
	_, err = dec.ReadToken() // '}'
	return err
}
