package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/clients"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

// The list blocks of the three list resources, each with include_resource
// (and the config of sliceConfig, if any, for gke_tpu_slice). The
// provider block is the one of the step before's configuration.
func listBlocks(sliceConfig string) string {
	return `
list "gke_workload_policy" "all" {
  provider         = gke
  include_resource = true
}

list "gke_subblock_node_pool" "all" {
  provider         = gke
  include_resource = true
  config {
    cluster = "` + accClientsConfig().Cluster + `"
  }
}

list "gke_tpu_slice" "all" {
  provider         = gke
  include_resource = true
` + sliceConfig + `}
`
}

// terraform query finds the policy, the pools and the slice a
// configuration made, each with its identity and its resource object (the
// slice's partitions as listed, the pool's sub-block and policy).
func TestAccListResources(t *testing.T) {
	skipUnlessTerraform(t, "1.14", "list resources")
	needTarget(t)
	pools := slicePools("lst", "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2")
	c := accClientsConfig()
	policy, pool, slice := accName("lst")+"-policy", poolName("lst", "sub-block-a1"), accName("lst-slice")
	policyID := map[string]knownvalue.Check{
		"project": knownvalue.StringExact(c.Project), "region": knownvalue.StringExact(location.RegionOf(c.Location)), "name": knownvalue.StringExact(policy),
	}
	poolID, sliceID := clusterIdentity(c, knownvalue.StringExact(pool)), clusterIdentity(c, knownvalue.StringExact(slice))
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkAllDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools + subSlice("s", "lst-slice", "4x4x8", "sub-block-a1", "sub-block-a2"))},
			{
				Query:  true,
				Config: listBlocks(""),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectIdentity("gke_workload_policy.all", policyID),
					querycheck.ExpectIdentity("gke_subblock_node_pool.all", poolID),
					querycheck.ExpectIdentity("gke_tpu_slice.all", sliceID),
					querycheck.ExpectResourceDisplayName("gke_workload_policy.all", queryfilter.ByResourceIdentity(policyID),
						knownvalue.StringExact(fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", c.Project, location.RegionOf(c.Location), policy))),
					querycheck.ExpectResourceDisplayName("gke_subblock_node_pool.all",
						queryfilter.ByResourceIdentity(poolID),
						knownvalue.StringExact(accPoolID(pool))),
					querycheck.ExpectResourceKnownValues("gke_subblock_node_pool.all",
						queryfilter.ByResourceIdentity(poolID),
						[]querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("reservation_sub_block"), KnownValue: knownvalue.StringExact(inv("sub-block-a1"))},
							{Path: tfjsonpath.New("workload_policy"), KnownValue: knownvalue.StringExact(policy)},
							{Path: tfjsonpath.New("wait_for_partition"), KnownValue: knownvalue.StringExact("LABELLED")},
						}),
					querycheck.ExpectResourceKnownValues("gke_tpu_slice.all",
						queryfilter.ByResourceIdentity(sliceID),
						[]querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("topology"), KnownValue: knownvalue.StringExact("4x4x8")},
							{Path: tfjsonpath.New("partition_ids"), KnownValue: knownvalue.ListSizeExact(2)},
							{Path: tfjsonpath.New("device_access"), KnownValue: knownvalue.StringExact("device_plugin")},
							{Path: tfjsonpath.New("state"), KnownValue: knownvalue.StringExact("ACTIVE")},
						}),
				},
			},
		},
	})
}

// A Slice that Kueue's slice admission check made is left out of the
// list (it cannot be imported), unless include_kueue_managed, and then its
// display name says it is not importable and names its workload.
func TestAccListKueueMadeSlices(t *testing.T) {
	skipUnlessTerraform(t, "1.14", "list resources")
	needTarget(t)
	ns := kueueNamespace(t, "lkq")
	pools := slicePools("lkq", "tpu7x-reservation", "block-a", "sub-block-a3")
	var wl kueueWorkload
	kueueSlice := func() map[string]knownvalue.Check {
		return clusterIdentity(accClientsConfig(), knownvalue.StringFunc(func(v string) error {
			if len(wl.Slices) == 0 || v != wl.Slices[0] {
				return fmt.Errorf("Slice %q is not Kueue's %v", v, wl.Slices)
			}
			return nil
		}))
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkAllDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools + kueueConfig([]string{"sub-block-a3"}, ns))},
			{
				PreConfig: func() {
					submitKueueJob(t, kueueJob(ns, "train", kueueName(), "4x4x4", 10*time.Minute))
					wl = awaitKueueWorkload(t, ns, "train", admittedWith(1))
				},
				Query:  true,
				Config: listBlocks(""),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectNoIdentity("gke_tpu_slice.all", kueueSlice()),
				},
			},
			{
				Query:  true,
				Config: listBlocks("  config {\n    include_kueue_managed = true\n  }\n"),
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectIdentity("gke_tpu_slice.all", kueueSlice()),
					querycheck.ExpectResourceDisplayName("gke_tpu_slice.all", queryfilter.ByResourceIdentity(kueueSlice()),
						knownvalue.StringRegexp(regexp.MustCompile(`made by Kueue for workload `+ns+`/.*: not importable`))),
				},
			},
			{
				// The Job ends: the check deletes its Slice before the
				// destroy of the pool under it.
				PreConfig: func() {
					kube, _, _ := kubeClients(t)
					bg := metav1.DeletePropagationBackground
					if err := kube.BatchV1().Jobs(ns).Delete(context.Background(), "train", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
						t.Fatal(err)
					}
					awaitSliceGone(t, wl.Slices[0])
				},
				Config: accConfig(pools + kueueConfig([]string{"sub-block-a3"}, ns)),
			},
		},
	})
}

// clusterIdentity is the identity of an object of the target's cluster
// (a pool, a Slice) whose name name checks.
func clusterIdentity(c clients.Config, name knownvalue.Check) map[string]knownvalue.Check {
	return map[string]knownvalue.Check{
		"project": knownvalue.StringExact(c.Project), "location": knownvalue.StringExact(c.Location),
		"cluster": knownvalue.StringExact(c.Cluster), "name": name,
	}
}
