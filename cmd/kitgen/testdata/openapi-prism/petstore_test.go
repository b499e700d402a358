package petstore

// The driver of TestOpenAPIPrismPetstore (cmd/kitgen): copied into the
// package generated from Petstore's document and run against Stoplight
// Prism serving that document.

import (
	"context"
	"os"
	"testing"
)

func TestAgainstPrism(t *testing.T) {
	c, err := NewClient(os.Getenv("KIT_PRISM_PETSTORE"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	limit := int32(2)
	pets, err := c.PetsAPI.ListPets(ctx, &ListPetsParams{Limit: &limit})
	if err != nil || len(pets) == 0 {
		t.Errorf("ListPets: %v, %v", pets, err)
	}
	if _, err := c.PetsAPI.ShowPetByID(ctx, "1"); err != nil {
		t.Errorf("ShowPetByID: %v", err)
	}
	if err := c.PetsAPI.CreatePets(ctx, Pet{ID: 1, Name: "Rex"}); err != nil {
		t.Errorf("CreatePets: %v", err)
	}
}
