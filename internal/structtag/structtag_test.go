package structtag

import "testing"

func TestSnakeCase(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"ID", "id"},
		{"PerPage", "per_page"},
		{"UserID", "user_id"},
		{"HTTPServer", "http_server"},
		{"Page2Size", "page2_size"},
		{"Q", "q"},
		{"already_snake", "already_snake"},
		{"ÄÖÜ", "äöü"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SnakeCase(tt.in); got != tt.want {
			t.Errorf("SnakeCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Tag
	}{
		{"", Tag{}},
		{"-", Tag{Skip: true}},
		{"-,", Tag{Name: "-"}},
		{"per_page", Tag{Name: "per_page"}},
		{"X-Request-Id,header", Tag{Name: "X-Request-Id", Header: true}},
		{",omitempty", Tag{OmitEmpty: true}},
		{"q,omitempty,header", Tag{Name: "q", OmitEmpty: true, Header: true}},
		{",query", Tag{Query: true}},
		{"next,url", Tag{Name: "next", URL: true}},
		{",body", Tag{Body: true}},
		{"metadata,query,omitempty", Tag{Name: "metadata", Query: true, OmitEmpty: true}},
		{"q,bogus,other", Tag{Name: "q", Unknown: "bogus"}},
		{"tags,csv", Tag{Name: "tags", Join: "csv"}},
		{"tags, ssv ,omitempty", Tag{Name: "tags", Join: "ssv", OmitEmpty: true}},
		{",pipes,header", Tag{Join: "pipes", Header: true}},
		{"tags,csv,csv", Tag{Name: "tags", Join: "csv"}},
		{"tags,csv,pipes,ssv", Tag{Name: "tags", Join: "csv", JoinAlso: "pipes"}},
		{"tags,tsv", Tag{Name: "tags", Unknown: "tsv"}},
	}
	for _, tt := range tests {
		if got := Parse(tt.in); got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestDelimiter(t *testing.T) {
	t.Parallel()
	for opt, want := range map[string]string{"csv": ",", "ssv": " ", "pipes": "|", "tsv": "", "": "", "CSV": ""} {
		if got := Delimiter(opt); got != want {
			t.Errorf("Delimiter(%q) = %q, want %q", opt, got, want)
		}
	}
}
