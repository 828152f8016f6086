package slicecheck

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// What GKE's slice admission check reads of a Kueue v1beta2 Workload, and
// how it turns Topology Aware Scheduling's assignment into Slices. Pure
// functions: slicecheck.go drives them.

// maxSliceName is the longest Slice name GKE accepts; longer names made
// from a workload are cut and given a hash so that they stay unique.
const maxSliceName = 49

// SliceName names the Slice of one sub-group (Job) of a pod set:
// <namespace>-<workload>-<podset>-<index>, cut to 43 characters and given
// "-" and the first 5 hex digits of the SHA-256 of the whole name when
// longer than 49.
func SliceName(namespace, workload, podSet string, index int) string {
	name := fmt.Sprintf("%s-%s-%s-%d", namespace, workload, podSet, index)
	if len(name) <= maxSliceName {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	const hashLen = 5
	return name[:maxSliceName-hashLen-1] + "-" + hex.EncodeToString(sum[:])[:hashLen]
}

// wlTopologyAssignment is Kueue v1beta2's TopologyAssignment: levels (node
// label keys, highest first) and slices of domains whose values per level
// are either one value for all ("universal") or one per domain
// ("individual", with an optional common prefix and suffix).
type wlTopologyAssignment struct {
	Levels []string `json:"levels"`
	Slices []struct {
		DomainCount    int `json:"domainCount"`
		ValuesPerLevel []struct {
			Universal  *string `json:"universal"`
			Individual *struct {
				Prefix *string  `json:"prefix"`
				Suffix *string  `json:"suffix"`
				Roots  []string `json:"roots"`
			} `json:"individual"`
		} `json:"valuesPerLevel"`
	} `json:"slices"`
}

// domains returns, for each domain of the assignment in order, its value at
// each level.
func (a wlTopologyAssignment) domains() ([][]string, error) {
	var out [][]string
	for si, s := range a.Slices {
		if len(s.ValuesPerLevel) != len(a.Levels) {
			return nil, fmt.Errorf("topology assignment slice %d has values for %d levels, the assignment %d", si, len(s.ValuesPerLevel), len(a.Levels))
		}
		for d := range s.DomainCount {
			values := make([]string, len(a.Levels))
			for l, v := range s.ValuesPerLevel {
				switch {
				case v.Universal != nil:
					values[l] = *v.Universal
				case v.Individual != nil && d < len(v.Individual.Roots):
					values[l] = deref(v.Individual.Prefix) + v.Individual.Roots[d] + deref(v.Individual.Suffix)
				default:
					return nil, fmt.Errorf("topology assignment slice %d has no value for domain %d at level %s", si, d, a.Levels[l])
				}
			}
			out = append(out, values)
		}
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// assignedPartitions returns the partitions (IDs in partitionLabel) of the
// domains TAS assigned, in the order of the assignment, each once. The
// assignment names them directly when partitionLabel is one of its levels;
// otherwise its lowest level must be the hostname, and nodeLabels gives
// each assigned node's labels (nil when the node is not known).
func assignedPartitions(a wlTopologyAssignment, partitionLabel string, nodeLabels func(node string) map[string]string) ([]string, error) {
	domains, err := a.domains()
	if err != nil {
		return nil, err
	}
	level := slices.Index(a.Levels, partitionLabel)
	host := slices.Index(a.Levels, wellknown.LabelHostname)
	if level < 0 && host < 0 {
		return nil, fmt.Errorf("the topology assignment's levels %v name neither %s nor %s", a.Levels, partitionLabel, wellknown.LabelHostname)
	}
	var ids []string
	for _, values := range domains {
		id := ""
		if level >= 0 {
			id = values[level]
		} else {
			labels := nodeLabels(values[host])
			if labels == nil {
				return nil, fmt.Errorf("node %s, assigned by topology-aware scheduling, does not exist", values[host])
			}
			if id = labels[partitionLabel]; id == "" {
				return nil, fmt.Errorf("node %s, assigned by topology-aware scheduling, has no %s label", values[host], partitionLabel)
			}
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// partitionLabelFor is the node label whose values a Slice of the topology
// lists: the 4x4x4 partition ID for a super-slice, the sub-slice shape's
// partition ID for a sub-slice.
func partitionLabelFor(t slicerules.Topology) string {
	return slicerules.PartitionIDLabel(t.PartitionShape())
}
