package nodepool

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// Wait targets for a new node pool's partition.
const (
	// WaitLabelled waits until every node carries its partition labels.
	WaitLabelled = "LABELLED"
	// WaitHealthy waits for partition state HEALTHY.
	WaitHealthy = "HEALTHY"
	// WaitUsable waits for HEALTHY or DEGRADED, the states a slice can use.
	WaitUsable = "HEALTHY_OR_DEGRADED"
)

// WaitTargets lists the wait targets, for the schema.
var WaitTargets = []string{WaitLabelled, WaitHealthy, WaitUsable}

// Taint is a Kubernetes taint for the pool's nodes.
type Taint struct{ Key, Value, Effect string }

// Spec is a sub-block node pool as the user declares it.
type Spec struct {
	Project, Location, Cluster, Name string
	// Policy is the workload policy's name or self link.
	Policy      string
	Target      reservation.Target
	MachineType string
	NodeCount   int64
	Labels      map[string]string
	Taints      []Taint
	AutoRepair  bool
	AutoUpgrade bool
	// WaitFor is one of WaitTargets.
	WaitFor string
	// ResourceLabels are the GCP labels of the pool's VMs.
	ResourceLabels map[string]string
}

// ClusterName is projects/P/locations/L/clusters/C.
func (s Spec) ClusterName() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", s.Project, s.Location, s.Cluster)
}

// ID is the node pool's full GKE name, its Terraform ID.
func (s Spec) ID() string { return s.ClusterName() + "/nodePools/" + s.Name }

// Pool is a node pool as GKE and Kubernetes report it.
type Pool struct {
	ID, Project, Location, Cluster, Name string
	Status                               string
	MachineType, Policy                  string
	NodeCount                            int64
	Zone                                 string
	Labels                               map[string]string
	ResourceLabels                       map[string]string
	ReservationPath                      string
	Reservation, Block, SubBlock         string
	PartitionID, PartitionState          string
	NodeNames                            []string
	ReadyNodes                           int64
	Taints                               []Taint
	AutoRepair, AutoUpgrade              bool
	// Adopted, set only by Create, says why the create adopted a
	// pool that existed (matching the spec) instead of creating it; empty
	// when it created the pool.
	Adopted string
	// UnhealthySummary, set only by a Read asked to
	// (SummariseUnhealthy), summarises the cluster's partitions that are
	// not healthy.
	UnhealthySummary string
}

var nodePoolIDRE = regexp.MustCompile(`^projects/([^/]+)/locations/([^/]+)/clusters/([^/]+)/nodePools/([^/]+)$`)

// CanonicalNodePoolID returns the node pool ID as
// projects/P/locations/L/clusters/C/nodePools/N, whatever form (a URL) it
// was given in.
func CanonicalID(id string) (string, error) {
	project, location, cluster, name, err := parseNodePoolID(id)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", project, location, cluster, name), nil
}

// parseNodePoolID splits projects/P/locations/L/clusters/C/nodePools/N.
func parseNodePoolID(id string) (project, location, cluster, name string, err error) {
	m := nodePoolIDRE.FindStringSubmatch(strings.TrimPrefix(id, "https://container.googleapis.com/v1/"))
	if m == nil {
		return "", "", "", "", fmt.Errorf("%q is not a GKE node pool ID: use projects/P/locations/L/clusters/C/nodePools/N", id)
	}
	return m[1], m[2], m[3], m[4], nil
}

// sameNodeSettings reports whether s and o give the nodes the same
// Kubernetes labels and taints.
func (s Spec) sameNodeSettings(o Spec) bool {
	return maps.Equal(s.Labels, o.Labels) && slices.Equal(s.Taints, o.Taints)
}

// sameManagement reports whether s and o have the same auto-repair and
// auto-upgrade.
func (s Spec) sameManagement(o Spec) bool {
	return s.AutoRepair == o.AutoRepair && s.AutoUpgrade == o.AutoUpgrade
}

// SameInPlaceSettings reports whether s and o agree on everything
// Update changes: when they do, an update has nothing to send.
func (s Spec) SameInPlaceSettings(o Spec) bool {
	return s.sameNodeSettings(o) && s.sameManagement(o) && maps.Equal(s.ResourceLabels, o.ResourceLabels)
}
