package tpuslice

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// selectQuery is the engine's internal selection query: which partitions
// a slice may use, from its topology and the user's PartitionSelector
// (see selectQueryOf).
type selectQuery struct {
	// Count is the number of partitions (A·B·C/64; 1 for a sub-slice).
	Count int
	// Shape is the partitions' shape: 4x4x4 (or empty) for a super-slice,
	// the topology itself for a sub-slice.
	Shape string
	// NodePools, when set, restricts the choice to these pools.
	NodePools []string
	// Block, when set, restricts the choice to this gce-topology-block.
	Block string
	// AllowDegraded lets DEGRADED partitions in, after HEALTHY ones.
	AllowDegraded bool
	// Slice is the slice being planned: partitions it already uses count
	// as free.
	Slice string
	// Access is the slice's device access: partitions on nodes that do
	// not offer it are skipped.
	Access clusterread.DeviceAccess
}

func (r selectQuery) shape() string {
	if r.Shape == "" {
		return topology.PartitionTopology
	}
	return r.Shape
}

// choosePartitions picks Count partitions for a slice: usable ones (HEALTHY, then
// DEGRADED when allowed, every node Ready, used by no other slice), all in
// one block (so one reservation). The choice is deterministic: the block
// with the most usable partitions wins (ties by block ID), and in it the
// healthiest partitions by node pool and ID. When no block has enough, the
// error says how many usable partitions each block has and why the others
// were skipped.
//
// A sub-slice (one partition of a shape smaller than 4x4x4) is packed
// best-fit: into the sub-block with the fewest free nodes that still has a
// free partition of its shape, and in it into the most-used 2x4x4, 2x2x4
// and 2x2x2, so that whole sub-blocks stay free for super-slices.
func choosePartitions(parts []clusterread.Partition, req selectQuery) ([]string, error) {
	pools := map[string]bool{}
	for _, p := range req.NodePools {
		pools[p] = true
	}
	blocks, considered := countBlocks(parts, pools, req)
	names := blocksByUsable(blocks)
	if ids, ok := pickPartitions(blocks, names, req); ok {
		return ids, nil
	}
	return nil, shortageError(parts, pools, req, blocks, names, considered)
}

// blockCount is what selection found in one block: its usable partitions,
// and how many of the others were skipped for each reason.
type blockCount struct {
	usable  []clusterread.Partition
	skipped map[string]int
}

// countBlocks sorts the partitions that the request considers (of its
// pools and block) by block, into usable and skipped; considered is how
// many there were.
func countBlocks(parts []clusterread.Partition, pools map[string]bool, req selectQuery) (blocks map[string]*blockCount, considered int) {
	blocks = map[string]*blockCount{}
	for _, p := range parts {
		if len(pools) > 0 && !pools[p.NodePool] {
			continue
		}
		if req.Block != "" && p.Block != req.Block {
			continue
		}
		considered++
		b := blocks[p.Block]
		if b == nil {
			b = &blockCount{skipped: map[string]int{}}
			blocks[p.Block] = b
		}
		if why := p.Unusable(req.Slice, req.AllowDegraded); why != "" {
			b.skipped[why]++
		} else if why := req.Access.Mismatch(p); why != "" {
			b.skipped[why]++
		} else {
			b.usable = append(b.usable, p)
		}
	}
	return blocks, considered
}

// blocksByUsable names the blocks, the one with the most usable partitions
// first (ties by block ID).
func blocksByUsable(blocks map[string]*blockCount) []string {
	names := make([]string, 0, len(blocks))
	for name := range blocks {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		ni, nj := len(blocks[names[i]].usable), len(blocks[names[j]].usable)
		if ni != nj {
			return ni > nj
		}
		return names[i] < names[j]
	})
	return names
}

// pickPartitions chooses the request's partitions from the blocks, in the
// order of names: a sub-slice best-fit across them all, otherwise the
// healthiest partitions of the first block that has enough.
func pickPartitions(blocks map[string]*blockCount, names []string, req selectQuery) ([]string, bool) {
	if req.shape() != topology.PartitionTopology && req.Count == 1 {
		var all []clusterread.Partition
		for _, name := range names {
			all = append(all, blocks[name].usable...)
		}
		if best, ok := bestFit(all); ok {
			return []string{best.ID}, true
		}
	}
	for _, name := range names {
		if usable := blocks[name].usable; len(usable) >= req.Count {
			return healthiest(usable, req.Count), true
		}
	}
	return nil, false
}

// healthiest is the IDs (sorted) of the count healthiest partitions of
// usable, HEALTHY before DEGRADED, then by node pool and ID.
func healthiest(usable []clusterread.Partition, count int) []string {
	sort.SliceStable(usable, func(i, j int) bool {
		if usable[i].State != usable[j].State {
			return usable[i].State == wellknown.PartitionHealthy
		}
		if usable[i].NodePool != usable[j].NodePool {
			return usable[i].NodePool < usable[j].NodePool
		}
		return usable[i].ID < usable[j].ID
	})
	ids := make([]string, count)
	for i := range ids {
		ids[i] = usable[i].ID
	}
	sort.Strings(ids)
	return ids
}

// shortageError is choosePartitions' error when no block has enough usable
// partitions: how many usable partitions each block has and why the others
// were skipped, or where the partitions are when none was considered.
func shortageError(parts []clusterread.Partition, pools map[string]bool, req selectQuery, blocks map[string]*blockCount, names []string, considered int) error {
	what := "partition(s)"
	if req.shape() != topology.PartitionTopology {
		what = req.shape() + " partition(s)"
	}
	scope := "the cluster"
	if len(req.NodePools) > 0 {
		scope = "node pools " + strings.Join(req.NodePools, ", ")
	}
	if req.Block != "" {
		scope += " in block " + req.Block
	}
	if considered == 0 {
		if req.Block != "" {
			if others := blocksOf(parts, pools); len(others) > 0 {
				return fmt.Errorf("%d %s are needed, but no partition is in block %q: it is neither a reservation block that the "+
					"cluster's node pools target nor a physical block (the nodes' %s label); the partitions%s are in: %s",
					req.Count, what, req.Block, wellknown.LabelTopologyBlock, poolScope(req.NodePools), strings.Join(others, ", "))
			}
		}
		return fmt.Errorf("%d %s are needed, but %s have no partitions (no nodes with a partition label yet)", req.Count, what, scope)
	}
	var lines []string
	for _, name := range names {
		b := blocks[name]
		reasons := summarise(b.skipped)
		line := fmt.Sprintf("block %s: %d usable", blockName(name), len(b.usable))
		if len(reasons) > 0 {
			line += ", skipped " + strings.Join(reasons, ", ")
		}
		lines = append(lines, line)
	}
	return fmt.Errorf("%d %s are needed in one block, but no block of %s has that many usable: %s",
		req.Count, what, scope, strings.Join(lines, "; "))
}

// bestFit is the sub-partition a sub-slice packs into: the one whose
// sub-block, then 2x4x4, 2x2x4 and 2x2x2 around it, have the fewest free
// nodes (the most fragmented first), then by node pool and ID.
func bestFit(parts []clusterread.Partition) (clusterread.Partition, bool) {
	if len(parts) == 0 {
		return clusterread.Partition{}, false
	}
	best := parts[0]
	for _, p := range parts[1:] {
		if fitsBefore(p, best) {
			best = p
		}
	}
	return best, true
}

func fitsBefore(a, b clusterread.Partition) bool {
	if c := slices.Compare(a.AncestorFree, b.AncestorFree); c != 0 {
		return c < 0
	}
	if a.NodePool != b.NodePool {
		return a.NodePool < b.NodePool
	}
	return a.ID < b.ID
}

// maxSlicesNamed bounds the slices a shortage message names one by one.
const maxSlicesNamed = 4

// summarise writes the reasons partitions were skipped, with counts; the
// partitions held by many slices (a full pod has up to 144) are one entry.
func summarise(skipped map[string]int) []string {
	var reasons []string
	held, slicesHolding := 0, []string{}
	for reason, n := range skipped {
		if name, ok := strings.CutPrefix(reason, "used by "); ok {
			held += n
			slicesHolding = append(slicesHolding, name)
		}
	}
	many := len(slicesHolding) > maxSlicesNamed
	for reason, n := range skipped {
		if many && strings.HasPrefix(reason, "used by ") {
			continue
		}
		reasons = append(reasons, fmt.Sprintf("%d %s", n, reason))
	}
	if many {
		sort.Strings(slicesHolding)
		reasons = append(reasons, fmt.Sprintf("%d used by %d other slices (%s, ...)", held, len(slicesHolding), strings.Join(slicesHolding[:maxSlicesNamed], "; ")))
	}
	sort.Strings(reasons)
	return reasons
}

func blockName(b string) string {
	if b == "" {
		return "(unlabelled)"
	}
	return b
}

// blocksOf lists the blocks of the partitions (of the pools, when set),
// each with its number of partitions.
func blocksOf(parts []clusterread.Partition, pools map[string]bool) []string {
	count := map[string]int{}
	for _, p := range parts {
		if len(pools) == 0 || pools[p.NodePool] {
			count[blockName(p.Block)]++
		}
	}
	out := make([]string, 0, len(count))
	for b, n := range count {
		out = append(out, fmt.Sprintf("%s (%d)", b, n))
	}
	sort.Strings(out)
	return out
}

func poolScope(pools []string) string {
	if len(pools) == 0 {
		return ""
	}
	return " of those node pools"
}
