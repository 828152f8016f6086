// Package kubernetes stands in for Terraform's "kubernetes" state backend, whose module is
// not published: this test binary has no such backend, and says so when a
// configuration asks for it.
package kubernetes

import (
	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/configs/configschema"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

// New returns the stand-in backend, in the place of the real one.
func New() backend.Backend { return standin{} }

const msg = `the "kubernetes" backend is not built into this test binary (a Terraform built from its Go module for the provider's test matrix, tools/terraform-1.16): use the local backend`

func refuse() tfdiags.Diagnostics {
	var diags tfdiags.Diagnostics
	return diags.Append(tfdiags.Sourceless(tfdiags.Error, "Backend \"kubernetes\" not available", msg))
}

type standin struct{}

// ConfigSchema is empty: a backend block with arguments fails to decode
// before PrepareConfig can refuse it with the message.
func (standin) ConfigSchema() *configschema.Block { return &configschema.Block{} }

func (standin) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) { return v, refuse() }
func (standin) Configure(cty.Value) tfdiags.Diagnostics                    { return refuse() }
func (standin) StateMgr(string) (statemgr.Full, tfdiags.Diagnostics)       { return nil, refuse() }
func (standin) DeleteWorkspace(string, bool) tfdiags.Diagnostics           { return refuse() }
func (standin) Workspaces() ([]string, tfdiags.Diagnostics)                { return nil, refuse() }
