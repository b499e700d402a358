package kit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"

	"github.com/kithttp/kit"
	"github.com/kithttp/kit/kittest"
)

// User is a data model: json tags for the wire, validate tags for the rules.
type User struct {
	ID     int    `json:"id,omitempty"`
	Name   string `json:"name" validate:"required"`
	Email  string `json:"email" validate:"required,email"`
	TeamID int    `json:"team_id"`
	Active bool   `json:"active"`
}

// Team is what the team endpoints return.
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

// demoAPI serves kittest's in-memory API on loopback.
func demoAPI() (*httptest.Server, *kit.Client) {
	srv := httptest.NewServer(kittest.NewAPI())
	c, err := kit.NewClient(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	return srv, c
}

// Endpoints are declared once, as package-level values: the path template,
// the parameter struct and the result type are checked here, not on the
// first call.
var getUser = kit.Get[struct{ ID int }, User]("/users/{id}")

func ExampleGet() {
	srv, c := demoAPI()
	defer srv.Close()

	u, err := getUser.Call(context.Background(), c, struct{ ID int }{3})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d %s <%s>\n", u.ID, u.Name, u.Email)
	// Output:
	// 3 Barbara Liskov <barbara.3@example.com>
}

// TeamUsers routes to all three places: {id} fills the path, the slice of data
// models is the JSON body, and the other field is a query parameter
// (dropped when nil).
type TeamUsers struct {
	ID      int
	Payload []User
	Team    *string
}

var addTeamUsers = kit.Post[TeamUsers, Team]("/teams/{id}/users")

func ExamplePost() {
	srv, c := demoAPI()
	defer srv.Close()

	label := "platform"
	team, err := addTeamUsers.Call(context.Background(), c, TeamUsers{
		ID:      1,
		Payload: []User{{Name: "Ada", Email: "ada@example.com"}, {Name: "Linus", Email: "linus@example.com"}},
		Team:    &label, // POST /teams/1/users?team=platform
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(team.Name, "now has", len(team.MemberIDs), "members")
	// Output:
	// Platform now has 52 members
}

func ExampleValidationError() {
	srv, c := demoAPI()
	defer srv.Close()

	_, err := addTeamUsers.Call(context.Background(), c, TeamUsers{
		ID:      1,
		Payload: []User{{Name: "Ada", Email: "ada@example.com"}, {Email: "not-an-email"}},
	})
	var ve *kit.ValidationError
	if errors.As(err, &ve) {
		for _, f := range ve.Fields {
			fmt.Printf("%s: %s (%s)\n", f.Path, f.Message, f.Rule)
		}
	}
	// Output:
	// [1].Name: is required (required)
	// [1].Email: must be an email address (email)
}

func ExampleHTTPError() {
	srv, c := demoAPI()
	defer srv.Close()

	_, err := getUser.Call(context.Background(), c, struct{ ID int }{999999})
	var he *kit.HTTPError
	if errors.As(err, &he) {
		fmt.Println(he.StatusCode, he.Method)
	}
	// Output:
	// 404 GET
}

func ExampleResource_All() {
	srv, c := demoAPI()
	defer srv.Close()

	users := kit.NewResource[User](c, "/users", kit.WithPaginator(kit.PageNumber{PageSize: 2}))
	for u, err := range users.All(context.Background()) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(u.ID, u.Name)
		if u.ID == 3 {
			break // stops fetching: only pages 1 and 2 were requested
		}
	}
	// Output:
	// 1 Ada Lovelace
	// 2 Alan Turing
	// 3 Barbara Liskov
}

func ExampleResource_Iterate() {
	srv, c := demoAPI()
	defer srv.Close()

	// The same walk in each pagination style.
	styles := map[string]kit.Paginator{
		"/paged/users":  kit.PageNumber{PageSize: 20},
		"/offset/users": kit.Offset{Limit: 20},
		"/cursor/users": kit.Cursor{NextKey: "meta.next_cursor"},
		"/linked/users": kit.LinkHeader{},
	}
	for _, path := range []string{"/paged/users", "/offset/users", "/cursor/users", "/linked/users"} {
		users := kit.NewResource[User](c, path, kit.WithPaginator(styles[path]))
		n := 0
		for _, err := range users.Iterate(context.Background(), map[string]any{"team_id": 2}) {
			if err != nil {
				log.Fatal(err)
			}
			n++
		}
		fmt.Println(path, n)
	}
	// Output:
	// /paged/users 50
	// /offset/users 50
	// /cursor/users 50
	// /linked/users 50
}

// UsersResource adds a custom endpoint to a resource: it embeds *kit.Resource and
// calls endpoint values with itself as the binding.
type UsersResource struct {
	*kit.Resource[User]
}

var listUserPosts = kit.Get[struct{ ID int }, []Post]("/users/{id}/posts")

// Posts returns the posts of user id.
func (r UsersResource) Posts(ctx context.Context, id int) ([]Post, error) {
	return listUserPosts.Call(ctx, r, struct{ ID int }{id})
}

func ExampleNewResource() {
	srv, c := demoAPI()
	defer srv.Close()
	ctx := context.Background()

	users := UsersResource{kit.NewResource[User](c, "/users")}
	created, err := users.Create(ctx, User{Name: "Grace", Email: "grace@example.com", TeamID: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", created.ID, created.Name)

	posts, err := users.Posts(ctx, 1) // GET /users/1/posts
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("user 1 has", len(posts), "posts")

	resp, err := users.Delete(ctx, created.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("deleted:", resp.StatusCode)
	// Output:
	// created 251 Grace
	// user 1 has 2 posts
	// deleted: 204
}
