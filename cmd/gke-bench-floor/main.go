// Command gke-bench-floor is the plan floor's provider (internal/bench/floor):
// gke-bench builds it into its provider mirror and plans as many of its
// no-op resources as the stack it measures has.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dynslice/terraform-provider-gke/internal/bench/floor"
	"github.com/dynslice/terraform-provider-gke/internal/pluginlog"
)

func main() {
	// The floor writes no log that Terraform drops, as the provider does
	// not: the floor is the least a framework provider can cost.
	pluginlog.QuietProcess(floor.Name)
	if err := providerserver.Serve(context.Background(), floor.New, providerserver.ServeOpts{Address: floor.Address}); err != nil {
		log.Fatal(err.Error())
	}
}
