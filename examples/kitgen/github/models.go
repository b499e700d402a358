package github

// User is a user.
type User struct {
	ID     int    `json:"id,omitempty"`
	Name   string `json:"name" validate:"required"`
	Email  string `json:"email" validate:"required,email"`
	TeamID int    `json:"team_id,omitempty"`
	Active bool   `json:"active"`
}

// UserPage is one page of a user search.
type UserPage struct {
	Users    []User `json:"data"`
	Total    int    `json:"total"`
	Page     int    `json:"page"`
	PageSize int    `json:"page_size"`
}

// Team is a team.
type Team struct {
	ID        int    `json:"id"`
	Name      string `json:"name"`
	MemberIDs []int  `json:"member_ids"`
}

// Post is a user's post.
type Post struct {
	ID     int    `json:"id"`
	UserID int    `json:"user_id"`
	Title  string `json:"title"`
}

// Activity is the body of Deactivate.
type Activity struct {
	Active bool `json:"active"`
}

// Credentials are what login sends.
type Credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
}

// Token is what login answers.
type Token struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
}

// MemberListOptions filters ListMembers: a plain struct with kit tags,
// spread into the query.
type MemberListOptions struct {
	Active  *bool  `kit:"active"`
	Query   string `kit:"q,omitempty"`
	PerPage int    `kit:"per_page,omitempty"`
}
