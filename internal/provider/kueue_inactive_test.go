package provider

import (
	"context"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// On a cluster whose slice controller is missing (a sandbox that leaves
// the slice admission check to an outside controller, and none runs),
// Kueue never reports the ClusterQueue Active: the apply waits for it
// within the create timeout, then fails with Kueue's reason and what to
// check, instead of reporting success for a queue that admits nothing.
func TestAccKueueSlicing_inactiveQueue(t *testing.T) {
	needSandboxControl(t, "a second sandbox of its own, with no slice admission check")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Options{SliceCheck: sandbox.SliceCheckExternal})
	if err != nil {
		t.Fatalf("a sandbox with no slice admission check: %v", err)
	}
	t.Cleanup(sb.Stop)
	// Before the sandbox stops: the provider's watches of it end first.
	t.Cleanup(closeTestClients)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: sb.ProviderConfig() + slicePools("kqi", "tpu7x-reservation", "block-a", "sub-block-a1") + `
resource "gke_kueue_slicing" "k" {
  name       = "acc-inactive"
  node_pools = [gke_subblock_node_pool.sub-block-a1.name]
  namespaces = ["default"]
  timeouts {
    create = "15s"
  }
}
`,
			ExpectError: wrapped("Kueue ClusterQueue Not Active", "ClusterQueue acc-inactive is not Active (Kueue reports AdmissionCheckInactive",
				"references inactive AdmissionCheck(s): acc-inactive", "the slice controller (controller accelerator.gke.io/slice, namespace slice-controller-system on GKE)",
				"is missing or not ready", "The objects were applied"),
		}},
	})
}
