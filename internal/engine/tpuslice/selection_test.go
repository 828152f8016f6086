package tpuslice

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func part(id, state, pool, block, slice string) clusterread.Partition {
	return clusterread.Partition{ID: id, State: state, NodePool: pool, Block: block, Slice: slice, Nodes: 16, Ready: 16}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	parts := []clusterread.Partition{
		part("p1", wellknown.PartitionHealthy, "pool-1", "blk-a", ""),
		part("p2", wellknown.PartitionDegraded, "pool-2", "blk-a", ""),
		part("p3", wellknown.PartitionHealthy, "pool-3", "blk-a", "other"),
		part("p4", wellknown.PartitionIncomplete, "pool-4", "blk-a", ""),
		part("p5", wellknown.PartitionHealthy, "pool-5", "blk-b", ""),
		part("p6", wellknown.PartitionHealthy, "pool-6", "blk-b", ""),
		part("p7", wellknown.PartitionHealthy, "pool-7", "blk-b", "mine"),
	}
	notReady := part("p8", wellknown.PartitionHealthy, "pool-8", "blk-c", "")
	notReady.Ready = 15
	parts = append(parts, notReady)

	cases := []struct {
		name string
		req  selectQuery
		want []string
		err  string
	}{
		{"most usable block wins", selectQuery{Count: 2}, []string{"p5", "p6"}, ""},
		{"own partitions count as free", selectQuery{Count: 3, Slice: "mine"}, []string{"p5", "p6", "p7"}, ""},
		{"healthy before degraded", selectQuery{Count: 2, Block: "blk-a", AllowDegraded: true}, []string{"p1", "p2"}, ""},
		{"node pool filter", selectQuery{Count: 1, NodePools: []string{"pool-6"}}, []string{"p6"}, ""},
		{"shortage explained", selectQuery{Count: 2, Block: "blk-a"}, nil,
			"2 partition(s) are needed in one block, but no block of the cluster in block blk-a has that many usable: block blk-a: 1 usable, skipped 1 DEGRADED (allow_degraded is false), 1 INCOMPLETE, 1 used by slice other"},
		{"not ready", selectQuery{Count: 1, Block: "blk-c"}, nil, "block blk-c: 0 usable, skipped 1 nodes not Ready"},
		{"nothing to choose from", selectQuery{Count: 1, NodePools: []string{"nope"}}, nil, "1 partition(s) are needed, but node pools nope have no partitions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := choosePartitions(parts, tc.req)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("choosePartitions = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// The choice does not depend on the order partitions are listed in.
func TestSelectIsDeterministic(t *testing.T) {
	t.Parallel()
	var parts []clusterread.Partition
	for i := 0; i < 40; i++ {
		parts = append(parts, part(fmt.Sprintf("p%02d", i), wellknown.PartitionHealthy, fmt.Sprintf("pool-%02d", i%7), fmt.Sprintf("blk-%d", i%3), ""))
	}
	first, err := choosePartitions(parts, selectQuery{Count: 8})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		shuffled := append([]clusterread.Partition(nil), parts...)
		for j := range shuffled {
			k := (j*7 + i*13) % len(shuffled)
			shuffled[j], shuffled[k] = shuffled[k], shuffled[j]
		}
		got, err := choosePartitions(shuffled, selectQuery{Count: 8})
		if err != nil || !reflect.DeepEqual(got, first) {
			t.Fatalf("order %d: %v, %v; want %v", i, got, err, first)
		}
	}
}
