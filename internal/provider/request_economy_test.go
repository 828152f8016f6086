package provider

import (
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// An apply of several pools on one reservation block reads the
// reservation, the block and its sub-blocks once at plan and once at
// apply (the checks of the pools share one read), and polls each pool's
// operation at most once, when its nodes have registered, not every few seconds. Counts, not times: the
// sandbox counts the GKE and Compute requests it serves. Nothing of the
// count depends on how fast the machine is: the provider's slow polls
// (those before the nodes' cue, every 15 s and more by default) are set an
// hour apart, so that a machine slow to make the nodes Ready adds none;
// and the sandbox registers each pool's nodes after its operation ends (a
// node provisioning delay of 1 ms, which orders them), so that the poll
// the cue makes finds the operation DONE.
func TestAccRequestEconomy_poolApply(t *testing.T) {
	needSandboxControl(t, "counts the GKE and Compute requests of the apply")
	// Its own provider: the shared one's engine keeps the default cadence.
	p := NewWithOptions("test", Options{Engine: engine.Options{PollMax: time.Hour}})().(*GKEProvider)
	t.Cleanup(func() { p.use(nil) })
	accFaults(t, sandbox.Faults{NodeProvisionDelayMs: 1})
	subBlocks := []string{"sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4"}
	pools := int64(len(subBlocks))
	var before map[string]int64
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){"gke": providerserver.NewProtocol6WithError(p)},
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{{
			PreConfig: func() { before = accSandbox.RequestCounts() },
			Config:    accConfig(slicePools("econ", "tpu7x-reservation", "block-a", subBlocks...)),
			Check: func(*terraform.State) error {
				after := accSandbox.RequestCounts()
				n := func(key string) int64 { return after[key] - before[key] }
				for k := range after {
					if d := n(k); d != 0 {
						t.Logf("%s: %d", k, d)
					}
				}
				if got := n("container POST nodePools"); got != pools {
					return fmt.Errorf("%d node pool creates, want %d (counts before %v, after %v)", got, pools, before, after)
				}
				// Once for the plan's checks of the targets, once for the
				// apply's (two provider instances, each with its engine).
				for _, key := range []string{"compute GET reservations", "compute GET reservationBlocks", "compute GET reservationSubBlocks"} {
					if got := n(key); got > 2 {
						return fmt.Errorf("%s: %d requests for %d pools on one block, want at most 2 (the plan's and the apply's)", key, got, pools)
					}
				}
				// At most one poll each, after the nodes' registration (none
				// when the create's own answer already said DONE, as on a
				// busy machine whose sandbox ends the operation first).
				if got := n("container GET operations"); got > pools {
					return fmt.Errorf("%d operation polls for %d pools, want at most one each, when their nodes are Ready", got, pools)
				}
				return nil
			},
		}},
	})
}
