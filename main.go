// Command terraform-provider-gke is the Terraform provider for GKE dynamic
// TPU slicing (Ironwood, TPU7x).
package main

import (
	"context"
	"flag"
	"log"
	"os"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dynslice/terraform-provider-gke/internal/lifeline"
	"github.com/dynslice/terraform-provider-gke/internal/pluginlog"
	"github.com/dynslice/terraform-provider-gke/internal/provider"
)

// version is set at build time: -ldflags "-X main.version=1.2.3"
// (goreleaser does this for releases).
var version = "dev"

// Generate the documentation from the schema, templates/ and examples/.
//go:generate go tool -modfile=tools/go.mod tfplugindocs generate --provider-name gke --rendered-provider-name gke

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers such as delve; it prints TF_REATTACH_PROVIDERS to export")
	flag.Parse()

	if !debug {
		// Terraform drops the logs of a provider when its own logging is
		// off: do not write them (see internal/pluginlog).
		pluginlog.QuietProcess(provider.TypeName)
		// A Terraform that was killed cannot stop its providers: exit
		// when it is gone. In debug mode the provider outlives the shell
		// that started it on purpose.
		lifeline.ExitWhenParentGone(os.Stderr, "terraform-provider-"+provider.TypeName)
	}
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/dynslice/gke",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err.Error())
	}
}
