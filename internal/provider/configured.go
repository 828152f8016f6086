package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
)

// configured is what Configure hands to every resource, data source,
// action and list resource (ResourceData, DataSourceData, ActionData,
// ListResourceData): the resolved configuration, and the engine built
// once over its clients. A configuration not known at Configure has no
// engine: everything that needs an API says which attributes were not
// known.
type configured struct {
	set    *clients.Set
	engine *engine.Engine
}

// configure builds the engine of a configuration over its clients set,
// with the budgets of opts. A set built from a configuration not yet
// known (clients.NewDeferred) gets none.
func configure(set *clients.Set, opts engine.Options) *configured {
	c := &configured{set: set}
	if set.Ready() != nil {
		return c
	}
	cfg := set.Config()
	var ref clusterread.ClusterRef
	ref.Name, ref.Unnamed = cfg.ClusterName()
	if opts.FirstListTimeout == 0 {
		// A first list may take a few requests: never less than two
		// request attempts.
		opts.FirstListTimeout = max(engine.DefaultFirstListTimeout, 2*cfg.AttemptTimeout())
	}
	c.engine = engine.New(set.Compute(), set.GKE(), ref, set.Cluster, opts)
	return c
}

// Config is the resolved configuration (defaults for resources).
func (c *configured) Config() clients.Config { return c.set.Config() }

// Engine is the configuration's engine, or why there is none.
func (c *configured) Engine() (*engine.Engine, error) {
	if err := c.set.Ready(); err != nil {
		return nil, err
	}
	return c.engine, nil
}

// close ends the engine's watches of the cluster.
func (c *configured) close() {
	if c != nil && c.engine != nil {
		c.engine.Close()
	}
}

// providerData turns what Configure handed over into the configuration,
// or a diagnostic that says it is not one.
func providerData(data any) (*configured, diag.Diagnostics) {
	var diags diag.Diagnostics
	if data == nil {
		return nil, diags // ValidateConfig and early plans run unconfigured
	}
	c, ok := data.(*configured)
	if !ok {
		diags.AddError("Unexpected Provider Data", fmt.Sprintf("expected *provider.configured, got %T; this is a bug in the provider", data))
	}
	return c, diags
}

// engineOf returns the engine, or a diagnostic saying why there is none.
func engineOf(c *configured) (*engine.Engine, diag.Diagnostics) {
	var diags diag.Diagnostics
	if c == nil {
		diags.AddError("Provider Not Configured", "the gke provider was not configured before this operation; this is a bug in the provider")
		return nil, diags
	}
	e, err := c.Engine()
	if err != nil {
		diags.AddError("Provider Configuration Not Known", err.Error())
	}
	return e, diags
}
