package nodepool

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
)

// A pool of the spec's name that exists and matches the spec (as an apply
// killed after GKE accepted the create leaves it) is adopted, whether its
// target shows in use or GKE answers the create 409: no second create, the
// ID reported before the wait, and Adopted says why.
func TestCreateNodePoolAdoptsAMatchingPool(t *testing.T) {
	t.Parallel()
	for name, target := range map[string]string{"holding its sub-block": "sb-b", "on a block target (409)": ""} {
		spec := poolSpec()
		spec.Target.SubBlock = target
		c := enginetest.NewCompute().WithFixtureBlock()
		g := enginetest.NewGKE()
		g.Pools[testPoolID] = storedPool(spec.Target.Path())
		kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
		if target == "" {
			g.CreateErr = &googleapi.Error{Code: http.StatusConflict, Message: "Already exists"}
		}
		reported := ""
		pool, err := newTestPools(c, g, kube).Create(t.Context(), spec, func(id string) { reported = id })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(pool.Adopted, "matches the configuration") || reported != testPoolID || len(g.Created) != 0 {
			t.Errorf("%s: Adopted %q, reported %q, %d creates; want adopted, reported, no create", name, pool.Adopted, reported, len(g.Created))
		}
	}
}

// A pool of the spec's name that differs from the spec is not adopted: the
// create fails with an kernel.ExistsError that says what differs and carries the
// import ID, and nothing is reported or created.
func TestCreateNodePoolRefusesADifferentPool(t *testing.T) {
	t.Parallel()
	spec := poolSpec()
	spec.Target.SubBlock = "sb-b"
	g := enginetest.NewGKE()
	other := storedPool(spec.Target.Path())
	other.Config.MachineType = "n2-standard-8"
	g.Pools[testPoolID] = other
	kube, _ := enginetest.NewKube()
	_, err := newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, kube).Create(t.Context(), spec, func(string) {
		t.Error("a pool that is not the one declared was reported as created")
	})
	var exists *kernel.ExistsError
	if !errors.As(err, &exists) || exists.ImportID != testPoolID {
		t.Fatalf("CreateNodePool: %v, want an kernel.ExistsError with import ID %s", err, testPoolID)
	}
	testsupport.WantContains(t, err, `its machine type is "n2-standard-8" (configuration: "tpu7x-standard-4t")`)
	if len(g.Created) != 0 {
		t.Errorf("%d creates, want none", len(g.Created))
	}
}

// A sub-block in use is said to be held by the pool of the cluster that
// targets it, from GKE's list, while that pool is PROVISIONING and has no
// nodes yet.
func TestCreateNodePoolNamesAProvisioningHolder(t *testing.T) {
	t.Parallel()
	spec := poolSpec()
	spec.Target.SubBlock = "sb-b"
	g := enginetest.NewGKE()
	squatter := storedPool(spec.Target.Path())
	squatter.Name, squatter.Status = "squatter", "PROVISIONING"
	g.Pools[spec.ClusterName()+"/nodePools/squatter"] = squatter
	g.Pools[spec.ClusterName()+"/nodePools/elsewhere"] = &container.NodePool{Name: "elsewhere", Status: "RUNNING"}
	kube, _ := enginetest.NewKube()
	_, err := newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, kube).Create(t.Context(), spec, func(string) {
		t.Error("a pool was reported as created on a sub-block in use")
	})
	testsupport.WantContains(t, err, `reservation sub-block "sb-b" of block "block-1" is already in use by node pool squatter (PROVISIONING)`)
}

// A pool whose node labels or resource labels differ from the spec is not
// adopted (it would be recorded with GKE's labels, an inconsistent result):
// the differences name both maps; labels that agree (nil and empty alike)
// leave none.
func TestPoolDifferencesCompareLabels(t *testing.T) {
	t.Parallel()
	spec := poolSpec()
	spec.Target.SubBlock = "sb-b"
	spec.ResourceLabels = map[string]string{"cost-center": "ml"}
	p := storedPool(spec.Target.Path())
	p.Config.ResourceLabels = map[string]string{"cost-center": "ml"}
	if d := poolDifferences(p, spec); len(d) != 0 {
		t.Errorf("the same pool differs: %v", d)
	}
	p.Config.Labels = map[string]string{"team": "infra", "tier": "a"}
	p.Config.ResourceLabels = nil
	got := strings.Join(poolDifferences(p, spec), "; ")
	for _, want := range []string{"its node labels are {team=infra, tier=a} (configuration: {team=ml})",
		"its resource labels are {} (configuration: {cost-center=ml})"} {
		if !strings.Contains(got, want) {
			t.Errorf("differences %q lack %q", got, want)
		}
	}
	spec.Labels, spec.ResourceLabels, p.Config.Labels = nil, map[string]string{}, map[string]string{}
	if d := poolDifferences(p, spec); len(d) != 0 {
		t.Errorf("empty and absent labels differ: %v", d)
	}
}
