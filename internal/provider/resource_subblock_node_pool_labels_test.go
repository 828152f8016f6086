package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
)

// labelsPoolConfig is the pool of the resource_labels tests, with the
// given settings.
func labelsPoolConfig(settings string) string {
	return poolConfig("acc-np-gcpl-policy", "acc-np-gcpl", `reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a3"
`+settings)
}

// relabelOutOfBand sets the pool's GCP labels through the GKE API, as a
// change outside Terraform would.
func relabelOutOfBand(t *testing.T, labels map[string]string) tfresource.TestCheckFunc {
	return func(s *terraform.State) error {
		a := s.RootModule().Resources["gke_subblock_node_pool.np"].Primary.Attributes
		spec := nodepool.Spec{Project: a["project"], Location: a["location"], Cluster: a["cluster"], Name: a["name"], AutoRepair: a["auto_repair"] == "true"}
		from, to := spec, spec
		from.ResourceLabels, to.ResourceLabels = map[string]string{"out-of": "band"}, labels // differ: the update is sent
		_, err := accEngine(t).NodePools().Update(context.Background(), from, to)
		return err
	}
}

// GCP labels are set at create, changed and removed in place (same pool,
// same nodes, same partition), imported, and a change outside Terraform
// shows in the next plan, which puts the configured labels back.
func TestAccSubBlockNodePool_resourceLabels(t *testing.T) {
	needTarget(t)
	samePartition := statecheck.CompareValue(compare.ValuesSame())
	sameNodes := statecheck.CompareValue(compare.ValuesSame())
	kept := func(checks ...statecheck.StateCheck) []statecheck.StateCheck {
		return append(checks,
			samePartition.AddStateValue("gke_subblock_node_pool.np", tfjsonpath.New("partition_id")),
			sameNodes.AddStateValue("gke_subblock_node_pool.np", tfjsonpath.New("node_names")))
	}
	inPlace := tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
		plancheck.ExpectResourceAction("gke_subblock_node_pool.np", plancheck.ResourceActionUpdate),
	}}
	labels := func(kv map[string]string) statecheck.StateCheck {
		want := map[string]knownvalue.Check{}
		for k, v := range kv {
			want[k] = knownvalue.StringExact(v)
		}
		return poolState("gke_subblock_node_pool.np", "resource_labels", knownvalue.MapExact(want))
	}
	updated := `  node_labels     = { team = "ml" }
  resource_labels = { env = "prod", cost-center = "ml_1" }`
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config:            labelsPoolConfig(`  resource_labels = { env = "test" }`),
				ConfigStateChecks: kept(labels(map[string]string{"env": "test"}), poolState("gke_subblock_node_pool.np", "node_labels", knownvalue.Null())),
			},
			{
				Config:            labelsPoolConfig(updated),
				ConfigPlanChecks:  inPlace,
				ConfigStateChecks: kept(labels(map[string]string{"env": "prod", "cost-center": "ml_1"})),
			},
			{
				ResourceName:            "gke_subblock_node_pool.np",
				ImportState:             true,
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"wait_for_partition", "workload_policy"},
			},
			{
				Config:             labelsPoolConfig(updated),
				Check:              relabelOutOfBand(t, map[string]string{"env": "dev"}),
				ExpectNonEmptyPlan: true,
			},
			{
				Config:            labelsPoolConfig(updated),
				ConfigPlanChecks:  inPlace,
				ConfigStateChecks: kept(labels(map[string]string{"env": "prod", "cost-center": "ml_1"})),
			},
			{
				Config:           labelsPoolConfig(""),
				ConfigPlanChecks: inPlace,
				ConfigStateChecks: kept(
					poolState("gke_subblock_node_pool.np", "resource_labels", knownvalue.Null()),
					poolState("gke_subblock_node_pool.np", "status", knownvalue.StringExact("RUNNING"))),
			},
		},
	})
}

// A label GCP refuses fails at validate time, before any plan.
func TestAccSubBlockNodePool_resourceLabelsInvalid(t *testing.T) {
	needTarget(t)
	for name, tc := range map[string]struct{ labels, summary string }{
		"upper-case key":   {`{ Env = "prod" }`, "Invalid GCP Label Key"},
		"key with a digit": {`{ "1env" = "prod" }`, "Invalid GCP Label Key"},
		"bad value":        {`{ env = "Prod/1" }`, "Invalid GCP Label Value"},
	} {
		t.Run(name, func(t *testing.T) {
			tfresource.Test(t, tfresource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []tfresource.TestStep{{
					Config:      labelsPoolConfig(fmt.Sprintf("  resource_labels = %s", tc.labels)),
					PlanOnly:    true,
					ExpectError: wrapped(tc.summary, "lowercase letters"),
				}},
			})
		})
	}
}
