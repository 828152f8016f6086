package nodepool

import (
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// GCP labels change in place with a nodePools.update of their own, sent
// only when they differ; removing them sends an empty set. The read pool
// reports them.
func TestUpdateNodePoolResourceLabels(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = storedPool("projects/proj/reservations/res/reservationBlocks/block-1/reservationSubBlocks/sb-a")
	kube, _ := enginetest.NewKube()
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, kube)
	updates := func() []string {
		var out []string
		for _, ev := range g.EventLog() {
			if strings.HasPrefix(ev, "updateNodePool") || strings.HasPrefix(ev, "setManagement") {
				out = append(out, ev)
			}
		}
		return out
	}
	from := poolSpec()
	to := from
	to.ResourceLabels = map[string]string{"env": "prod"}
	if from.SameInPlaceSettings(to) {
		t.Fatal("SameInPlaceSettings ignores resource labels")
	}
	pool, err := e.Update(t.Context(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	c := updates()
	if len(c) != 1 || !strings.Contains(c[0], `"resourceLabels":{"labels":{"env":"prod"}}`) || strings.Contains(c[0], `"taints"`) {
		t.Errorf("a resource label change sent %v", c)
	}
	if pool.ResourceLabels["env"] != "prod" || len(pool.ResourceLabels) != 1 {
		t.Errorf("after the update the pool has resource labels %v", pool.ResourceLabels)
	}

	from, to.ResourceLabels = to, nil
	if pool, err = e.Update(t.Context(), from, to); err != nil {
		t.Fatal(err)
	}
	c = updates()[1:]
	if len(c) != 1 || !strings.Contains(c[0], `"resourceLabels":{"labels":{}}`) {
		t.Errorf("removing the resource labels sent %v", c)
	}
	if len(pool.ResourceLabels) != 0 {
		t.Errorf("after the removal the pool has resource labels %v", pool.ResourceLabels)
	}
}
