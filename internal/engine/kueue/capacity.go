package kueue

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// kueuePoolFacts reads the pools of c: GKE's list (one nodePools.list),
// and their nodes from the inventory; the nodes of pools the inventory
// has none of (pools just made, or without nodes) from one list of the
// API server.
func (e *Kueue) kueuePoolFacts(ctx context.Context, inv *clusterread.Inventory, kube kernel.Cluster, c kueueCheck) []kueuePoolFacts {
	byName := map[string]*container.NodePool{}
	gkeKnown := false
	if c.cluster != "" {
		list, err := e.reads.FreshNodePools(ctx, c.cluster)
		if err != nil {
			tflog.Debug(ctx, "Cannot list node pools to check the Kueue set-up", map[string]any{"error": kernel.APIMessage(err)})
		} else {
			gkeKnown = true
			for _, p := range list {
				byName[p.Name] = p
			}
		}
	}
	facts := make([]kueuePoolFacts, len(c.pools))
	var behind []string
	for i, name := range c.pools {
		f := kueuePoolFacts{name: name, gkeKnown: gkeKnown}
		if p, ok := byName[name]; ok {
			f.listed, f.nodeCount = true, p.InitialNodeCount
			f.provisioning = p.Status == "PROVISIONING" || p.Status == "RECONCILING"
			if t := reservation.TargetOf(p); t.Parsed {
				f.reservationBlock = t.Reservation + "/" + t.Block
			}
		}
		nodes, err := inv.Nodes(ctx, map[string]string{wellknown.LabelNodePool: name})
		if err != nil {
			tflog.Debug(ctx, "Cannot read a node pool's nodes to check the Kueue set-up", map[string]any{"node_pool": name, "error": err.Error()})
		}
		f.nodes = nodes
		if len(nodes) == 0 && (f.listed || c.atApply) {
			// Made a moment ago (Terraform plans a resource again during
			// the apply, after the pools it names are made): the watch
			// may not hold its nodes yet.
			behind = append(behind, name)
		}
		facts[i] = f
	}
	if len(behind) > 0 {
		list, err := kube.Nodes().List(ctx, metav1.ListOptions{LabelSelector: fmt.Sprintf("%s in (%s)", wellknown.LabelNodePool, strings.Join(behind, ","))})
		if err != nil {
			tflog.Debug(ctx, "Cannot list the nodes of node pools just made", map[string]any{"node_pools": behind, "error": err.Error()})
		} else {
			for i := range list.Items {
				n := &list.Items[i]
				for j := range facts {
					if facts[j].name == n.Labels[wellknown.LabelNodePool] {
						facts[j].nodes = append(facts[j].nodes, n)
					}
				}
			}
		}
	}
	return facts
}

// poolProblems is the KueueNodePoolError of the pools whose nodes the
// ResourceFlavor (the tpu7x accelerator label) and the Topology (every
// level label) do not select, or nil. A pool without nodes is a problem
// when it exists and is not being provisioned; at apply, every pool
// exists (GKE listed them for the quota).
func poolProblems(facts []kueuePoolFacts, levels []string, atApply bool) *KueueNodePoolError {
	var out []KueuePoolProblem
	for _, f := range facts {
		if len(f.nodes) == 0 {
			if !f.provisioning && (f.listed || atApply) {
				out = append(out, KueuePoolProblem{Pool: f.name, NoNodes: true})
			}
			continue
		}
		p := KueuePoolProblem{Pool: f.name, Nodes: len(f.nodes), Lacking: map[string]int{}}
		for _, n := range f.nodes {
			if v := n.Labels[wellknown.LabelAccelerator]; v != topology.SliceType {
				p.NotTPU7x++
				if !slices.Contains(p.Accelerators, v) {
					p.Accelerators = append(p.Accelerators, v)
				}
			}
			for _, l := range levels {
				if n.Labels[l] == "" {
					p.Lacking[l]++
				}
			}
		}
		if p.NotTPU7x > 0 || len(p.Lacking) > 0 {
			slices.Sort(p.Accelerators)
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &KueueNodePoolError{Problems: out, Levels: levels}
}

// kueueCapacity is what the pools of node_pools offer a workload.
type kueueCapacity struct {
	// quota is the ClusterQueue's google.com/tpu quota (quotaKnown);
	// quotaBound says it is an upper bound (pools not made yet counted
	// at 64 chips each).
	quota                  int64
	quotaKnown, quotaBound bool
	// blocksKnown: the pools' blocks were read. block is the physical
	// block (gce-topology-block) holding the most of the pools'
	// partitions, partitions their number and blockPools the pools
	// there; unplaced is the number of pools whose block is not known
	// yet, each of which may add one partition to any block.
	blocksKnown bool
	block       string
	partitions  int
	blockPools  []string
	unplaced    int
}

// capacityOf is the capacity of the pools in facts.
func capacityOf(facts []kueuePoolFacts, c kueueCheck) kueueCapacity {
	out := kueueCapacity{blocksKnown: true, unplaced: c.unknownPools}
	if c.atApply {
		out.quota, out.quotaKnown = c.quota, true
	} else if len(facts) > 0 && facts[0].gkeKnown {
		out.quotaKnown = true
		out.quotaBound = c.unknownPools > 0
		out.quota = int64(c.unknownPools) * topology.ChipsPerPartition
		for _, f := range facts {
			if f.listed {
				out.quota += f.nodeCount * topology.ChipsPerHost
			} else {
				out.quota += topology.ChipsPerPartition
				out.quotaBound = true
			}
		}
	} else if len(facts) == 0 && c.unknownPools == 0 {
		out.quotaKnown = true
	}
	// The physical block of each reservation block, from the pools whose
	// nodes are there.
	partitions := map[string]map[string]bool{}
	pools := map[string][]string{}
	physical := map[string]string{}
	add := func(block, partition, pool string) {
		if partitions[block] == nil {
			partitions[block] = map[string]bool{}
		}
		partitions[block][partition] = true
		if !slices.Contains(pools[block], pool) {
			pools[block] = append(pools[block], pool)
		}
	}
	for _, f := range facts {
		for _, n := range f.nodes {
			block, id := n.Labels[wellknown.LabelTopologyBlock], clusterread.PartitionID(n)
			if block == "" || id == "" {
				continue
			}
			add(block, id, f.name)
			if f.reservationBlock != "" {
				physical[f.reservationBlock] = block
			}
		}
	}
	for _, f := range facts {
		switch {
		case len(f.nodes) > 0:
		case f.provisioning || !f.exists() && !c.atApply:
			// Its nodes are still to come: in the block its reservation
			// affinity names, when another pool's nodes tell which that is.
			if block, ok := physical[f.reservationBlock]; ok && f.reservationBlock != "" {
				add(block, "pool "+f.name, f.name)
			} else {
				out.unplaced++
			}
		}
	}
	for _, b := range slices.Sorted(maps.Keys(partitions)) {
		if len(partitions[b]) > out.partitions {
			out.block, out.partitions, out.blockPools = b, len(partitions[b]), pools[b]
		}
	}
	return out
}

// missingNamespaces are the namespaces that the cluster does not have.
// One that cannot be read for another reason is left to the apply.
func missingNamespaces(ctx context.Context, kube kernel.Cluster, names []string) []string {
	var missing []string
	for _, ns := range names {
		_, err := kube.Namespaces().Get(ctx, ns, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			missing = append(missing, ns)
		case err != nil:
			tflog.Debug(ctx, "Cannot read a namespace of the Kueue set-up", map[string]any{"namespace": ns, "error": err.Error()})
		}
	}
	return missing
}

// workloadTopologyProblems checks each workload topology ("" for one not
// known yet) against sub-slicing and the pools' capacity, and returns a
// *KueueTopologyError for each that breaks a rule (the first it breaks).
func workloadTopologyProblems(topologies []string, subSlicing bool, c kueueCapacity) []error {
	var out []error
	for i, s := range topologies {
		if s == "" {
			continue
		}
		if err := checkWorkloadTopology(i, s, subSlicing, c); err != nil {
			out = append(out, err)
		}
	}
	return out
}

func checkWorkloadTopology(i int, s string, subSlicing bool, c kueueCapacity) *KueueTopologyError {
	t, err := topology.ParseTPU7x(s)
	if err != nil {
		return &KueueTopologyError{Index: i, Topology: s, Rule: KueueTopologyInvalid, detail: err.Error()}
	}
	if t.SubSlice() && !subSlicing {
		return &KueueTopologyError{Index: i, Topology: s, Rule: KueueTopologySubSlicing, detail: fmt.Sprintf(
			"workload topology %q is a sub-slice: Kueue places it on the sub-slice partition levels of the Topology, which sub_slicing = false "+
				"leaves out. Set sub_slicing = true (the default; GKE %s or later), or remove %q from workload_topologies.", s, topology.MinVersionSubSlice, s)}
	}
	chips := int64(t.Chips())
	if c.quotaKnown && chips > c.quota {
		quota := fmt.Sprintf("the ClusterQueue's google.com/tpu quota is %d chips (4 per node of node_pools)", c.quota)
		if c.quotaBound {
			quota = fmt.Sprintf("the ClusterQueue's google.com/tpu quota will be at most %d chips (4 per node of node_pools, counting %d "+
				"for each pool not made yet)", c.quota, topology.ChipsPerPartition)
		}
		more := (chips - c.quota + topology.ChipsPerPartition - 1) / topology.ChipsPerPartition
		return &KueueTopologyError{Index: i, Topology: s, Rule: KueueTopologyQuota, Needed: chips, Have: c.quota, detail: fmt.Sprintf(
			"workload topology %q needs %d chips (%d×%d×%d), but %s, so Kueue would never admit a workload of it. Add %d more sub-block "+
				"node pool(s) (%d chips each) to node_pools, or ask for a topology of at most %d chips.",
			s, chips, t.A, t.B, t.C, quota, more, topology.ChipsPerPartition, c.quota)}
	}
	need := t.Partitions()
	room := c.partitions + c.unplaced
	if !c.blocksKnown || need <= room || room == 0 {
		// No room at all: the pools' own problems say why.
		return nil
	}
	have := "the node pools have no partition in any block yet"
	if c.partitions > 0 {
		have = fmt.Sprintf("the node pools have at most %d partition(s) in one block (block %s: %s)", c.partitions, c.block, strings.Join(c.blockPools, ", "))
	}
	if c.unplaced > 0 {
		have += fmt.Sprintf(", even counting the %d pool(s) whose block is not known yet as in that block", c.unplaced)
	}
	var names []string
	for _, f := range topology.ForPartitions(room) {
		names = append(names, `"`+f.String()+`"`)
	}
	fix := fmt.Sprintf("Add node pools on %d more sub-block(s) of one reservation block to node_pools, or ask for a topology of at most "+
		"%d partition(s), such as %s", need-room, room, strings.Join(names, " or "))
	// A sub-slice needs one partition, which any room holds: this is a
	// super-slice.
	what := fmt.Sprintf("a super-slice of %d partitions (%d×%d×%d chips / %d per partition), which must all be in one reservation block",
		need, t.A, t.B, t.C, topology.ChipsPerPartition)
	return &KueueTopologyError{Index: i, Topology: s, Rule: KueueTopologyBlock, Needed: int64(need), Have: int64(c.partitions), detail: fmt.Sprintf(
		"workload topology %q is %s, but %s. %s.", s, what, have, fix)}
}
