//go:build ignore

// A stand-in for one of Terraform 1.8's remote-state backends (azurerm,
// consul, cos, gcs, kubernetes, oss, pg, s3), whose packages live inside
// Terraform's own module: `make tf-matrix` builds Terraform with
// `go build -overlay`, which hides the backend's files and puts this one in
// their place, with the package clause and the name rewritten
// (scripts/tf-standins.sh). So no cloud SDK of a state backend is compiled;
// the tests use the local backend only. The build constraint above keeps
// the Go tools away from this file here; the script drops it.
package standin

import (
	"errors"

	"github.com/hashicorp/terraform/internal/backend"
	"github.com/hashicorp/terraform/internal/configs/configschema"
	"github.com/hashicorp/terraform/internal/states/statemgr"
	"github.com/hashicorp/terraform/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

const name = "NAME"

const msg = `the "` + name + `" backend is not built into this test binary (a Terraform built from its Go module for the provider's test matrix, tools/terraform-1.8): use the local backend`

// New returns the stand-in backend, in the place of the real one.
func New() backend.Backend { return standin{} }

func refuse() tfdiags.Diagnostics {
	var diags tfdiags.Diagnostics
	return diags.Append(tfdiags.Sourceless(tfdiags.Error, "Backend \""+name+"\" not available", msg))
}

type standin struct{}

// ConfigSchema is empty: a backend block with arguments fails to decode
// before PrepareConfig can refuse it with the message.
func (standin) ConfigSchema() *configschema.Block { return &configschema.Block{} }

func (standin) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) { return v, refuse() }
func (standin) Configure(cty.Value) tfdiags.Diagnostics                    { return refuse() }
func (standin) StateMgr(string) (statemgr.Full, error)                     { return nil, errors.New(msg) }
func (standin) DeleteWorkspace(string, bool) error                         { return errors.New(msg) }
func (standin) Workspaces() ([]string, error)                              { return nil, errors.New(msg) }
