package provider

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// TestAccExampleStack applies examples/stacks/sub-block-node-pools with the
// terraform CLI and a development override of this provider, as a user
// would against the sandbox: one policy and a node pool per free sub-block,
// each pool's partition shown, an empty plan afterwards, a clean import,
// and a destroy that leaves nothing. (terraform-plugin-testing cannot read
// for_each resources with string keys, which the example uses.)
func TestAccExampleStack(t *testing.T) {
	needSandbox(t)
	work := t.TempDir()
	copyTree(t, "../../examples/stacks/sub-block-node-pools", work)
	cli := newTerraformCLI(t, work)
	tf, mustTF := cli.run, cli.must
	emptyPlan := func(when string) {
		t.Helper()
		out, err := tf("plan", "-input=false", "-detailed-exitcode", "-no-color")
		if err != nil {
			t.Fatalf("plan %s is not empty (%v):\n%s", when, err, out)
		}
	}
	mustTF("init", "-input=false", "-no-color")
	t.Cleanup(func() {
		if out, err := tf("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
			t.Errorf("cleanup destroy: %v\n%s", err, out)
		}
	})

	mustTF("apply", "-auto-approve", "-input=false", "-no-color")
	var partitions map[string]struct {
		SubBlock string `json:"sub_block"`
		ID       string `json:"id"`
		State    string `json:"state"`
		Ready    int    `json:"ready"`
	}
	if err := json.Unmarshal([]byte(mustTF("output", "-json", "partitions")), &partitions); err != nil {
		t.Fatal(err)
	}
	if len(partitions) != 4 {
		t.Fatalf("partitions output has %d pools, want one per free sub-block of block-a (4): %v", len(partitions), partitions)
	}
	hex32 := regexp.MustCompile(`^[0-9a-f]{32}$`)
	for pool, p := range partitions {
		if !hex32.MatchString(p.ID) || p.State != "HEALTHY" || p.Ready != 16 || pool != "train-"+p.SubBlock {
			t.Errorf("pool %s: %+v", pool, p)
		}
	}
	emptyPlan("after apply")

	// Import one pool into a state that forgot it.
	addr := `gke_subblock_node_pool.pool["sub-block-a1"]`
	mustTF("state", "rm", addr)
	mustTF("import", "-input=false", "-no-color", addr, "projects/sandbox-project/locations/us-central1/clusters/ironwood/nodePools/train-sub-block-a1")
	emptyPlan("after import")

	mustTF("destroy", "-auto-approve", "-input=false", "-no-color")
	e := accEngine(t)
	for pool := range partitions {
		if _, err := e.ReadNodePool(context.Background(), "projects/sandbox-project/locations/us-central1/clusters/ironwood/nodePools/"+pool); !errors.Is(err, engine.ErrNotFound) {
			t.Errorf("pool %s still exists after destroy (%v)", pool, err)
		}
		if n, err := accSandbox.NodesOfPool(context.Background(), pool); err != nil || n != 0 {
			t.Errorf("pool %s left %d nodes (%v)", pool, n, err)
		}
	}
	if _, err := e.ReadWorkloadPolicy(context.Background(), "sandbox-project", "us-central1", "train-dynamic-slicing"); !errors.Is(err, engine.ErrNotFound) {
		t.Errorf("the workload policy still exists after destroy (%v)", err)
	}
}
