package provider

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// A 4x8x8 slice from a selector over four pools reaches ACTIVE, plans
// empty, shows in gke_partitions as using its partitions, imports, and
// leaves nothing behind.
func TestAccTPUSlice_selector(t *testing.T) {
	needTarget(t)
	pools := slicePools("sel", "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4")
	name := accName("train-4x8x8")
	slice := fmt.Sprintf(`
resource "gke_tpu_slice" "s" {
  name     = %q
  topology = "4x8x8"
  partition_selector {
    node_pools = [for p in [gke_subblock_node_pool.sub-block-a1, gke_subblock_node_pool.sub-block-a2, gke_subblock_node_pool.sub-block-a3, gke_subblock_node_pool.sub-block-a4] : p.name]
  }
}

data "gke_partitions" "used" {
  node_pools = [%q, %q, %q, %q]
  depends_on = [gke_tpu_slice.s]
}
`, name, poolName("sel", "sub-block-a1"), poolName("sel", "sub-block-a2"), poolName("sel", "sub-block-a3"), poolName("sel", "sub-block-a4"))
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: accConfig(pools + slice),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("ready"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("partition_ids"), knownvalue.ListSizeExact(4)),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("chips"), knownvalue.Int64Exact(256)),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("hosts"), knownvalue.Int64Exact(64)),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("accelerator_type"), knownvalue.StringExact("tpu7x-512")),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("node_selector"), knownvalue.MapExact(map[string]knownvalue.Check{
						"cloud.google.com/gke-tpu-accelerator": knownvalue.StringExact("tpu7x"),
						"cloud.google.com/gke-tpu-topology":    knownvalue.StringExact("4x8x8"),
						"cloud.google.com/gke-tpu-slice":       knownvalue.StringExact(name),
					})),
					statecheck.ExpectKnownValue("data.gke_partitions.used", tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("slice"), knownvalue.StringExact(name)),
					statecheck.ExpectKnownValue("data.gke_partitions.used", tfjsonpath.New("totals"), knownvalue.MapExact(map[string]knownvalue.Check{"HEALTHY": knownvalue.Int64Exact(4)})),
				},
			},
			{
				ResourceName:            "gke_tpu_slice.s",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"partition_selector"},
			},
		},
	})
}

// Plan-time errors: each names the rule and the fix.
func TestAccTPUSlice_rejectedAtPlan(t *testing.T) {
	needTarget(t)
	cases := map[string]struct{ body, text string }{
		"topology order":   {`topology = "4x8x4"` + "\n  partition_ids = [\"a\", \"b\"]", `dimensions must be in non-decreasing order`},
		"partition count":  {`topology = "4x8x8"` + "\n  partition_ids = [\"a\", \"b\"]", `needs exactly 4 partition(s)`},
		"duplicate":        {`topology = "4x4x8"` + "\n  partition_ids = [\"a\", \"a\"]", `partition ID "a" is listed twice`},
		"too many chips":   {`topology = "8x8x256"` + "\n  partition_ids = [\"a\"]", `16384 chips exceed the tpu7x maximum of 9216 chips`},
		"neither":          {`topology = "4x4x4"`, `a slice needs its partitions: set partition_ids`},
		"both":             {`topology = "4x4x4"` + "\n  partition_ids = [\"a\"]\n  partition_selector {}", `set partition_ids (the partitions to join) or a partition_selector block (to choose them from node pools), not both`},
		"name too long":    {`topology = "4x4x4"` + "\n  partition_ids = [\"a\"]", `string length must be at most 49`},
		"name not a label": {`topology = "4x4x4"` + "\n  partition_ids = [\"a\"]", `must be a DNS label`},
		"type":             {`topology = "4x4x4"` + "\n  type = \"v6e\"\n  partition_ids = [\"a\"]", `value must be one of: ["tpu7x"]`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sliceName := "bad"
			switch name {
			case "name too long":
				sliceName = strings.Repeat("a", 50)
			case "name not a label":
				sliceName = "Bad_Name"
			}
			tfresource.Test(t, tfresource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []tfresource.TestStep{{
					Config:      accConfig(fmt.Sprintf("resource \"gke_tpu_slice\" \"s\" {\n  name = %q\n  %s\n}\n", sliceName, tc.body)),
					PlanOnly:    true,
					ExpectError: wrapped(tc.text),
				}},
			})
		})
	}
}

// The controller's verdicts fail the apply at once, with its reason and
// message; the slice stays in the state (tainted) and nothing else is left.
func TestAccTPUSlice_controllerFailures(t *testing.T) {
	needSandboxControl(t, "slice formations the sandbox fails")
	pools := slicePools("fail", "tpu7x-reservation", "block-a", "sub-block-a1") +
		slicePools("failb", "tpu7x-reservation", "block-b", "sub-block-b1")[len("resource \"gke_workload_policy\" \"p\" {\n  name = \"failb-policy\"\n}\n"):]
	pools = strings.ReplaceAll(pools, "gke_subblock_node_pool\" \"sub-block-b1", "gke_subblock_node_pool\" \"b1") + `
resource "gke_subblock_node_pool" "c2" {
  name                  = "fail-c2"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation-2"
  reservation_block     = "block-c"
  reservation_sub_block = "sub-block-c2"
}
`
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				// Nodes of the partition do not exist.
				Config: accConfig(pools + `
resource "gke_tpu_slice" "missing" {
  name          = "missing-nodes"
  topology      = "4x4x4"
  partition_ids = ["00000000000000000000000000000000"]
}`),
				ExpectError: wrapped("Slice Did Not Become Ready", "slice missing-nodes failed: SliceCreationFailed: the nodes of partition 00000000000000000000000000000000 do not exist",
					"no nodes carry this partition ID", "Events:"),
			},
			{
				// Partitions in different blocks: refused at plan, before a
				// Slice is made (the sandbox's slice controller fails such a
				// Slice: slicecontroller's formation tests).
				Config: accConfig(pools + `
resource "gke_tpu_slice" "across" {
  name          = "across-blocks"
  topology      = "4x4x8"
  partition_ids = [gke_subblock_node_pool.sub-block-a1.partition_id, gke_subblock_node_pool.b1.partition_id]
}`),
				ExpectError: wrapped("Partitions Cannot Form This Slice", "the listed partitions are in 2 reservation blocks",
					"tpu7x-reservation/block-a", "tpu7x-reservation/block-b"),
			},
			{
				// Partitions in different reservations (so in different
				// blocks): refused at plan too.
				Config: accConfig(pools + `
resource "gke_tpu_slice" "across" {
  name          = "across-reservations"
  topology      = "4x4x8"
  partition_ids = [gke_subblock_node_pool.sub-block-a1.partition_id, gke_subblock_node_pool.c2.partition_id]
}`),
				ExpectError: wrapped("Partitions Cannot Form This Slice", "the listed partitions are in 2 reservation blocks",
					"tpu7x-reservation-2/block-c", "tpu7x-reservation/block-a"),
			},
			{
				// Formation fails (injected): FAILED.
				PreConfig: func() { accFaults(t, sandbox.Faults{FailSliceFormations: 1}) },
				Config: accConfig(pools + `
resource "gke_tpu_slice" "doomed" {
  name          = "doomed"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a1.partition_id]
}`),
				ExpectError: wrapped("slice doomed failed: FAILED: the ICI links of the slice could not be formed"),
			},
			{
				// The next apply replaces the tainted slice and succeeds.
				PreConfig: func() { accFaults(t, sandbox.Faults{}) },
				Config: accConfig(pools + `
resource "gke_tpu_slice" "doomed" {
  name          = "doomed"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a1.partition_id]
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.doomed", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
			},
		},
	})
}

// Two slices of one configuration compete for one partition (the second
// lists the first's, known only once the pool is made): one wins; the
// other is refused before its Slice is made, naming the other slice of the
// configuration that claims it (the plan's claims, made again during the
// apply), so nothing is left behind outside the state.
func TestAccTPUSlice_competingSlices(t *testing.T) {
	needTarget(t)
	pools := slicePools("race", "tpu7x-reservation", "block-a", "sub-block-a2")
	first, second := accName("first"), accName("second")
	config := accConfig(pools + fmt.Sprintf(`
resource "gke_tpu_slice" "first" {
  name          = %q
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a2.partition_id]
}

resource "gke_tpu_slice" "second" {
  name          = %q
  topology      = "4x4x4"
  partition_ids = [gke_tpu_slice.first.partition_ids[0]]
}
`, first, second))
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{{
			Config:      config,
			ExpectError: wrapped("Partition Claimed Twice", "slice "+strconv.Quote(second)+" lists partition", "which slice "+strconv.Quote(first)+" of this configuration"),
			Check: func(*terraform.State) error {
				if _, err := accEngine(t).Slices().ReadSlice(context.Background(), second); !errors.Is(err, kernel.ErrNotFound) {
					return fmt.Errorf("Slice %s exists (%v)", second, err)
				}
				return nil
			},
		}},
	})
}

// With retry_on_failure the apply keeps waiting through
// SliceCreationFailed and succeeds once the partition is repaired.
func TestAccTPUSlice_retryOnFailureRecovers(t *testing.T) {
	needSandboxControl(t, "host health set by the test")
	pools := slicePools("retry", "tpu7x-reservation", "block-b", "sub-block-b3") // host 11 unhealthy: INCOMPLETE
	t.Cleanup(func() {
		_ = accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-b", "sub-block-b3", 11, sandbox.HostUnhealthy)
	})
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				PreConfig: func() {
					// Repair the host while the apply is waiting.
					go func() {
						awaitSliceState(t, "patient", clusterread.SliceCreationFailed)
						_ = accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-b", "sub-block-b3", 11, sandbox.HostHealthy)
					}()
				},
				Config: accConfig(pools + `
resource "gke_tpu_slice" "patient" {
  name             = "patient"
  topology         = "4x4x4"
  partition_ids    = [gke_subblock_node_pool.sub-block-b3.partition_id]
  retry_on_failure = true
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.patient", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
			},
		},
	})
}

// Selection skips degraded, unhealthy and used partitions, and when it
// cannot be satisfied the create (and, as a warning, the plan) says how
// many usable partitions each block has and why the others were skipped.
func TestAccTPUSlice_selectionExplainsShortage(t *testing.T) {
	needSandboxInventory(t, "block-b's sub-blocks with a degraded and an unhealthy host")
	pools := slicePools("short", "tpu7x-reservation", "block-b", "sub-block-b1", "sub-block-b2", "sub-block-b3")
	names := fmt.Sprintf("[%q, %q, %q]", poolName("short", "sub-block-b1"), poolName("short", "sub-block-b2"), poolName("short", "sub-block-b3"))
	big, other := accName("big"), accName("other")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				Config: accConfig(pools + `
resource "gke_tpu_slice" "big" {
  name     = "` + big + `"
  topology = "4x4x8"
  partition_selector {
    node_pools = ` + names + `
  }
}`),
				// The plan warns of it; the create fails with the same words
				// and leaves nothing behind.
				ExpectError: wrapped("Cannot Select Partitions", "2 partition(s) are needed in one block, but no block of node pools", "1 usable, skipped 1 DEGRADED (allow_degraded is false), 1 INCOMPLETE"),
			},
			{
				// Allowing degraded partitions makes room: HEALTHY first.
				Config: accConfig(pools + `
resource "gke_tpu_slice" "big" {
  name     = "` + big + `"
  topology = "4x4x8"
  allow_degraded = true
  partition_selector {
    node_pools     = ` + names + `
    allow_degraded = true
  }
}`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.big", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE_DEGRADED")),
				},
			},
			{
				// Now the partitions are used by "big": a second slice
				// cannot have them.
				Config: accConfig(pools + `
resource "gke_tpu_slice" "big" {
  name     = "` + big + `"
  topology = "4x4x8"
  allow_degraded = true
  partition_selector {
    node_pools     = ` + names + `
    allow_degraded = true
  }
}

resource "gke_tpu_slice" "other" {
  name     = "` + other + `"
  topology = "4x4x4"
  partition_selector {
    node_pools     = ` + names + `
    allow_degraded = true
  }
}`),
				ExpectError: wrapped("0 usable, skipped 1 INCOMPLETE, 2 used by slice " + big),
			},
		},
	})
}

// Drift: a degraded partition shows in state with a warning; a slice
// deleted out of band is planned again.
func TestAccTPUSlice_drift(t *testing.T) {
	needSandboxControl(t, "host health set by the test")
	pools := slicePools("drift", "tpu7x-reservation", "block-a", "sub-block-a3")
	config := accConfig(pools + `
resource "gke_tpu_slice" "s" {
  name          = "drifting"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a3.partition_id]
}`)
	t.Cleanup(func() {
		_ = accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a3", 2, sandbox.HostHealthy)
	})
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					if err := accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a3", 2, sandbox.HostDegraded); err != nil {
						t.Fatal(err)
					}
					awaitSliceState(t, "drifting", clusterread.SliceActiveDegraded)
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE_DEGRADED")),
				},
			},
			{
				Config: config,
				Check: func(*terraform.State) error {
					_, err := accEngine(t).Slices().DeleteSlice(context.Background(), "drifting", false)
					return err
				},
				ExpectNonEmptyPlan: true,
			},
		},
	})
}

// A create that times out leaves the slice in the state (tainted) with an
// error naming the timeout, its last state and what the next apply does;
// the next apply replaces it. A watch cut in the middle of the wait does
// not disturb it.
func TestAccTPUSlice_timeoutAndCutWatch(t *testing.T) {
	needSandboxControl(t, "a slice activation the sandbox delays, and watches it cuts")
	pools := slicePools("slow", "tpu7x-reservation", "block-a", "sub-block-a4")
	slice := `
resource "gke_tpu_slice" "s" {
  name          = "slow"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a4.partition_id]
  timeouts {
    create = "%s"
  }
}`
	var cut atomic.Int64
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				PreConfig: func() { accFaults(t, sandbox.Faults{SliceActivationDelayMs: 60_000}) },
				Config:    accConfig(pools + fmt.Sprintf(slice, "2s")),
				ExpectError: wrapped("Slice Create Timed Out", "gave up after", "waiting for slice slow to become ACTIVE; its last state was ACTIVATING",
					`The create did not finish within its timeout (timeouts.create = "2s").`,
					"Slice slow exists (ACTIVATING) and is recorded in the state, tainted:",
					"`terraform destroy` deletes it, and the next apply replaces it (deletes it and creates it again).",
					"To keep it instead, run `terraform untaint` on this resource: the next apply then waits for it to become ACTIVE"),
			},
			{
				PreConfig: func() {
					accFaults(t, sandbox.Faults{SliceActivationDelayMs: 1500})
					go func() {
						// Cut every watch while the apply waits.
						awaitSliceState(t, "slow", clusterread.SliceActivating)
						cut.Add(int64(accSandbox.CutWatches()))
					}()
				},
				Config:           accConfig(pools + fmt.Sprintf(slice, "2m")),
				ConfigPlanChecks: replaced("gke_tpu_slice.s"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
			},
		},
	})
	accFaults(t, sandbox.Faults{})
	if cut.Load() == 0 {
		t.Error("no watch was open to cut while the apply waited for the slice")
	}
}

// partition_selector.block takes the reservation block's name, as users
// write it, as well as the physical block ID.
func TestAccTPUSlice_selectorBlockByReservationName(t *testing.T) {
	needTarget(t)
	pools := slicePools("byname", "tpu7x-reservation", "block-a", "sub-block-a3", "sub-block-a4")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				Config: accConfig(pools + fmt.Sprintf(`
resource "gke_tpu_slice" "s" {
  name     = %q
  topology = "4x4x8"
  partition_selector {
    block = "block-a"
  }
}`, accName("byname"))),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("partition_ids"), knownvalue.ListSizeExact(2)),
				},
			},
		},
	})
}

// Watches cut every 0.5 s while the slice forms: the create still sees
// ACTIVE soon after the verdict, well within its 18 s timeout (formation takes 10 s) (client-go's
// reflector backoff made it up to 30 s late). The lateness is logged.
func TestAccTPUSlice_repeatedWatchCuts(t *testing.T) {
	needSandboxControl(t, "cut watches and when the sandbox marked the slice active")
	pools := slicePools("cuts", "tpu7x-reservation", "block-a", "sub-block-a1")
	var cuts atomic.Int64
	stop := make(chan struct{})
	var stopOnce sync.Once
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				PreConfig: func() {
					accFaults(t, sandbox.Faults{SliceActivationDelayMs: 10_000})
					go func() {
						awaitSliceState(t, "cuts", clusterread.SliceActivating)
						tick := time.NewTicker(500 * time.Millisecond)
						defer tick.Stop()
						for {
							cuts.Add(int64(accSandbox.CutWatches()))
							select {
							case <-stop:
								return
							case <-tick.C:
							}
						}
					}()
				},
				Config: accConfig(pools + `
resource "gke_tpu_slice" "s" {
  name          = "cuts"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a1.partition_id]
  timeouts {
    create = "18s"
  }
}`),
				Check: func(*terraform.State) error {
					stopOnce.Do(func() { close(stop) })
					if at, ok := accSandbox.SliceMarkedActive("cuts"); ok {
						t.Logf("the apply ended %s after the simulator marked the slice ACTIVE, with watches cut every 0.5s (%d cut)",
							time.Since(at).Round(10*time.Millisecond), cuts.Load())
					}
					return nil
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
			},
		},
	})
	stopOnce.Do(func() { close(stop) })
	accFaults(t, sandbox.Faults{})
	if cuts.Load() < 2 {
		t.Errorf("%d watches cut while the apply waited; want repeated cuts", cuts.Load())
	}
}

// A slice whose deletion is stuck (the controller keeps its finalizer):
// with force_remove_finalizer the destroy removes the finalizer after the
// delete timeout, with a warning, and nothing is left.
func TestAccTPUSlice_forceRemoveStuckFinalizer(t *testing.T) {
	needSandboxControl(t, "a slice finalizer the sandbox holds")
	pools := slicePools("stuck", "tpu7x-reservation-2", "block-c", "sub-block-c1")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: accConfig(pools + `
resource "gke_tpu_slice" "s" {
  name                   = "stuck"
  topology               = "4x4x4"
  partition_ids          = [gke_subblock_node_pool.sub-block-c1.partition_id]
  force_remove_finalizer = true
  timeouts {
    delete = "2s"
  }
}`),
			},
			{
				PreConfig: func() { accFaults(t, sandbox.Faults{HoldSliceFinalizers: true}) },
				Config:    accConfig(pools),
				Check: func(*terraform.State) error {
					accFaults(t, sandbox.Faults{})
					if _, err := accEngine(t).Slices().ReadSlice(context.Background(), "stuck"); !errors.Is(err, kernel.ErrNotFound) {
						return fmt.Errorf("the stuck slice is still there: %v", err)
					}
					return nil
				},
			},
		},
	})
}

// Two slices choosing from the same pools in one run get different
// partitions: at apply (the pools are new) and at plan (they exist).
func TestAccTPUSlice_twoSelectorsOneRun(t *testing.T) {
	needTarget(t)
	pools := slicePools("pair", "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4")
	slices := func(prefix string) string {
		var b strings.Builder
		for _, n := range []string{"0", "1"} {
			fmt.Fprintf(&b, `
resource "gke_tpu_slice" "%s%s" {
  name     = %q
  topology = "4x4x8"
  partition_selector {
    node_pools = [for p in [gke_subblock_node_pool.sub-block-a1, gke_subblock_node_pool.sub-block-a2, gke_subblock_node_pool.sub-block-a3, gke_subblock_node_pool.sub-block-a4] : p.name]
  }
}
`, prefix, n, accName(prefix+"-"+n))
		}
		return b.String()
	}
	disjoint := func(prefix string) func(*terraform.State) error {
		return func(s *terraform.State) error {
			a, b := s.RootModule().Resources["gke_tpu_slice."+prefix+"0"].Primary.Attributes, s.RootModule().Resources["gke_tpu_slice."+prefix+"1"].Primary.Attributes
			seen := map[string]bool{a["partition_ids.0"]: true, a["partition_ids.1"]: true}
			if seen[b["partition_ids.0"]] || seen[b["partition_ids.1"]] || a["state"] != "ACTIVE" || b["state"] != "ACTIVE" {
				return fmt.Errorf("slices share partitions or are not ACTIVE: %v %v / %v %v (%s, %s)",
					a["partition_ids.0"], a["partition_ids.1"], b["partition_ids.0"], b["partition_ids.1"], a["state"], b["state"])
			}
			return nil
		}
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools + slices("new")), Check: disjoint("new")},
			// Slices that are destroyed in the same apply still hold their
			// partitions at plan time, so free them first.
			{Config: accConfig(pools)},
			{Config: accConfig(pools + slices("planned")), Check: disjoint("planned")},
		},
	})
}

// A slice that turned FAILED (a host went UNHEALTHY) does not recover in
// place: once the host is repaired, the plan replaces it and the apply
// makes it ACTIVE again.
func TestAccTPUSlice_failedSliceIsReplaced(t *testing.T) {
	needSandboxControl(t, "host health set by the test")
	pools := slicePools("conv", "tpu7x-reservation", "block-a", "sub-block-a2")
	config := accConfig(pools + `
resource "gke_tpu_slice" "s" {
  name          = "converging"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a2.partition_id]
}`)
	setHealth := func(health string) {
		if err := accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a2", 7, health); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { setHealth(sandbox.HostHealthy) })
	var uid string
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					s, err := accEngine(t).Slices().ReadSlice(context.Background(), "converging")
					if err == nil {
						uid = s.UID
					}
					return err
				},
			},
			{
				PreConfig: func() {
					setHealth(sandbox.HostUnhealthy)
					awaitSliceState(t, "converging", clusterread.SliceFailed)
					setHealth(sandbox.HostHealthy)
				},
				Config: config,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gke_tpu_slice.s", plancheck.ResourceActionDestroyBeforeCreate)},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
				Check: func(*terraform.State) error {
					s, err := accEngine(t).Slices().ReadSlice(context.Background(), "converging")
					if err == nil && s.UID == uid {
						return fmt.Errorf("Slice converging was not replaced (same UID %s)", uid)
					}
					return err
				},
			},
			{Config: config, PlanOnly: true},
		},
	})
}

// A slice brought under a configuration that selects its partitions
// (imported, as after building it by hand) is kept while its partitions
// satisfy the selector: the plan records the selector in place, the Slice
// is the same object afterwards, and the next plan is empty. A selector
// that leaves its partitions out replaces it, saying why.
func TestAccTPUSlice_importUnderSelector(t *testing.T) {
	needTarget(t)
	pools := slicePools("imp", "tpu7x-reservation", "block-a", "sub-block-a3", "sub-block-a4")
	name := accName("imported")
	listed := accConfig(pools + fmt.Sprintf(`
resource "gke_tpu_slice" "s" {
  name          = %q
  topology      = "4x4x8"
  partition_ids = [gke_subblock_node_pool.sub-block-a3.partition_id, gke_subblock_node_pool.sub-block-a4.partition_id]
}`, name))
	// The slice leaves the state and stays in the cluster.
	forgotten := accConfig(pools + `
removed {
  from = gke_tpu_slice.s
  lifecycle {
    destroy = false
  }
}`)
	selected := func(pools string) string {
		return accConfig(slicePools("imp", "tpu7x-reservation", "block-a", "sub-block-a3", "sub-block-a4") + fmt.Sprintf(`
resource "gke_tpu_slice" "s" {
  name     = %q
  topology = "4x4x8"
  partition_selector {
    node_pools = `+pools+`
  }
}`, name))
	}
	both := selected(`[gke_subblock_node_pool.sub-block-a3.name, gke_subblock_node_pool.sub-block-a4.name]`)
	recordSlice, sameSlice := sliceUID(t, name)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: listed,
				Check:  recordSlice,
			},
			{Config: forgotten, Check: sameSlice},
			{
				Config:             both,
				ResourceName:       "gke_tpu_slice.s",
				ImportState:        true,
				ImportStateId:      name,
				ImportStatePersist: true,
			},
			{
				// A selector that leaves one of its pools out: replaced.
				Config:             selected(`[gke_subblock_node_pool.sub-block-a3.name]`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PostApplyPreRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gke_tpu_slice.s", plancheck.ResourceActionDestroyBeforeCreate)},
				},
			},
			{
				Config: both,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("gke_tpu_slice.s", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("partition_ids"), knownvalue.ListSizeExact(2)),
				},
				Check: sameSlice,
			},
			{Config: both, PlanOnly: true},
		},
	})
}

// An empty list of node pools known only at apply (a for expression over
// pools that another workspace was meant to give) is refused there, before
// any Slice is made, instead of selecting from every pool of the cluster:
// here a pool of the same apply that the list does not name.
func TestAccTPUSlice_emptyNodePoolsAtApply(t *testing.T) {
	needTarget(t)
	name := accName("no-pools")
	config := accConfig(slicePools("empty", "tpu7x-reservation", "block-a", "sub-block-a1") + `
resource "terraform_data" "pools" {
  input = []
}

resource "gke_tpu_slice" "s" {
  name     = "` + name + `"
  topology = "4x4x4"
  partition_selector {
    node_pools = terraform_data.pools.output
  }
  depends_on = [gke_subblock_node_pool.sub-block-a1]
}`)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		ExternalProviders:        map[string]tfresource.ExternalProvider{"terraform": {Source: "terraform.io/builtin/terraform"}},
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config:      config,
				ExpectError: wrapped("partition_selector.node_pools is an empty list: it names no pool to select from"),
			},
			{
				Config: accConfig(slicePools("empty", "tpu7x-reservation", "block-a", "sub-block-a1")),
				Check: func(*terraform.State) error {
					if _, err := accEngine(t).Slices().ReadSlice(context.Background(), name); !errors.Is(err, kernel.ErrNotFound) {
						return fmt.Errorf("Slice %s exists after a refused create (%v)", name, err)
					}
					return nil
				},
			},
		},
	})
}
