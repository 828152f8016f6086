package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// A create that its timeout ends while the object's operation still runs
// leaves the object in the state, tainted, and says so: the timeout, the
// operation and its last status, where the object stands, what destroy
// and the next apply do (issue 56). The tests hold or delay the
// operation with the sandbox's faults and give the create a timeout of a
// few seconds. The slice's and the Kueue objects' are
// TestAccTPUSlice_timeoutAndCutWatch and TestAccKueueSlicing_inactiveQueue.

// timedOutPolicy is a workload policy named accName(name) whose create
// times out after timeout.
func timedOutPolicy(name, timeout string) string {
	return accConfig(fmt.Sprintf(`
resource "gke_workload_policy" "p" {
  name = %q
  timeouts {
    create = %q
  }
}
`, accName(name), timeout))
}

// replaced is a plan check: the resource at address is replaced (it is
// tainted).
func replaced(address string) tfresource.ConfigPlanChecks {
	return tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(address, plancheck.ResourceActionReplace)}}
}

// A policy whose insert Compute holds RUNNING (the policy exists) is in
// the state, tainted, when the create times out; the next apply replaces
// it, and destroy deletes it.
func TestAccWorkloadPolicy_createOutlivedByItsInsert(t *testing.T) {
	needSandboxControl(t, "a Compute operation the sandbox holds RUNNING")
	name := accName("acc-held-wp")
	config := timedOutPolicy("acc-held-wp", "3s")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoliciesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				PreConfig: func() { accFaults(t, sandbox.Faults{Compute: sandbox.APIFaults{HoldOperations: 1}}) },
				Config:    config,
				ExpectError: wrapped("Workload Policy Create Timed Out", "creating workload policy", "resourcePolicies/"+name+": gave up after",
					"waiting for Compute operation", "(insert), which was RUNNING: context deadline exceeded",
					`The create did not finish within its timeout (timeouts.create = "3s").`,
					"resourcePolicies/"+name+" exists (READY) and is recorded in the state, tainted:",
					"`terraform destroy` deletes it, and the next apply replaces it (deletes it and creates it again).",
					"To keep it instead, run `terraform untaint` on this resource"),
			},
			{
				PreConfig:        func() { accFaults(t, sandbox.Faults{}) },
				Config:           config,
				ConfigPlanChecks: replaced("gke_workload_policy.p"),
			},
		},
	})
}

// A policy whose insert outlives the create's timeout and has not made it
// yet is in the state, tainted, with its insert: the refresh keeps it
// while the insert runs, and destroy waits for the insert to end and
// deletes what it made, so that nothing appears after it.
func TestAccWorkloadPolicy_destroyAfterAnUnfinishedInsert(t *testing.T) {
	needSandboxControl(t, "a Compute operation the sandbox delays, and its operations log")
	name := accName("acc-late-wp")
	config := timedOutPolicy("acc-late-wp", "2s")
	const deletes = "compute DELETE resourcePolicies"
	var before int64
	insertEnded := func(*terraform.State) error {
		// Two deletes when the destroy found no policy and waited for the
		// insert; one when the insert had ended before it.
		t.Logf("the destroy sent %d deletes", accSandbox.RequestCounts()[deletes]-before)
		for _, op := range accSandbox.Operations() {
			if op.API == "compute" && op.Type == "insert" && strings.HasSuffix(op.Target, "/resourcePolicies/"+name) && !op.Done {
				return fmt.Errorf("destroy returned while the insert of the policy, operation %s, still ran: what it makes is left behind", op.Name)
			}
		}
		return nil
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoliciesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				PreConfig: func() { accFaults(t, sandbox.Faults{OperationDelayMs: 8000}) },
				Config:    config,
				ExpectError: wrapped("Workload Policy Create Timed Out", "(insert), which was RUNNING: context deadline exceeded",
					`(timeouts.create = "2s")`, "resourcePolicies/"+name+" does not exist yet (its insert, operation",
					"and is recorded in the state, tainted:", "`terraform destroy` deletes it"),
			},
			{
				// The delete of the destroy is not delayed. A destroy step's
				// Check reads the state before it: the test case's
				// CheckDestroy runs only when the state is not empty.
				PreConfig: func() {
					accFaults(t, sandbox.Faults{})
					before = accSandbox.RequestCounts()[deletes]
				},
				Config:  config,
				Destroy: true,
				Check:   tfresource.ComposeTestCheckFunc(insertEnded, checkPoliciesDestroyed(t)),
			},
		},
	})
}

// A node pool whose create operation GKE holds RUNNING is in the state,
// tainted, when the create times out; the next apply replaces it, and
// destroy deletes it. GKE refuses to delete a pool while its create runs
// (FAILED_PRECONDITION, "Operation ... is currently creating a node
// pool"): the sandbox holds the create for heldCreate, longer than the
// create's timeout, and the replacing apply's delete waits for it to end,
// as its log shows ("waiting for the operation to end"), and deletes it.
func TestAccSubBlockNodePool_createOutlivedByItsOperation(t *testing.T) {
	needSandboxControl(t, "a GKE operation the sandbox holds RUNNING")
	pool := poolName("held", "sub-block-a3")
	config := accConfig(fmt.Sprintf(`
resource "gke_workload_policy" "p" {
  name = %q
}

resource "gke_subblock_node_pool" "np" {
  name                  = %q
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a3"
  timeouts {
    create = "5s"
  }
}
`, accName("held")+"-policy", pool))
	// heldCreate is how long the sandbox shows the create RUNNING: past
	// the create's timeout, and (on most machines) past the start of the
	// replacing apply's delete, which then waits for it. The test passes
	// either way; it logs how many deletes the replace sent.
	const heldCreate = 30_000
	const deletes = "container DELETE nodePools"
	var before int64
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				PreConfig: func() {
					accFaults(t, sandbox.Faults{Container: sandbox.APIFaults{HoldOperations: 1, HoldOperationsMs: heldCreate}})
				},
				Config: config,
				ExpectError: wrapped("Node Pool Create Timed Out", "creating node pool", "nodePools/"+pool+": gave up after",
					"waiting for operation", "(CREATE_NODE_POOL), which was RUNNING: context deadline exceeded",
					`The create did not finish within its timeout (timeouts.create = "5s").`,
					"nodePools/"+pool+" exists (", "and is recorded in the state, tainted:",
					"`terraform destroy` deletes it, and the next apply replaces it (deletes it and creates it again).",
					"To keep it instead, run `terraform untaint` on this resource: while it is still provisioning, the next apply then waits for it"),
			},
			{
				// The fault no longer holds new operations; the create's
				// hold lasts its heldCreate.
				PreConfig: func() {
					accFaults(t, sandbox.Faults{})
					before = accSandbox.RequestCounts()[deletes]
				},
				Config:           config,
				ConfigPlanChecks: replaced("gke_subblock_node_pool.np"),
				Check: func(*terraform.State) error {
					// One delete when the hold had ended before it; more when
					// GKE refused it while the create ran and it waited.
					sent := accSandbox.RequestCounts()[deletes] - before
					t.Logf("the replace sent %d deletes of the node pool (%d refused while its create ran)", sent, sent-1)
					if sent < 1 {
						return fmt.Errorf("the replace sent no delete of the node pool")
					}
					return nil
				},
			},
		},
	})
}

// The timeouts block's value for an operation is what the user wrote, or
// nothing when the block or the value is not set.
func TestTimeoutSet(t *testing.T) {
	t.Parallel()
	attrTypes := map[string]attr.Type{"create": types.StringType, "delete": types.StringType}
	set := timeouts.Value{Object: types.ObjectValueMust(attrTypes, map[string]attr.Value{"create": types.StringValue("90s"), "delete": types.StringNull()})}
	for _, tc := range []struct {
		value    timeouts.Value
		op, want string
	}{
		{set, opCreate, "90s"},
		{set, opDelete, ""},
		{set, opUpdate, ""},
		{timeouts.Value{Object: types.ObjectNull(attrTypes)}, opCreate, ""},
	} {
		if got := timeoutSet(tc.value, tc.op); got != tc.want {
			t.Errorf("timeoutSet(%v, %s) = %q, want %q", tc.value, tc.op, got, tc.want)
		}
	}
}

// What a timed-out create means for its object: the timeout, where the
// object stands, that it is tainted, what destroy and the next apply do,
// and how to keep it; for one object or several.
func TestCreateTimedOutDetail(t *testing.T) {
	t.Parallel()
	one := createTimedOutDetail(`timeouts.create = "5s"`, timedOutCreate{object: "Node pool p", stands: existsAs("PROVISIONING"), keep: "the next apply then waits for it"})
	want := "The create did not finish within its timeout (timeouts.create = \"5s\"). Node pool p exists (PROVISIONING) and is recorded in the state, " +
		"tainted: `terraform destroy` deletes it, and the next apply replaces it (deletes it and creates it again). " +
		"To keep it instead, run `terraform untaint` on this resource: the next apply then waits for it."
	if one != want {
		t.Errorf("one object:\n%s\nwant\n%s", one, want)
	}
	several := createTimedOutDetail("the default create timeout, 30m", timedOutCreate{object: "The Kueue objects of q", stands: "were applied in part", plural: true})
	for _, w := range []string{"(the default create timeout, 30m)", "The Kueue objects of q were applied in part and are recorded in the state, tainted",
		"`terraform destroy` deletes them, and the next apply replaces them (deletes them and creates them again)."} {
		if !strings.Contains(several, w) {
			t.Errorf("several objects: %q lacks %q", several, w)
		}
	}
	if strings.Contains(several, "untaint") {
		t.Errorf("several objects with nothing to keep: %q speaks of untainting", several)
	}
	if existsAs("") != "exists" {
		t.Errorf("existsAs(\"\") = %q, want exists", existsAs(""))
	}
}
