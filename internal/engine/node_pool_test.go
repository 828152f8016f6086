package engine

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

const (
	testPoolName = "slice-a"
	testPoolID   = "projects/proj/locations/us-central1/clusters/cluster-1/nodePools/slice-a"
	testOpPath   = "projects/proj/locations/us-central1/operations/op-create"
)

// poolSpec is a pool of testPoolName on free sub-block sb-a.
func poolSpec() NodePoolSpec {
	return NodePoolSpec{
		Project: enginetest.Project, Location: enginetest.Region, Cluster: enginetest.Cluster, Name: testPoolName,
		Policy:      "https://www.googleapis.com/compute/v1/projects/proj/regions/us-central1/resourcePolicies/slice-policy",
		Target:      Target{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: enginetest.Reservation, Block: enginetest.Block, SubBlock: "sb-a"},
		MachineType: "tpu7x-standard-4t",
		NodeCount:   2,
		Labels:      map[string]string{"team": "ml"},
		Taints:      []Taint{{Key: "google.com/tpu", Value: "present", Effect: "NO_SCHEDULE"}, {Key: "dedicated", Value: "slices", Effect: "NO_EXECUTE"}},
		AutoRepair:  true,
		AutoUpgrade: false,
		WaitFor:     WaitLabelled,
	}
}

// readyPoolNodes are the pool's two nodes, on sb-a's physical sub-block,
// Ready and in a partition in state.
func readyPoolNodes(state string) []*corev1.Node {
	return []*corev1.Node{
		enginetest.Node("slice-a-1", testPoolName, enginetest.Ready, enginetest.OnSubBlock("phys-a"), enginetest.Partition("part-1", state)),
		enginetest.Node("slice-a-0", testPoolName, enginetest.Ready, enginetest.OnSubBlock("phys-a"), enginetest.Partition("part-1", state)),
	}
}

func TestParseNodePoolID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id                               string
		project, location, cluster, name string
		ok                               bool
	}{
		{"projects/p/locations/us-central1/clusters/c/nodePools/np", "p", "us-central1", "c", "np", true},
		{"projects/p/locations/us-central1-a/clusters/c-1/nodePools/np-2", "p", "us-central1-a", "c-1", "np-2", true},
		{"https://container.googleapis.com/v1/projects/p/locations/l/clusters/c/nodePools/np", "p", "l", "c", "np", true},
		{"projects/p/zones/us-central1-a/clusters/c/nodePools/np", "", "", "", "", false},
		{"projects/p/locations/l/clusters/c/nodePools/", "", "", "", "", false},
		{"projects/p/locations/l/clusters/c/nodePools/np/extra", "", "", "", "", false},
		{"/projects/p/locations/l/clusters/c/nodePools/np", "", "", "", "", false},
		{"np", "", "", "", "", false},
		{"", "", "", "", "", false},
	} {
		project, location, cluster, name, err := parseNodePoolID(tc.id)
		if !tc.ok {
			if err == nil {
				t.Errorf("parseNodePoolID(%q) = %q, %q, %q, %q; want an error", tc.id, project, location, cluster, name)
				continue
			}
			testsupport.WantContains(t, err, "is not a GKE node pool ID: use projects/P/locations/L/clusters/C/nodePools/N")
			continue
		}
		if err != nil {
			t.Errorf("parseNodePoolID(%q): %v", tc.id, err)
			continue
		}
		if project != tc.project || location != tc.location || cluster != tc.cluster || name != tc.name {
			t.Errorf("parseNodePoolID(%q) = %q, %q, %q, %q; want %q, %q, %q, %q", tc.id, project, location, cluster, name, tc.project, tc.location, tc.cluster, tc.name)
		}
	}
}

func TestNodePoolSpecNames(t *testing.T) {
	t.Parallel()
	s := poolSpec()
	if got, want := s.ClusterName(), "projects/proj/locations/us-central1/clusters/cluster-1"; got != want {
		t.Errorf("ClusterName() = %q, want %q", got, want)
	}
	if got := s.ID(); got != testPoolID {
		t.Errorf("ID() = %q, want %q", got, testPoolID)
	}
}

func TestCreateNodePoolSendsThePool(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock()
	g := enginetest.NewGKE()
	kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
	var ids []string
	pool, err := newTestEngine(c, g, kube).CreateNodePool(t.Context(), poolSpec(), func(id string) { ids = append(ids, id) })
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
	want := &NodePool{
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
	pool, err := newTestEngine(c, g, kube).CreateNodePool(t.Context(), s, func(string) {})
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
	_, err := newTestEngine(c, g, kube).CreateNodePool(t.Context(), poolSpec(), func(id string) { g.Record("created " + id) })
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
		spec        func(*NodePoolSpec)
		timeout     time.Duration
		wantCreated bool
		wantErr     []string
		wantIs      error
	}{
		{
			name:    "target in use",
			spec:    func(s *NodePoolSpec) { s.Target.SubBlock = "sb-b" },
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
			pool, err := newTestEngine(c, g, kube).CreateNodePool(ctx, s, func(string) { created = true })
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

func TestCreateNodePoolWaitsForThePartition(t *testing.T) {
	t.Parallel()
	labelledNotReady := func(state string) []*corev1.Node {
		return []*corev1.Node{
			enginetest.Node("slice-a-0", testPoolName, enginetest.Partition("part-1", state)),
			enginetest.Node("slice-a-1", testPoolName, enginetest.Partition("part-1", state)),
		}
	}
	oneUnlabelled := []*corev1.Node{
		enginetest.Node("slice-a-0", testPoolName, enginetest.Ready, enginetest.Partition("part-1", wellknown.PartitionHealthy)),
		enginetest.Node("slice-a-1", testPoolName, enginetest.Ready),
	}
	for _, tc := range []struct {
		name    string
		nodes   []*corev1.Node
		waitFor string
		// wantErr is the progress the timeout error must name; nil when
		// the wait must succeed.
		wantErr []string
	}{
		{"labelled, incomplete", readyPoolNodes(wellknown.PartitionIncomplete), WaitLabelled, nil},
		{"labelled, unhealthy", readyPoolNodes(wellknown.PartitionUnhealthy), WaitLabelled, nil},
		{"healthy for healthy", readyPoolNodes(wellknown.PartitionHealthy), WaitHealthy, nil},
		{"healthy for usable", readyPoolNodes(wellknown.PartitionHealthy), WaitUsable, nil},
		{"degraded for usable", readyPoolNodes(wellknown.PartitionDegraded), WaitUsable, nil},
		{"degraded for healthy", readyPoolNodes(wellknown.PartitionDegraded), WaitHealthy,
			[]string{`2 nodes, 2 Ready, partition state "DEGRADED"; waiting for HEALTHY`}},
		{"unhealthy for usable", readyPoolNodes(wellknown.PartitionUnhealthy), WaitUsable,
			[]string{`partition state "UNHEALTHY"; waiting for HEALTHY_OR_DEGRADED`}},
		{"unset for usable", readyPoolNodes(wellknown.PartitionUnset), WaitUsable, []string{`partition state "UNSET"`}},
		{"no nodes", nil, WaitLabelled, []string{`0 nodes, 0 Ready, partition state ""; waiting for LABELLED`}},
		{"not Ready", labelledNotReady(wellknown.PartitionHealthy), WaitHealthy, []string{`2 nodes, 0 Ready, partition state "HEALTHY"`}},
		{"one node unlabelled", oneUnlabelled, WaitLabelled, []string{`2 nodes, 2 Ready, partition state "HEALTHY"; waiting for LABELLED`}},
		{"other pools' nodes do not count", []*corev1.Node{
			enginetest.Node("other-0", "other-pool", enginetest.Ready, enginetest.Partition("part-9", wellknown.PartitionHealthy)),
		}, WaitLabelled, []string{"0 nodes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			kube, _ := enginetest.NewKube(tc.nodes...)
			s := poolSpec()
			s.WaitFor = tc.waitFor
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			pool, err := newTestEngine(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), kube).CreateNodePool(ctx, s, func(string) {})
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("CreateNodePool waiting for %s: %v", tc.waitFor, err)
				}
				if pool.PartitionID != "part-1" {
					t.Errorf("partition ID = %q, want part-1", pool.PartitionID)
				}
				return
			}
			testsupport.WantContains(t, err, append([]string{"node pool " + testPoolID + " was created, but after", "its nodes were not ready ("}, tc.wantErr...)...)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
			}
		})
	}
}

// TestCreateNodePoolFollowsTheNodes changes a one-node pool's node while
// the engine watches: it must notice every change without polling, and
// not stop before the state it waits for.
func TestCreateNodePoolFollowsTheNodes(t *testing.T) {
	t.Parallel()
	kube, watching := enginetest.NewKube(enginetest.Node("slice-a-0", testPoolName, enginetest.OnSubBlock("phys-a")))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	steps := make(chan string, 8)
	go func() {
		defer close(steps)
		select {
		case <-watching:
		case <-ctx.Done():
			return
		}
		update := func(step string, opt enginetest.NodeOpt) {
			n, err := kube.CoreV1().Nodes().Get(ctx, "slice-a-0", metav1.GetOptions{})
			if err == nil {
				opt(n)
				_, err = kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			}
			if err != nil {
				step += " failed: " + err.Error()
			}
			steps <- step
		}
		update("ready", enginetest.Ready)
		update("incomplete", enginetest.Partition("part-7", wellknown.PartitionIncomplete))
		update("unhealthy", enginetest.Partition("part-7", wellknown.PartitionUnhealthy))
		update("degraded", enginetest.Partition("part-7", wellknown.PartitionDegraded))
		update("healthy", enginetest.Partition("part-7", wellknown.PartitionHealthy))
	}()
	s := poolSpec()
	s.NodeCount = 1
	s.WaitFor = WaitHealthy
	pool, err := newTestEngine(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), kube).CreateNodePool(ctx, s, func(string) {})
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	var got []string
	for step := range steps {
		got = append(got, step)
	}
	if want := []string{"ready", "incomplete", "unhealthy", "degraded", "healthy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("node changes = %v, want %v", got, want)
	}
	if pool.PartitionID != "part-7" || pool.PartitionState != wellknown.PartitionHealthy || pool.ReadyNodes != 1 {
		t.Errorf("pool partition = %q %q with %d Ready nodes, want part-7 HEALTHY with 1 (did the wait end early?)", pool.PartitionID, pool.PartitionState, pool.ReadyNodes)
	}
}

func TestCreateNodePoolWithoutKubernetes(t *testing.T) {
	t.Parallel()
	e := newTestEngine(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), nil,
		inventoryFails(errors.New("no route to the cluster endpoint")))
	created := ""
	_, err := e.CreateNodePool(t.Context(), poolSpec(), func(id string) { created = id })
	testsupport.WantContains(t, err, "node pool "+testPoolID+" was created, but no route to the cluster endpoint")
	if created != testPoolID {
		t.Errorf("created callback got %q, want %q", created, testPoolID)
	}
}

// storedPool is the pool GKE reports for a pool made from poolSpec, with
// reservation affinity path.
func storedPool(path string) *container.NodePool {
	return &container.NodePool{
		Name: testPoolName, Status: "RUNNING", InitialNodeCount: 2, Locations: []string{enginetest.Zone},
		PlacementPolicy: &container.PlacementPolicy{PolicyName: "slice-policy"},
		Management:      &container.NodeManagement{AutoRepair: true, AutoUpgrade: true},
		Config: &container.NodeConfig{
			MachineType: "tpu7x-standard-4t",
			Labels:      map[string]string{"team": "ml"},
			Taints:      []*container.NodeTaint{{Key: "google.com/tpu", Value: "present", Effect: "NO_SCHEDULE"}},
			ReservationAffinity: &container.ReservationAffinity{
				ConsumeReservationType: "SPECIFIC_RESERVATION", Key: "compute.googleapis.com/reservation-name", Values: []string{path},
			},
		},
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
			err := newTestEngine(enginetest.NewCompute(), g, nil).DeleteNodePool(ctx, tc.id)
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

// TestCreateNodePoolReadsFreshNodes: right after create the inventory may
// lag, so the pool is read back from the API server.
func TestCreateNodePoolReadsFreshNodes(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube(readyPoolNodes(wellknown.PartitionHealthy)...)
	unread, _ := enginetest.NewKube()
	unread.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		t.Error("CreateNodePool read the nodes from the inventory")
		return true, nil, errors.New("inventory used")
	})
	e := newTestEngine(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), kube, withInventory(newInventory(t, unread)))
	pool, err := e.CreateNodePool(t.Context(), poolSpec(), func(string) {})
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	if len(pool.NodeNames) != 2 {
		t.Errorf("node names = %v, want the pool's two nodes", pool.NodeNames)
	}
}

// Labels, taints and management change in place, each with the call GKE
// has for it; cleared labels and taints are sent as empty, not left out.
func TestUpdateNodePool(t *testing.T) {
	t.Parallel()
	subBlockPath := "projects/proj/reservations/res/reservationBlocks/block-1/reservationSubBlocks/sb-a"
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = storedPool(subBlockPath)
	kube, _ := enginetest.NewKube()
	e := newTestEngine(enginetest.NewCompute().WithFixtureBlock(), g, kube)
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
	if _, err := e.UpdateNodePool(t.Context(), from, from); err != nil {
		t.Fatal(err)
	}
	if c := calls(); len(c) != 0 {
		t.Fatalf("an unchanged pool made calls: %v", c)
	}

	to := from
	to.Labels, to.Taints = nil, nil
	pool, err := e.UpdateNodePool(t.Context(), from, to)
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
	pool, err = e.UpdateNodePool(t.Context(), from, to)
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
