package kit_test

import (
	"encoding/json"
	"fmt"
	"log"

	"github.com/kithttp/kit"
)

// kit.UnmarshalJSON and kit.MarshalJSON read and write a model as kit reads
// results and writes bodies: a kit.UnknownFields field keeps the members the
// model does not name, where encoding/json would drop them on the way in
// and write the field as a member of its own on the way out.
func ExampleMarshalJSON() {
	type Pet struct {
		Name  string            `json:"name"`
		Extra kit.UnknownFields `json:",embed"`
	}
	in := []byte(`{"name":"Rex","color":"brown"}`)

	var p Pet
	if err := kit.UnmarshalJSON(in, &p); err != nil {
		log.Fatal(err)
	}
	out, err := kit.MarshalJSON(p)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))

	var q Pet
	if err := json.Unmarshal(in, &q); err != nil {
		log.Fatal(err)
	}
	std, err := json.Marshal(q)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(std))
	// Output:
	// {"name":"Rex","color":"brown"}
	// {"name":"Rex","Extra":null}
}
