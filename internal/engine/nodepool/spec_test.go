package nodepool

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
)

const (
	testPoolName = "slice-a"
	testPoolID   = "projects/proj/locations/us-central1/clusters/cluster-1/nodePools/slice-a"
	testOpPath   = "projects/proj/locations/us-central1/operations/op-create"
)

// poolSpec is a pool of testPoolName on free sub-block sb-a.
func poolSpec() Spec {
	return Spec{
		Project: enginetest.Project, Location: enginetest.Region, Cluster: enginetest.Cluster, Name: testPoolName,
		Policy:      "https://www.googleapis.com/compute/v1/projects/proj/regions/us-central1/resourcePolicies/slice-policy",
		Target:      reservation.Target{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: enginetest.Reservation, Block: enginetest.Block, SubBlock: "sb-a"},
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

func TestCanonicalNodePoolID(t *testing.T) {
	t.Parallel()
	want := "projects/p/locations/l/clusters/c/nodePools/n"
	for _, in := range []string{want, "https://container.googleapis.com/v1/" + want} {
		if got, err := CanonicalID(in); err != nil || got != want {
			t.Errorf("CanonicalID(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := CanonicalID("n"); err == nil {
		t.Error("a bare name was accepted")
	}
}
