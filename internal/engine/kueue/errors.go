package kueue

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The errors of a Kueue set-up that the Kueue + TAS path cannot use. A
// plan reports them as KueueVerdict.Problems; an apply refuses, before it
// applies any object, with a KueueSetupError that holds them. Each has a
// Detail that says what is wrong, the rule, and what to write instead,
// for a handler to show as it is.

// ErrKueueSetup is matched (errors.Is) by every KueueSetupError.
var ErrKueueSetup = errors.New("the Kueue set-up cannot work")

// KueueSetupError is an apply refused before any Kueue object was
// applied: one or more problems, each a *KueueAPIError,
// *KueueNodePoolError, *KueueNamespaceError or *KueueTopologyError.
type KueueSetupError struct{ Problems []error }

func (e *KueueSetupError) Error() string {
	details := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		details[i] = p.Error()
	}
	return ErrKueueSetup.Error() + ": " + strings.Join(details, "; ")
}

// Unwrap gives the problems to errors.As.
func (e *KueueSetupError) Unwrap() []error { return e.Problems }

// Is makes errors.Is(err, ErrKueueSetup) hold.
func (e *KueueSetupError) Is(target error) bool { return target == ErrKueueSetup }

// KueueResources are the resources of kueue.x-k8s.io/v1beta2 the path
// needs: the objects it applies, and the Workloads that Kueue and GKE's
// slice admission check make of the queued jobs.
var KueueResources = []string{"topologies", "resourceflavors", "admissionchecks", "clusterqueues", "localqueues", "workloads"}

// KueueMinVersion is the first Kueue release with what the path needs:
// two-level Topology Aware Scheduling and the v1beta2 API.
const KueueMinVersion = "v0.15"

// KueueAPIError is a cluster whose Kueue API lacks what the path needs:
// Kueue is not installed, serves only older versions, or lacks resources.
type KueueAPIError struct {
	// Served are the versions of kueue.x-k8s.io the cluster serves; none
	// when Kueue is not installed.
	Served []string
	// Missing are the resources of KueueResources that
	// kueue.x-k8s.io/v1beta2 does not serve (all of them when the version
	// is not served).
	Missing []string
}

func (e *KueueAPIError) Error() string { return e.Detail() }

// Detail says what is served, what is needed and what to do.
func (e *KueueAPIError) Detail() string {
	need := fmt.Sprintf("The Kueue + Topology Aware Scheduling path needs %s/%s serving %s (Kueue %s or later: two-level Topology Aware "+
		"Scheduling and the %s API).", kernel.KueueGroup, kernel.KueueVersion, strings.Join(KueueResources, ", "), KueueMinVersion, kernel.KueueVersion)
	switch {
	case len(e.Served) == 0:
		return fmt.Sprintf("The cluster does not serve the API group %s: Kueue is not installed. %s Install Kueue %s or later "+
			"(its CRDs and controller), then plan again.", kernel.KueueGroup, need, KueueMinVersion)
	case !slices.Contains(e.Served, kernel.KueueVersion):
		return fmt.Sprintf("The cluster serves %s only in version(s) %s, not %s: its Kueue is older than %s. %s Upgrade Kueue to %s "+
			"or later, then plan again.", kernel.KueueGroup, strings.Join(e.Served, ", "), kernel.KueueVersion, KueueMinVersion, need, KueueMinVersion)
	}
	return fmt.Sprintf("The cluster serves %s/%s without %s: its Kueue is incomplete or older than %s. %s Install or upgrade Kueue to "+
		"%s or later with all its CRDs, then plan again.", kernel.KueueGroup, kernel.KueueVersion, strings.Join(e.Missing, ", "), KueueMinVersion, need, KueueMinVersion)
}

// KueuePoolProblem is what is wrong with one node pool of node_pools.
type KueuePoolProblem struct {
	Pool string
	// Missing says that the cluster has no node pool of the name (and no
	// resource of this plan makes one).
	Missing bool
	// Nodes is the number of the pool's nodes; NoNodes says that it has
	// none (and is not being provisioned).
	Nodes   int
	NoNodes bool
	// Accelerators are the values of the accelerator label on the nodes
	// that are not tpu7x nodes ("" for a node without the label), and
	// NotTPU7x how many such nodes there are.
	Accelerators []string
	NotTPU7x     int
	// Lacking maps each Topology level label that some nodes lack to the
	// number of nodes that lack it.
	Lacking map[string]int
}

func (p KueuePoolProblem) String() string {
	if p.Missing {
		return fmt.Sprintf("node pool %s does not exist", p.Pool)
	}
	if p.NoNodes {
		return fmt.Sprintf("node pool %s has no nodes", p.Pool)
	}
	var what []string
	if p.NotTPU7x > 0 {
		values := make([]string, len(p.Accelerators))
		for i, v := range p.Accelerators {
			if v == "" {
				values[i] = "no " + wellknown.LabelAccelerator + " label"
			} else {
				values[i] = wellknown.LabelAccelerator + "=" + v
			}
		}
		what = append(what, fmt.Sprintf("%d of its %d nodes are not tpu7x nodes (%s)", p.NotTPU7x, p.Nodes, strings.Join(values, ", ")))
	}
	for _, l := range slices.Sorted(maps.Keys(p.Lacking)) {
		what = append(what, fmt.Sprintf("%d of its %d nodes lack the label %s", p.Lacking[l], p.Nodes, l))
	}
	return fmt.Sprintf("node pool %s: %s", p.Pool, strings.Join(what, ", "))
}

// onlySubSliceLabels says whether the pool lacks only the sub-slice
// partition labels (a GKE version before sub-slicing).
func (p KueuePoolProblem) onlySubSliceLabels() bool {
	if p.Missing || p.NoNodes || p.NotTPU7x > 0 || len(p.Lacking) == 0 {
		return false
	}
	for l := range p.Lacking {
		if !slices.ContainsFunc(topology.SubSliceShapes, func(s string) bool { return topology.PartitionIDLabel(s) == l }) {
			return false
		}
	}
	return true
}

// KueueNodePoolError is a node_pools whose pools have no nodes that the
// ResourceFlavor and the Topology select: their chips would count in the
// ClusterQueue's quota, but Kueue would never place a workload on them.
type KueueNodePoolError struct {
	Problems []KueuePoolProblem
	// Levels are the Topology's levels (node labels), block first.
	Levels []string
	// Cluster is the cluster's name, for a pool that does not exist.
	Cluster string
}

func (e *KueueNodePoolError) Error() string { return e.Detail() }

// Detail names each pool and what its nodes lack, the rule and the fix.
func (e *KueueNodePoolError) Detail() string {
	lines := make([]string, len(e.Problems))
	subSliceOnly, missingOnly := true, true
	for i, p := range e.Problems {
		lines[i] = p.String()
		subSliceOnly = subSliceOnly && p.onlySubSliceLabels()
		missingOnly = missingOnly && p.Missing
	}
	if missingOnly {
		return missingPoolsDetail(lines, e.Cluster)
	}
	fix := "List only tpu7x sub-block node pools (gke_subblock_node_pool) in node_pools, or remove these pools from it."
	if subSliceOnly {
		fix = fmt.Sprintf("These nodes lack only the sub-slice partition labels, which GKE sets from %s: upgrade the cluster, "+
			"or set sub_slicing = false to leave those levels out of the Topology.", topology.MinVersionSubSlice)
	}
	return fmt.Sprintf("%s. Kueue places the ClusterQueue's workloads only on nodes with the ResourceFlavor's label %s=%s and every "+
		"level label of the Topology (%s), so these pools' chips would count in the quota but never run its workloads. %s",
		strings.Join(lines, "; "), wellknown.LabelAccelerator, topology.SliceType, strings.Join(e.Levels, ", "), fix)
}

// KueueNamespaceError is a namespaces that names namespaces the cluster
// does not have: a LocalQueue is made in its namespace.
type KueueNamespaceError struct {
	Missing []string
}

func (e *KueueNamespaceError) Error() string { return e.Detail() }

// Detail names the namespaces and says how to make them exist first. The
// same words serve a plan and an apply: Terraform plans a resource again
// during the apply, with the values then known.
func (e *KueueNamespaceError) Detail() string {
	what := fmt.Sprintf("namespace %s does not exist", e.Missing[0])
	if len(e.Missing) > 1 {
		what = fmt.Sprintf("namespaces %s do not exist", strings.Join(e.Missing, ", "))
	}
	return fmt.Sprintf("%s. A LocalQueue is made in each namespace of namespaces, so each must exist first: create it (for example "+
		"with a kubernetes_namespace resource), or remove it from namespaces. A plan sees only the namespaces that exist when it runs, "+
		"and depends_on does not change that: write a namespace that another resource of this configuration creates as a value known "+
		"only after apply, such as that resource's id (namespaces = [kubernetes_namespace.team.id]), so that it is checked during the "+
		"apply, once the namespace exists; or create it in an earlier apply.", what)
}

// KueueTopologyRule names the rule a workload topology breaks.
type KueueTopologyRule string

// The rules of workload_topologies, in the order they are checked.
const (
	// KueueTopologyInvalid: not a tpu7x topology.
	KueueTopologyInvalid KueueTopologyRule = "invalid"
	// KueueTopologySubSlicing: a sub-slice, without sub_slicing.
	KueueTopologySubSlicing KueueTopologyRule = "sub-slicing"
	// KueueTopologyQuota: more chips than the ClusterQueue's quota.
	KueueTopologyQuota KueueTopologyRule = "quota"
	// KueueTopologyBlock: more partitions than the pools have in one
	// reservation block.
	KueueTopologyBlock KueueTopologyRule = "block"
)

// KueueTopologyError is a workload topology that the queue's pools cannot
// hold.
type KueueTopologyError struct {
	// Index is its place in workload_topologies; Topology the value.
	Index    int
	Topology string
	Rule     KueueTopologyRule
	// Needed and Have are the numbers the rule compares: chips and the
	// quota (KueueTopologyQuota), or partitions and the most partitions
	// of the pools in one block (KueueTopologyBlock).
	Needed, Have int64
	detail       string
}

func (e *KueueTopologyError) Error() string { return e.Detail() }

// Detail names the topology, the numbers, the rule and what to write.
func (e *KueueTopologyError) Detail() string { return e.detail }
