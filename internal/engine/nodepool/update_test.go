package nodepool

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
)

// Labels, taints and management change in place, each with the call GKE
// has for it; cleared labels and taints are sent as empty, not left out.
func TestUpdateNodePool(t *testing.T) {
	t.Parallel()
	subBlockPath := "projects/proj/reservations/res/reservationBlocks/block-1/reservationSubBlocks/sb-a"
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = storedPool(subBlockPath)
	kube, _ := enginetest.NewKube()
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, kube)
	from := poolSpec()
	calls := func() []string {
		var out []string
		for _, ev := range g.EventLog() {
			if strings.HasPrefix(ev, "updateNodePool") || strings.HasPrefix(ev, "setManagement") {
				out = append(out, ev)
			}
		}
		return out
	}

	// Nothing to change: no call.
	if _, err := e.Update(t.Context(), from, from); err != nil {
		t.Fatal(err)
	}
	if c := calls(); len(c) != 0 {
		t.Fatalf("an unchanged pool made calls: %v", c)
	}

	to := from
	to.Labels, to.Taints = nil, nil
	pool, err := e.Update(t.Context(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	c := calls()
	if len(c) != 1 || !strings.Contains(c[0], `"labels":{"labels":{}}`) || !strings.Contains(c[0], `"taints":{"taints":[]}`) {
		t.Errorf("clearing labels and taints sent %v", c)
	}
	if len(pool.Labels) != 0 || len(pool.Taints) != 0 {
		t.Errorf("after the update the pool has labels %v and taints %v", pool.Labels, pool.Taints)
	}

	from = to
	to.Labels = map[string]string{"team": "research"}
	to.AutoUpgrade = true
	pool, err = e.Update(t.Context(), from, to)
	if err != nil {
		t.Fatal(err)
	}
	c = calls()[1:]
	if len(c) != 2 || !strings.Contains(c[0], `"labels":{"labels":{"team":"research"}}`) ||
		!strings.Contains(c[1], `"management":{"autoRepair":true,"autoUpgrade":true}`) {
		t.Errorf("label and management changes sent %v", c)
	}
	if pool.Labels["team"] != "research" || !pool.AutoUpgrade || pool.ID != testPoolID {
		t.Errorf("after the update: %+v", pool)
	}
}

func TestDeleteNodePool(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		id      string
		setup   func(*enginetest.GKE)
		wantErr []string
		wantIs  error
		timeout time.Duration
	}{
		{name: "deleted", id: testPoolID, setup: func(g *enginetest.GKE) {
			g.DeleteOp = &container.Operation{Name: "op-delete", Status: "RUNNING"}
			g.Ops = []*container.Operation{{Name: "op-delete", Status: "RUNNING"}, {Name: "op-delete", Status: "DONE"}}
		}},
		{name: "already gone", id: testPoolID, setup: func(g *enginetest.GKE) { delete(g.Pools, testPoolID) }},
		{name: "bad ID", id: "clusters/c/nodePools/np", wantErr: []string{`"clusters/c/nodePools/np" is not a GKE node pool ID`}},
		{name: "refused", id: testPoolID, setup: func(g *enginetest.GKE) {
			g.DeleteErr = &googleapi.Error{Code: http.StatusBadRequest, Message: "Cluster is running incompatible operation"}
		}, wantErr: []string{"deleting node pool " + testPoolID + ": Cluster is running incompatible operation"}},
		{name: "operation fails", id: testPoolID, setup: func(g *enginetest.GKE) {
			g.DeleteOp = &container.Operation{Name: "op-delete", Status: "DONE", Error: &container.Status{Code: 13, Message: "Internal error deleting instances"}}
		}, wantErr: []string{"deleting node pool " + testPoolID + ": operation op-delete failed: Internal error deleting instances"}},
		{name: "operation never ends", id: testPoolID, timeout: 50 * time.Millisecond, setup: func(g *enginetest.GKE) {
			g.DeleteOp = &container.Operation{Name: "op-delete", OperationType: "DELETE_NODE_POOL", Status: "RUNNING"}
			g.Ops = []*container.Operation{g.DeleteOp}
		}, wantErr: []string{"deleting node pool " + testPoolID + ": gave up after", "waiting for operation op-delete (DELETE_NODE_POOL)"}, wantIs: context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := enginetest.NewGKE()
			g.Pools[testPoolID] = storedPool("projects/proj/reservations/res/reservationBlocks/block-1")
			if tc.setup != nil {
				tc.setup(g)
			}
			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			err := newTestPools(enginetest.NewCompute(), g, nil).Delete(ctx, tc.id)
			if len(tc.wantErr) == 0 {
				if err != nil {
					t.Fatalf("DeleteNodePool: %v", err)
				}
				if len(g.DeletedNames) != 1 || g.DeletedNames[0] != testPoolID {
					t.Errorf("deleted %v, want [%s]", g.DeletedNames, testPoolID)
				}
				if _, ok := g.Pools[testPoolID]; ok {
					t.Error("the pool is still there")
				}
				for _, name := range g.OperationNames() {
					if name != "projects/proj/locations/us-central1/operations/op-delete" {
						t.Errorf("polled operation %q", name)
					}
				}
				return
			}
			testsupport.WantContains(t, err, tc.wantErr...)
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("err = %v, want one wrapping %v", err, tc.wantIs)
			}
		})
	}
}
