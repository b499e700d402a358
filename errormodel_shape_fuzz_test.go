package kit

import (
	"bytes"
	"testing"
)

type fuzzShapeModel struct {
	Code    string `json:"code" kit:",required"`
	Message string `json:"message"`
	Nested  struct {
		N int `json:"n"`
	} `json:"nested"`
	Extra UnknownFields `json:",embed"`
}

// FuzzErrorModelShape feeds error bodies (outside input) to a model with
// a required member and an unknown-fields holder, and to the same model
// at a key. None panics; a model is only ever decoded from an object that
// has the required member.
func FuzzErrorModelShape(f *testing.F) {
	for _, s := range []string{`{"code":"x"}`, `{"CODE":""}`, `{"message":"m"}`, `{}`, `[1]`, `"s"`, `{"code":1}`,
		`{"error":{"code":"x","message":"m"}}`, `{"code":"x","a":{"b":[1,2]}}`, `{"code":"x"} trailing`, `{"code":"\ud83d"}`} {
		f.Add([]byte(s))
	}
	whole := WithErrorModel[fuzzShapeModel]().(requestOption[errorModelOption]).s.m
	at := WithErrorModelAt[fuzzShapeModel]("error").(requestOption[errorModelOption]).s.m
	f.Fuzz(func(t *testing.T, body []byte) {
		if v := whole.model(400, nil, body); v != nil {
			if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' || !bytes.Contains(bytes.ToLower(b), []byte(`"code"`)) && !bytes.Contains(b, []byte(`\u`)) {
				t.Fatalf("a model from %q", body)
			}
		}
		_ = at.model(400, nil, body)
	})
}
