package bench

import "time"

type Address struct {
	Street  string `json:"street"`
	City    string `json:"city"`
	Zip     string `json:"zip,omitempty"`
	Country string `json:"country"`
}

// Obj is a ~12-field API object.
type Obj struct {
	ID        int64     `json:"id"`
	Name      string    `json:"name"`
	Email     string    `json:"email"`
	Age       int       `json:"age,omitempty"`
	Active    bool      `json:"active"`
	Verified  bool      `json:"verified,omitempty"`
	Score     float64   `json:"score"`
	Balance   float64   `json:"balance,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	Address   Address   `json:"address"`
	Tags      []string  `json:"tags,omitempty"`
	Note      string    `json:"note,omitempty"`
}

type Rec struct {
	ID        int64     `json:"id"`
	Type      string    `json:"type"`
	Name      string    `json:"name"`
	Status    string    `json:"status"`
	Amount    float64   `json:"amount"`
	Currency  string    `json:"currency"`
	Count     int       `json:"count"`
	Enabled   bool      `json:"enabled"`
	CreatedAt time.Time `json:"created_at"`
	Labels    []string  `json:"labels,omitempty"`
}

type Page struct {
	Data       []Rec  `json:"data"`
	NextCursor string `json:"next_cursor"`
}
