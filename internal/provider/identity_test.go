package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

// Every resource records its identity on create, and imports by it (an
// import block with identity): the imported state is the applied one and
// the plan after it is empty. An identity that names another cluster than
// the provider's is refused, as is one of Kueue objects that do not exist.
func TestAccImportByIdentity(t *testing.T) {
	skipUnlessIdentity(t, "resource identity")
	needTarget(t)
	ns := createNamespace(t, "idt")
	pools := slicePools("idt", "tpu7x-reservation", "block-a", "sub-block-a4")
	c := accClientsConfig()
	policy, pool, slice := accName("idt")+"-policy", poolName("idt", "sub-block-a4"), accName("idt-slice")
	config := accConfig(pools + kueueConfig([]string{"sub-block-a4"}, ns) + fmt.Sprintf(`
resource "gke_tpu_slice" "s" {
  name          = %q
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a4.partition_id]
}
`, slice))
	cluster := map[string]knownvalue.Check{
		"project": knownvalue.StringExact(c.Project), "location": knownvalue.StringExact(c.Location), "cluster": knownvalue.StringExact(c.Cluster),
	}
	with := func(name string) map[string]knownvalue.Check {
		m := map[string]knownvalue.Check{"name": knownvalue.StringExact(name)}
		for k, v := range cluster {
			m[k] = v
		}
		return m
	}
	importStep := func(address string) tfresource.TestStep {
		return tfresource.TestStep{
			Config: config, ResourceName: address, ImportState: true,
			ImportStateKind: tfresource.ImportBlockWithResourceIdentity,
		}
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkAllDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectIdentity("gke_workload_policy.p", map[string]knownvalue.Check{
						"project": knownvalue.StringExact(c.Project), "region": knownvalue.StringExact(location.RegionOf(c.Location)), "name": knownvalue.StringExact(policy),
					}),
					statecheck.ExpectIdentity("gke_subblock_node_pool.sub-block-a4", with(pool)),
					statecheck.ExpectIdentity("gke_tpu_slice.s", with(slice)),
					statecheck.ExpectIdentity("gke_kueue_slicing.k", with(kueueName())),
				},
			},
			importStep("gke_workload_policy.p"),
			importStep("gke_subblock_node_pool.sub-block-a4"),
			importStep("gke_tpu_slice.s"),
			importStep("gke_kueue_slicing.k"),
			{
				Config: config + fmt.Sprintf(`
import {
  to       = gke_tpu_slice.elsewhere
  identity = { name = %q, cluster = "another-cluster" }
}

resource "gke_tpu_slice" "elsewhere" {
  name          = %q
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a4.partition_id]
}
`, slice, slice),
				ExpectError: wrapped("Invalid Import Identity", `the identity sets cluster = "another-cluster", but the provider works on cluster "`+c.Cluster+`"`),
			},
			{
				Config: config + `
import {
  to       = gke_kueue_slicing.none
  identity = { name = "acc-none" }
}

resource "gke_kueue_slicing" "none" {
  name       = "acc-none"
  node_pools = [gke_subblock_node_pool.sub-block-a4.name]
  namespaces = ["` + ns + `"]
}
`,
				ExpectError: wrapped("Cannot Import Kueue Objects", `ClusterQueue acc-none does not exist`),
			},
		},
	})
}

// An identity fills what it leaves out from the provider's configuration,
// and one that names another cluster, or a cluster the provider is not
// configured with, is refused saying what to do.
func TestIdentityDefaults(t *testing.T) {
	cfg := clients.Config{Project: "p", Location: "us-central1-a", Cluster: "c"}
	if id, err := policyIDFromIdentity(policyIdentityModel{Name: types.StringValue("wp")}, cfg); err != nil || id != "projects/p/regions/us-central1/resourcePolicies/wp" {
		t.Errorf("policy identity with defaults: %q, %v", id, err)
	}
	if id, err := policyIDFromIdentity(policyIdentityModel{Project: types.StringValue("q"), Region: types.StringValue("europe-west4"), Name: types.StringValue("wp")}, clients.Config{}); err != nil || id != "projects/q/regions/europe-west4/resourcePolicies/wp" {
		t.Errorf("policy identity in full: %q, %v", id, err)
	}
	if _, err := policyIDFromIdentity(policyIdentityModel{Name: types.StringValue("wp")}, clients.Config{}); err == nil {
		t.Error("a policy identity with no project and no provider project was accepted")
	}
	if id, err := poolIDFromIdentity(poolIdentityModel{Name: types.StringValue("np"), Cluster: types.StringValue("d")}, cfg); err != nil || id != "projects/p/locations/us-central1-a/clusters/d/nodePools/np" {
		t.Errorf("pool identity with defaults: %q, %v", id, err)
	}
	if _, err := poolIDFromIdentity(poolIdentityModel{Name: types.StringValue("np")}, clients.Config{Project: "p"}); err == nil {
		t.Error("a pool identity with no location and cluster was accepted")
	}
	for _, tc := range []struct {
		id   clusterObjectIdentityModel
		cfg  clients.Config
		want string
	}{
		{clusterObjectIdentityModel{Name: types.StringValue("s")}, cfg, ""},
		{clusterObjectIdentityModel{Name: types.StringValue("s"), Cluster: types.StringValue("c"), Project: types.StringValue("p")}, cfg, ""},
		{clusterObjectIdentityModel{Name: types.StringValue("s"), Cluster: types.StringValue("other")}, cfg, `the identity sets cluster = "other", but the provider works on cluster "c": import it with a provider configured for that cluster (a provider alias), or fix the identity`},
		{clusterObjectIdentityModel{Name: types.StringValue("s"), Location: types.StringValue("us-east5")}, clients.Config{}, `the identity sets location = "us-east5", but the provider is not configured with a location: remove it from the identity, or set the provider's location`},
	} {
		got := ""
		if err := checkClusterIdentity(tc.id, tc.cfg); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("checkClusterIdentity(%v): %q, want %q", tc.id, got, tc.want)
		}
	}
}
