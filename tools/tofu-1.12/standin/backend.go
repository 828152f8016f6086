//go:build ignore

// A stand-in for one of OpenTofu 1.12's remote-state backends (azurerm,
// consul, cos, gcs, kubernetes, oss, pg, s3), whose packages live inside
// OpenTofu's own module: `make tf-matrix` builds OpenTofu with
// `go build -overlay`, which hides the backend's files and puts this one in
// their place, with the package clause and the name rewritten
// (scripts/tf-standins.sh). So no cloud SDK of a state backend is compiled;
// the tests use the local backend only. The build constraint above keeps
// the Go tools away from this file here; the script drops it.
package standin

import (
	"context"
	"errors"

	"github.com/opentofu/opentofu/internal/backend"
	"github.com/opentofu/opentofu/internal/configs/configschema"
	"github.com/opentofu/opentofu/internal/encryption"
	"github.com/opentofu/opentofu/internal/states/statemgr"
	"github.com/opentofu/opentofu/internal/tfdiags"
	"github.com/zclconf/go-cty/cty"
)

const name = "NAME"

const msg = `the "` + name + `" backend is not built into this test binary (an OpenTofu built from its Go module for the provider's test matrix, tools/tofu-1.12): use the local backend`

// New returns the stand-in backend, in the place of the real one.
func New(encryption.StateEncryption) backend.Backend { return standin{} }

func refuse() tfdiags.Diagnostics {
	var diags tfdiags.Diagnostics
	return diags.Append(tfdiags.Sourceless(tfdiags.Error, "Backend \""+name+"\" not available", msg))
}

type standin struct{}

// ConfigSchema is empty: a backend block with arguments fails to decode
// before PrepareConfig can refuse it with the message.
func (standin) ConfigSchema() *configschema.Block { return &configschema.Block{} }

func (standin) PrepareConfig(v cty.Value) (cty.Value, tfdiags.Diagnostics) { return v, refuse() }
func (standin) Configure(context.Context, cty.Value) tfdiags.Diagnostics   { return refuse() }
func (standin) StateMgr(context.Context, string) (statemgr.Full, error)    { return nil, errors.New(msg) }
func (standin) DeleteWorkspace(context.Context, string, bool) error        { return errors.New(msg) }
func (standin) Workspaces(context.Context) ([]string, error)               { return nil, errors.New(msg) }
