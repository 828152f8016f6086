// Command gke-bench-floor is the plan floor's provider (internal/bench/floor):
// gke-bench builds it into its provider mirror and plans as many of its
// no-op resources as the stack it measures has.
package main

import (
	"context"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dynslice/terraform-provider-gke/internal/bench/floor"
)

func main() {
	if err := providerserver.Serve(context.Background(), floor.New, providerserver.ServeOpts{Address: floor.Address}); err != nil {
		log.Fatal(err.Error())
	}
}
