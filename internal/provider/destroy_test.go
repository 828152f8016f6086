package provider

import (
	"strings"
	"testing"
)

// A destroy is never blocked by a slice that could not be created: here a
// partition_selector slice in the config but not in the state, whose
// selection cannot be met (it asks for two partitions of one pool).
// terraform destroy plans the config first (its pre-destroy refresh); that
// plan must not fail on the selection.
func TestAccDestroy_notBlockedBySelection(t *testing.T) {
	needTarget(t)
	cli := cliWorkspace(t, accProviderConfig(), slicePools("acc-undo", "tpu7x-reservation", "block-a", "sub-block-a3")+`
resource "gke_tpu_slice" "s" {
  name     = "`+accName("acc-undo")+`"
  topology = "4x4x8"
  partition_selector {
    node_pools = [gke_subblock_node_pool.sub-block-a3.name]
  }
}
`)
	// The pool exists, the slice cannot: the apply fails on the selection.
	out, err := cli.run("apply", "-auto-approve", "-input=false", "-no-color")
	if err == nil || !strings.Contains(out, "Cannot Select Partitions") {
		t.Fatalf("apply: %v, want it to fail on the selection:\n%s", err, out)
	}
	out = cli.must("destroy", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(out, "Destroy complete! Resources: 2 destroyed.") {
		t.Errorf("destroy did not destroy the pool and the policy:\n%s", out)
	}
	if strings.Contains(out, "Error") {
		t.Errorf("destroy reported an error:\n%s", out)
	}
}
