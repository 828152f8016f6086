package nodepool

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
)

func TestCreateNodePoolSendsThePool(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock()
	g := enginetest.NewGKE()
	kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
	var ids []string
	pool, err := newTestPools(c, g, kube).Create(t.Context(), poolSpec(), func(id string) { ids = append(ids, id) })
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	if !reflect.DeepEqual(ids, []string{testPoolID}) {
		t.Errorf("created callback got %v, want [%s]", ids, testPoolID)
	}
	if len(g.Created) != 1 {
		t.Fatalf("%d create calls, want 1", len(g.Created))
	}
	call := g.Created[0]
	if call.Cluster != "projects/proj/locations/us-central1/clusters/cluster-1" {
		t.Errorf("created in cluster %q", call.Cluster)
	}
	p := call.Pool
	if p.Name != testPoolName || p.InitialNodeCount != 2 {
		t.Errorf("name, initial node count = %q, %d; want %q, 2", p.Name, p.InitialNodeCount, testPoolName)
	}
	if !reflect.DeepEqual(p.Locations, []string{enginetest.Zone}) {
		t.Errorf("locations = %v, want [%s]", p.Locations, enginetest.Zone)
	}
	if p.PlacementPolicy == nil || p.PlacementPolicy.PolicyName != "slice-policy" {
		t.Errorf("placement policy = %+v, want the name slice-policy taken from the self link", p.PlacementPolicy)
	}
	if p.Management == nil || !p.Management.AutoRepair || p.Management.AutoUpgrade {
		t.Errorf("management = %+v, want auto-repair on, auto-upgrade off", p.Management)
	}
	// GKE turns auto-upgrade on unless the request says false.
	if !strings.Contains(call.JSON, `"autoUpgrade":false`) || !strings.Contains(call.JSON, `"autoRepair":true`) {
		t.Errorf("request body %s does not say autoUpgrade false and autoRepair true", call.JSON)
	}
	cfg := p.Config
	if cfg == nil {
		t.Fatal("no node config sent")
	}
	if cfg.MachineType != "tpu7x-standard-4t" || !reflect.DeepEqual(cfg.Labels, map[string]string{"team": "ml"}) {
		t.Errorf("machine type, labels = %q, %v", cfg.MachineType, cfg.Labels)
	}
	wantAffinity := &container.ReservationAffinity{
		ConsumeReservationType: "SPECIFIC_RESERVATION",
		Key:                    "compute.googleapis.com/reservation-name",
		Values:                 []string{"projects/proj/reservations/res/reservationBlocks/block-1/reservationSubBlocks/sb-a"},
	}
	if !reflect.DeepEqual(cfg.ReservationAffinity, wantAffinity) {
		t.Errorf("reservation affinity = %+v, want %+v", cfg.ReservationAffinity, wantAffinity)
	}
	wantTaints := []*container.NodeTaint{
		{Key: "google.com/tpu", Value: "present", Effect: "NO_SCHEDULE"},
		{Key: "dedicated", Value: "slices", Effect: "NO_EXECUTE"},
	}
	if !reflect.DeepEqual(cfg.Taints, wantTaints) {
		t.Errorf("taints = %+v, want %+v", cfg.Taints, wantTaints)
	}

	// What CreateNodePool returns is the pool as read back.
	want := &Pool{
		ID: testPoolID, Project: enginetest.Project, Location: enginetest.Region, Cluster: enginetest.Cluster, Name: testPoolName,
		Status: "RUNNING", MachineType: "tpu7x-standard-4t", Policy: "slice-policy", NodeCount: 2, Zone: enginetest.Zone,
		Labels:          map[string]string{"team": "ml"},
		ReservationPath: "projects/proj/reservations/res/reservationBlocks/block-1/reservationSubBlocks/sb-a",
		Reservation:     enginetest.Reservation, Block: enginetest.Block, SubBlock: "sb-a",
		PartitionID: "part-1", PartitionState: wellknown.PartitionHealthy,
		NodeNames: []string{"slice-a-0", "slice-a-1"}, ReadyNodes: 2,
		Taints:     []Taint{{Key: "google.com/tpu", Value: "present", Effect: "NO_SCHEDULE"}, {Key: "dedicated", Value: "slices", Effect: "NO_EXECUTE"}},
		AutoRepair: true,
	}
	if !reflect.DeepEqual(pool, want) {
		t.Errorf("CreateNodePool returned\n%+v\nwant\n%+v", pool, want)
	}
}

func TestCreateNodePoolBareNamesAndBlockTarget(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock()
	g := enginetest.NewGKE()
	kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
	s := poolSpec()
	s.Policy = "slice-policy"
	s.Target.SubBlock = ""
	s.Labels, s.Taints = nil, nil
	pool, err := newTestPools(c, g, kube).Create(t.Context(), s, func(string) {})
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	sent := g.Created[0].Pool
	if sent.PlacementPolicy.PolicyName != "slice-policy" {
		t.Errorf("placement policy name = %q", sent.PlacementPolicy.PolicyName)
	}
	if got := sent.Config.ReservationAffinity.Values; !reflect.DeepEqual(got, []string{"projects/proj/reservations/res/reservationBlocks/block-1"}) {
		t.Errorf("reservation affinity values = %v, want the block's path", got)
	}
	if len(sent.Config.Taints) != 0 {
		t.Errorf("taints sent = %v, want none", sent.Config.Taints)
	}
	// The nodes are on phys-a: the pool reads back as on sb-a.
	if pool.SubBlock != "sb-a" || pool.Block != enginetest.Block {
		t.Errorf("block-targeted pool reads back on block %q sub-block %q, want %q sb-a", pool.Block, pool.SubBlock, enginetest.Block)
	}
}

func TestCreateNodePoolReportsTheIDBeforeWaiting(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock()
	g := enginetest.NewGKE()
	g.CreateOp = &container.Operation{Name: "op-create", OperationType: "CREATE_NODE_POOL", Status: "PENDING"}
	g.Ops = []*container.Operation{
		{Name: "op-create", OperationType: "CREATE_NODE_POOL", Status: "RUNNING"},
		{Name: "op-create", OperationType: "CREATE_NODE_POOL", Status: "RUNNING"},
		{Name: "op-create", OperationType: "CREATE_NODE_POOL", Status: "DONE"},
	}
	kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
	_, err := newTestPools(c, g, kube).Create(t.Context(), poolSpec(), func(id string) { g.Record("created " + id) })
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	want := []string{"create", "created " + testPoolID, "getOperation", "getOperation", "getOperation"}
	if got := g.EventLog(); !reflect.DeepEqual(got, want) {
		t.Errorf("calls = %v, want %v", got, want)
	}
	for _, name := range g.OperationNames() {
		if name != testOpPath {
			t.Errorf("polled operation %q, want %q", name, testOpPath)
		}
	}
}

func TestCreateNodePoolFailures(t *testing.T) {
	t.Parallel()
	running := &container.Operation{Name: "op-create", OperationType: "CREATE_NODE_POOL", Status: "RUNNING"}
	for _, tc := range []struct {
		name        string
		setup       func(*enginetest.Compute, *enginetest.GKE)
		spec        func(*Spec)
		timeout     time.Duration
		wantCreated bool
		wantErr     []string
		wantIs      error
	}{
		{
			name:    "target in use",
			spec:    func(s *Spec) { s.Target.SubBlock = "sb-b" },
			wantErr: []string{`reservation sub-block "sb-b" of block "block-1" is already in use`},
		},
		{
			name: "GKE refuses",
			setup: func(_ *enginetest.Compute, g *enginetest.GKE) {
				g.CreateErr = &googleapi.Error{Code: http.StatusBadRequest, Message: "Placement policy slice-policy not found"}
			},
			wantErr: []string{"creating node pool " + testPoolID + ": Placement policy slice-policy not found"},
		},
		{
			name: "operation done with an error",
			setup: func(_ *enginetest.Compute, g *enginetest.GKE) {
				g.CreateOp = &container.Operation{Name: "op-create", Status: "DONE", Error: &container.Status{Code: 8, Message: "Insufficient reservation capacity in sub-block sb-a"}}
			},
			wantCreated: true,
			wantErr:     []string{"creating node pool " + testPoolID + ": operation op-create failed: Insufficient reservation capacity in sub-block sb-a"},
		},
		{
			name: "operation ends with an error after polls",
			setup: func(_ *enginetest.Compute, g *enginetest.GKE) {
				g.CreateOp = running
				g.Ops = []*container.Operation{running, {Name: "op-create", Status: "DONE", Error: &container.Status{Message: "node pool has 0 of 2 nodes"}}}
			},
			wantCreated: true,
			wantErr:     []string{"operation op-create failed: node pool has 0 of 2 nodes"},
		},
		{
			name: "operation unreadable",
			setup: func(_ *enginetest.Compute, g *enginetest.GKE) {
				g.CreateOp = running
				g.OpErr = &googleapi.Error{Code: http.StatusForbidden, Message: "container.operations.get denied"}
			},
			wantCreated: true,
			wantErr:     []string{"creating node pool " + testPoolID + ": reading operation op-create: container.operations.get denied"},
		},
		{
			name: "operation never ends",
			setup: func(_ *enginetest.Compute, g *enginetest.GKE) {
				g.CreateOp = running
				g.Ops = []*container.Operation{running}
			},
			timeout:     100 * time.Millisecond,
			wantCreated: true,
			wantErr:     []string{"creating node pool " + testPoolID + ": gave up after", "waiting for operation op-create (CREATE_NODE_POOL), which was RUNNING"},
			wantIs:      context.DeadlineExceeded,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := enginetest.NewCompute().WithFixtureBlock()
			g := enginetest.NewGKE()
			if tc.setup != nil {
				tc.setup(c, g)
			}
			s := poolSpec()
			if tc.spec != nil {
				tc.spec(&s)
			}
			ctx := t.Context()
			if tc.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
			created := false
			pool, err := newTestPools(c, g, kube).Create(ctx, s, func(string) { created = true })
			testsupport.WantContains(t, err, tc.wantErr...)
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("err = %v, want one wrapping %v", err, tc.wantIs)
			}
			if pool != nil {
				t.Errorf("CreateNodePool returned a pool with its error: %+v", pool)
			}
			if created != tc.wantCreated {
				t.Errorf("created callback called = %v, want %v", created, tc.wantCreated)
			}
			if !tc.wantCreated && len(g.Created) > 0 && g.CreateErr == nil {
				t.Errorf("GKE was asked to create the pool: %+v", g.Created)
			}
		})
	}
}
