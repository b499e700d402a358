package bench

import (
	stdjson "encoding/json"
	"fmt"
	"time"
)

var objJSON = []byte(`{
  "id": 123456789,
  "name": "Ada Lovelace",
  "email": "ada@example.com",
  "age": 36,
  "active": true,
  "verified": true,
  "score": 98.625,
  "balance": 1234.5,
  "created_at": "2024-03-01T12:34:56Z",
  "updated_at": "2025-11-20T08:00:01.123456789+01:00",
  "address": {"street": "12 St James's Square", "city": "London", "zip": "SW1Y 4JH", "country": "GB"},
  "tags": ["admin", "beta", "math"],
  "note": "first programmer",
  "extra_unknown": {"a": [1,2,3], "b": "ignored"}
}`)

var objValue Obj

var pageJSON []byte

func init() {
	if err := stdjson.Unmarshal(objJSON, &objValue); err != nil {
		panic(err)
	}
	type fullPage struct {
		Data       []Rec  `json:"data"`
		Total      int    `json:"total"`
		NextCursor string `json:"next_cursor"`
	}
	p := fullPage{Total: 1000, NextCursor: "abc"}
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := 0; i < 100; i++ {
		p.Data = append(p.Data, Rec{
			ID: int64(1000 + i), Type: "invoice", Name: fmt.Sprintf("record number %d", i),
			Status: []string{"open", "paid", "void"}[i%3], Amount: float64(i)*1.25 + 0.01,
			Currency: "EUR", Count: i * 7, Enabled: i%2 == 0,
			CreatedAt: base.Add(time.Duration(i) * time.Hour),
			Labels:    []string{"x", fmt.Sprintf("l%d", i)},
		})
	}
	var err error
	pageJSON, err = stdjson.Marshal(p)
	if err != nil {
		panic(err)
	}
}
