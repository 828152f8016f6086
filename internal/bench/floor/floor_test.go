package floor

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// The floor serves one resource type, floor_noop, with the attributes its
// configuration in internal/bench sets.
func TestSchema(t *testing.T) {
	srv, err := providerserver.NewProtocol6WithError(New())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("diagnostic: %s: %s", d.Summary, d.Detail)
	}
	s := resp.ResourceSchemas["floor_noop"]
	if s == nil || len(resp.ResourceSchemas) != 1 {
		t.Fatalf("resource schemas: %v", resp.ResourceSchemas)
	}
	got := map[string]bool{}
	for _, a := range s.Block.Attributes {
		got[a.Name] = true
	}
	for _, name := range []string{"id", "name", "zone", "size", "labels"} {
		if !got[name] {
			t.Errorf("floor_noop lacks %s", name)
		}
	}
}
