package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// Options are the budgets and cadences the provider waits on: the retry
// budget and backoffs of its Google API requests, and the engine's watch
// limits, first-list bound, operation poll cadence and settle delay
// (clients.Options and engine.Options). A zero field takes its
// production default, so the zero Options is the provider a user runs;
// tests pass small values instead of waiting out the real ones.
type Options struct {
	Clients clients.Options
	Engine  engine.Options
}

// NewWithOptions returns a constructor of the provider built with opts,
// as providerserver expects.
func NewWithOptions(version string, opts Options) func() provider.Provider {
	return func() provider.Provider {
		return &GKEProvider{version: version, getenv: osGetenv, opts: opts}
	}
}
