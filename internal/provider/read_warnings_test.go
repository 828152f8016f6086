package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What a plan says about a stack that went wrong behind Terraform's back,
// through the real terraform CLI (terraform-plugin-testing cannot count
// warnings): unhealthy partitions are summarised in one warning, whatever
// the number of pools, and a pool deleted out of band is planned again
// without a warning of its own.
func TestAccReadWarnings(t *testing.T) {
	needSandboxInventory(t, "block-b's sub-blocks with a degraded and an unhealthy host")
	work := t.TempDir()
	config := `terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}
` + accProviderConfig() + accTarget.translate(slicePools("warn", "tpu7x-reservation", "block-b", "sub-block-b2", "sub-block-b3"))
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cli := initWorkspace(t, work)
	cli.must("apply", "-auto-approve", "-input=false", "-no-color")

	// sub-block-b2 has a DEGRADED host; sub-block-b3 an UNHEALTHY one, so its
	// pool has 15 nodes and an INCOMPLETE partition.
	out := cli.must("plan", "-input=false", "-no-color")
	if n := strings.Count(out, "Warning: Partitions Not Healthy"); n != 1 {
		t.Errorf("plan gave %d unhealthy-partition warnings, want 1:\n%s", n, out)
	}
	for _, want := range []string{"node pool " + poolName("warn", "sub-block-b2"), "DEGRADED", "node pool " + poolName("warn", "sub-block-b3"), "INCOMPLETE"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output does not name %q:\n%s", want, out)
		}
	}

	id := accPoolID(poolName("warn", "sub-block-b2"))
	if err := accEngine(t).NodePools().Delete(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	out = cli.must("plan", "-input=false", "-no-color")
	if !strings.Contains(out, `gke_subblock_node_pool.sub-block-b2 will be created`) {
		t.Errorf("the deleted pool is not planned again:\n%s", out)
	}
	if strings.Contains(out, "Gone") || strings.Count(out, "Warning:") > 1 {
		t.Errorf("a pool deleted out of band gave a warning of its own:\n%s", out)
	}
}
