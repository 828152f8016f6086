package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

var (
	hex32     = knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{32}$`))
	poolState = func(name, attr string, v knownvalue.Check) statecheck.StateCheck {
		return statecheck.ExpectKnownValue(name, tfjsonpath.New(attr), v)
	}
)

func TestAccSubBlockNodePool_subBlock(t *testing.T) {
	needTarget(t)
	target := `reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a1"
  wait_for_partition    = "HEALTHY"`
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: poolConfig("acc-np-policy", "acc-np-a1", target),
				ConfigStateChecks: []statecheck.StateCheck{
					poolState("gke_subblock_node_pool.np", "id", knownvalue.StringExact(accPoolID(accName("acc-np-a1")))),
					poolState("gke_subblock_node_pool.np", "partition_id", hex32),
					poolState("gke_subblock_node_pool.np", "partition_state", knownvalue.StringExact("HEALTHY")),
					poolState("gke_subblock_node_pool.np", "node_names", knownvalue.ListSizeExact(16)),
					poolState("gke_subblock_node_pool.np", "ready_node_count", knownvalue.Int64Exact(16)),
					poolState("gke_subblock_node_pool.np", "sub_block", knownvalue.StringExact(inv("sub-block-a1"))),
					poolState("gke_subblock_node_pool.np", "status", knownvalue.StringExact("RUNNING")),
					poolState("gke_subblock_node_pool.np", "reservation_path",
						knownvalue.StringExact(inv("projects/sandbox-project/reservations/tpu7x-reservation/reservationBlocks/block-a/reservationSubBlocks/sub-block-a1"))),
					poolState("gke_subblock_node_pool.np", "machine_type", knownvalue.StringExact("tpu7x-standard-4t")),
					poolState("gke_subblock_node_pool.np", "auto_upgrade", knownvalue.Bool(false)),
				},
			},
			{
				ResourceName:            "gke_subblock_node_pool.np",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"wait_for_partition", "workload_policy"},
			},
		},
	})
}

// Block targeting: GKE picks a free sub-block, which the pool reports.
func TestAccSubBlockNodePool_block(t *testing.T) {
	needSandboxInventory(t, "a whole block, block-c of the second reservation, whose first free sub-block is sub-block-c1")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{{
			Config: poolConfig("acc-np-policy-b", "acc-np-c", `reservation       = "tpu7x-reservation-2"
  reservation_block = "block-c"`),
			ConfigStateChecks: []statecheck.StateCheck{
				poolState("gke_subblock_node_pool.np", "sub_block", knownvalue.StringExact("sub-block-c1")),
				poolState("gke_subblock_node_pool.np", "reservation_sub_block", knownvalue.Null()),
				poolState("gke_subblock_node_pool.np", "partition_state", knownvalue.StringExact("HEALTHY")),
			},
		}},
	})
}

// One pool per free sub-block of a block, from the data source; the set
// stays the same after apply (the pools' own sub-blocks are kept), so the
// plan is empty afterwards. (terraform-plugin-testing cannot read the state
// of for_each resources with string keys, so the test uses count over the
// same sorted selection the documented for_each example uses.)
func TestAccSubBlockNodePool_forEachFreeSubBlock(t *testing.T) {
	needSandboxInventory(t, "every sub-block of block-b free, with its degraded and unhealthy hosts")
	prefix := accName("acc") + "-"
	config := accConfig(`
data "gke_reservation_sub_blocks" "b" {
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-b"
}

locals {
  sub_blocks = sort([for s in data.gke_reservation_sub_blocks.b.sub_blocks : s.name if s.free || startswith(s.node_pool, "` + prefix + `")])
}

resource "gke_workload_policy" "p" {
  name = "` + accName("acc-foreach") + `"
}

resource "gke_subblock_node_pool" "np" {
  count                 = length(local.sub_blocks)
  name                  = "` + prefix + `${local.sub_blocks[count.index]}"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-b"
  reservation_sub_block = local.sub_blocks[count.index]
}

output "states" {
  value = { for v in gke_subblock_node_pool.np : v.sub_block => "${v.partition_state}/${v.ready_node_count}" }
}
`)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownOutputValue("states", knownvalue.MapExact(map[string]knownvalue.Check{
						"sub-block-b1": knownvalue.StringExact("HEALTHY/16"),
						"sub-block-b2": knownvalue.StringExact("DEGRADED/16"),
						// Host 11 of b3 is unhealthy: incremental provisioning.
						"sub-block-b3": knownvalue.StringExact("INCOMPLETE/15"),
						"sub-block-b4": knownvalue.StringExact("HEALTHY/16"),
					})),
				},
			},
			{
				// Read back: the data source sees the sub-blocks in use by
				// the acc- pools.
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					poolState("data.gke_reservation_sub_blocks.b", "sub_block_count", knownvalue.Int64Exact(4)),
					poolState("data.gke_reservation_sub_blocks.b", "sub_block_in_use_count", knownvalue.Int64Exact(4)),
					poolState("data.gke_reservation_sub_blocks.b", "free_sub_blocks", knownvalue.ListSizeExact(0)),
				},
			},
		},
	})
}

// Every rejected target, with the error Terraform shows.
func TestAccSubBlockNodePool_rejectedTargets(t *testing.T) {
	needTarget(t)
	// Against a reservation other than the sandbox's, the sub-blocks the
	// error lists are not known here: only the start of the text is checked.
	allSubBlocks := "; its sub-blocks are: sub-block-a1, sub-block-a2, sub-block-a3, sub-block-a4"
	allBlocks := "; its blocks are: block-a, block-b"
	if accTarget.external() && !accTarget.SandboxInventory {
		allSubBlocks, allBlocks = "; its sub-blocks are:", "; its blocks are:"
	}
	cases := map[string]struct{ target, text string }{
		"unknown reservation": {`reservation = "nope"
  reservation_block = "block-a"`, `reservation "nope" was not found in projects/sandbox-project/zones/us-central1-a`},
		"unknown block": {`reservation = "tpu7x-reservation"
  reservation_block = "block-zz"`, `reservation block "block-zz" was not found in reservation "tpu7x-reservation" (projects/sandbox-project/zones/us-central1-a)` + allBlocks},
		"unknown sub-block": {`reservation = "tpu7x-reservation"
  reservation_block = "block-a"
  reservation_sub_block = "sub-block-zz"`, `reservation sub-block "sub-block-zz" was not found in block "block-a" of reservation "tpu7x-reservation"` + allSubBlocks},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tfresource.Test(t, tfresource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				CheckDestroy:             checkPoolsDestroyed(t),
				Steps: []tfresource.TestStep{{
					Config:      poolConfig("acc-rejected", "acc-rejected", tc.target),
					ExpectError: wrapped("Cannot Create Sub-Block Node Pool", inv(tc.text)),
				}},
			})
		})
	}
}

// A sub-block in use, and a block with no free sub-block, are refused
// before GKE is called: at plan.
func TestAccSubBlockNodePool_targetInUse(t *testing.T) {
	needSandboxInventory(t, "a whole block, block-c of the second reservation, with two sub-blocks")
	inUse, first, second, third := accName("acc-in-use"), accName("acc-first"), accName("acc-second"), accName("acc-third")
	taken := accConfig(`
resource "gke_workload_policy" "p" {
  name = "` + inUse + `"
}

resource "gke_subblock_node_pool" "first" {
  name                  = "` + first + `"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation-2"
  reservation_block     = "block-c"
  reservation_sub_block = "sub-block-c1"
}

resource "gke_subblock_node_pool" "second" {
  name                  = "` + second + `"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation-2"
  reservation_block     = "block-c"
  reservation_sub_block = "sub-block-c2"
}
`)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: taken},
			{
				Config: taken + `
resource "gke_subblock_node_pool" "third" {
  name                  = "` + third + `"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation-2"
  reservation_block     = "block-c"
  reservation_sub_block = "sub-block-c1"
}`,
				// Refused at plan (Compute's topology of sub-block-c1 is RUNNING).
				ExpectError: wrapped(`reservation sub-block "sub-block-c1" of block "block-c" is already in use by node pool ` + first +
					` (its topology is 4x4x4 RUNNING, 16 of 16 hosts run VMs); available sub-blocks of the block: none`),
			},
			{
				Config: taken + `
resource "gke_subblock_node_pool" "third" {
  name              = "` + third + `"
  zone              = "us-central1-a"
  workload_policy   = gke_workload_policy.p.name
  reservation       = "tpu7x-reservation-2"
  reservation_block = "block-c"
}`,
				ExpectError: wrapped(`reservation block "block-c" of reservation "tpu7x-reservation-2" has no free sub-block: all 2 are in use`),
			},
		},
	})
}

// A stack applies through bursts of 429 and 503 from both APIs: half of
// all requests fail, up to 4 tries of one request in a row (the provider
// retries a request for 2 minutes), so the apply must retry and always can.
func TestAccSubBlockNodePool_survivesRateLimitsAndUnavailability(t *testing.T) {
	needSandboxControl(t, "injected 429/503 answers and the request counts")
	before := accSandbox.InjectedFaults()
	accFaults(t, sandbox.Faults{
		Compute:   sandbox.APIFaults{Rate429: 0.25, Rate503: 0.25, MaxBurst: 4},
		Container: sandbox.APIFaults{Rate429: 0.25, Rate503: 0.25, MaxBurst: 4},
	})
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{{
			Config: poolConfig("acc-flaky", "acc-flaky", `reservation = "tpu7x-reservation"
  reservation_block = "block-a"
  reservation_sub_block = "sub-block-a2"`),
			ConfigStateChecks: []statecheck.StateCheck{
				poolState("gke_subblock_node_pool.np", "partition_state", knownvalue.StringExact("HEALTHY")),
			},
		}},
	})
	if c := accSandbox.RequestCounts(); c["container POST nodePools"] < 1 {
		t.Errorf("request counts %v", c)
	}
	// Some tens of requests, each failing with a chance of one half: none
	// failing would mean the faults were not in force.
	after, injected := accSandbox.InjectedFaults(), int64(0)
	for k, n := range after {
		injected += n - before[k]
	}
	if injected == 0 {
		t.Errorf("no 429 or 503 was injected during the apply (%v): the test did not exercise retries", after)
	}
}

// A failed GKE operation leaves the pool in the state (tainted); the next
// apply replaces it.
func TestAccSubBlockNodePool_failedOperationRepairedByNextApply(t *testing.T) {
	needSandboxControl(t, "a node pool operation made to fail")
	config := poolConfig("acc-repair", "acc-repair", `reservation = "tpu7x-reservation"
  reservation_block = "block-a"
  reservation_sub_block = "sub-block-a3"`)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				PreConfig:   func() { accFaults(t, sandbox.Faults{FailOperations: map[string]int{"CREATE_NODE_POOL": 1}}) },
				Config:      config,
				ExpectError: wrapped("operation", "failed: injected failure of a CREATE_NODE_POOL operation"),
			},
			{
				PreConfig: func() { accFaults(t, sandbox.Faults{}) },
				Config:    config,
				ConfigStateChecks: []statecheck.StateCheck{
					poolState("gke_subblock_node_pool.np", "status", knownvalue.StringExact("RUNNING")),
					poolState("gke_subblock_node_pool.np", "partition_state", knownvalue.StringExact("HEALTHY")),
				},
			},
		},
	})
}

// Drift: a pool deleted out of band is planned again; a degraded host
// shows in partition_state after refresh.
func TestAccSubBlockNodePool_drift(t *testing.T) {
	needSandboxControl(t, "host health set by the test")
	config := poolConfig("acc-drift", "acc-drift", `reservation = "tpu7x-reservation"
  reservation_block = "block-a"
  reservation_sub_block = "sub-block-a4"`)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					if err := accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a4", 6, sandbox.HostDegraded); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() {
						_ = accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a4", 6, sandbox.HostHealthy)
					})
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					poolState("gke_subblock_node_pool.np", "partition_state", knownvalue.StringExact("DEGRADED")),
				},
			},
			{
				Config: config,
				Check: func(s *terraform.State) error {
					return accEngine(t).NodePools().Delete(context.Background(), s.RootModule().Resources["gke_subblock_node_pool.np"].Primary.ID)
				},
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// Labels, taints and auto-upgrade change in place: the plan updates the
// pool, the nodes get the new labels and lose the old ones, and the
// partition (the pool's nodes) stays.
func TestAccSubBlockNodePool_updateInPlace(t *testing.T) {
	needTarget(t)
	config := func(settings string) string {
		return poolConfig("acc-np-upd-policy", "acc-np-upd", `reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a2"
`+settings)
	}
	nodesWith := func(selector string, want int) tfresource.TestCheckFunc {
		return func(*terraform.State) error {
			n, err := accNodeCount(t, "cloud.google.com/gke-nodepool="+accName("acc-np-upd")+","+selector)
			if err != nil || n != want {
				return fmt.Errorf("%d nodes of %s have %s (%v), want %d", n, accName("acc-np-upd"), selector, err, want)
			}
			return nil
		}
	}
	samePartition := statecheck.CompareValue(compare.ValuesSame())
	sameNodes := statecheck.CompareValue(compare.ValuesSame())
	inPlace := tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction("gke_subblock_node_pool.np", plancheck.ResourceActionUpdate),
	}}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: config(`  node_labels = { team = "ml" }
  taint {
    key    = "dedicated"
    value  = "slices"
    effect = "NO_SCHEDULE"
  }`),
				Check: nodesWith("team=ml", 16),
				ConfigStateChecks: []statecheck.StateCheck{
					samePartition.AddStateValue("gke_subblock_node_pool.np", tfjsonpath.New("partition_id")),
					sameNodes.AddStateValue("gke_subblock_node_pool.np", tfjsonpath.New("node_names")),
				},
			},
			{
				Config: config(`  node_labels  = { team = "research", tier = "gold" }
  auto_upgrade = true`),
				ConfigPlanChecks: inPlace,
				Check: tfresource.ComposeTestCheckFunc(
					nodesWith("team=research,tier=gold", 16),
					nodesWith("team=ml", 0),
				),
				ConfigStateChecks: []statecheck.StateCheck{
					samePartition.AddStateValue("gke_subblock_node_pool.np", tfjsonpath.New("partition_id")),
					sameNodes.AddStateValue("gke_subblock_node_pool.np", tfjsonpath.New("node_names")),
					poolState("gke_subblock_node_pool.np", "auto_upgrade", knownvalue.Bool(true)),
					poolState("gke_subblock_node_pool.np", "taint", knownvalue.ListSizeExact(0)),
					poolState("gke_subblock_node_pool.np", "status", knownvalue.StringExact("RUNNING")),
				},
			},
			{
				Config:           config(""),
				ConfigPlanChecks: inPlace,
				Check:            nodesWith("team", 0),
				ConfigStateChecks: []statecheck.StateCheck{
					samePartition.AddStateValue("gke_subblock_node_pool.np", tfjsonpath.New("partition_id")),
					poolState("gke_subblock_node_pool.np", "node_labels", knownvalue.Null()),
					poolState("gke_subblock_node_pool.np", "auto_upgrade", knownvalue.Bool(false)),
				},
			},
			{
				ResourceName:            "gke_subblock_node_pool.np",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"wait_for_partition", "workload_policy"},
			},
		},
	})
}
