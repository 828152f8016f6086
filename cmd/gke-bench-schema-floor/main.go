// Command gke-bench-schema-floor is the schema floor's provider
// (internal/bench/floor.NewSchemaFloor): the provider's resource schemas
// with handlers that do no work. gke-bench builds it into its provider
// mirror and plans the stack's resources through it, from a copy of the
// stack's state and configuration.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dynslice/terraform-provider-gke/internal/bench/floor"
	"github.com/dynslice/terraform-provider-gke/internal/pluginlog"
	"github.com/dynslice/terraform-provider-gke/internal/provider"
)

func main() {
	// As the provider and the floor: no log line that Terraform drops.
	pluginlog.QuietProcess(floor.SchemaName)
	ctx := context.Background()
	resources := provider.New("schema-floor")().Resources(ctx)
	if err := providerserver.Serve(ctx, floor.NewSchemaFloor(provider.TypeName, resources), providerserver.ServeOpts{Address: floor.SchemaAddress}); err != nil {
		log.Fatal(err.Error())
	}
}
