package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// claimedTwice matches the plan's error of two slices (of the names, in
// either order) that claim one partition, with the words that follow.
func claimedTwice(a, b string, then ...string) *regexp.Regexp {
	either := "(" + regexp.QuoteMeta(a) + "|" + regexp.QuoteMeta(b) + ")"
	pattern := `(?s)Partition Claimed Twice.*slice\s+"` + either + `"\s+lists\s+partition\s+\S+,\s+which\s+slice\s+"` + either +
		`"\s+of\s+this\s+configuration\s+\(another\s+gke_tpu_slice\)\s+also\s+claims`
	for _, text := range then {
		pattern += ".*" + strings.Join(strings.Fields(regexp.QuoteMeta(text)), `\s+`)
	}
	return regexp.MustCompile(pattern)
}

// listedSlice is a gke_tpu_slice named accName(name) of the topology that
// lists the partitions (expressions).
func listedSlice(resource, name, topo string, ids ...string) string {
	return fmt.Sprintf(`
resource "gke_tpu_slice" %q {
  name          = %q
  topology      = %q
  partition_ids = [%s]
}
`, resource, accName(name), topo, strings.Join(ids, ", "))
}

// Two slices of one configuration that claim one partition are refused at
// plan (PlanOnly steps: no slice is made), whichever is planned second,
// naming the other slice and the partition and saying what to write
// instead: the same partition listed by both (known or not to the
// cluster), or a sub-slice partition inside the 4x4x4 partition the other
// lists (told from the cluster's partitions). Sub-slices side by side in
// one sub-block plan.
func TestAccTPUSlice_planClaimedTwice(t *testing.T) {
	needSandboxInventory(t, "block-a's sub-block-a1")
	a, b := accName("claims-a"), accName("claims-b")
	const literal = `"0123456789abcdef0123456789abcdef"`
	pools := slicePools("claims", "tpu7x-reservation", "block-a", "sub-block-a1")
	halves := `
data "gke_partitions" "halves" {
  shape      = "2x4x4"
  node_pools = [gke_subblock_node_pool.sub-block-a1.name]
}
`
	whole := "gke_subblock_node_pool.sub-block-a1.partition_id"
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkAllDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config:      accConfig(listedSlice("a", "claims-a", "4x4x4", literal) + listedSlice("b", "claims-b", "4x4x4", literal)),
				PlanOnly:    true,
				ExpectError: claimedTwice(a, b, "a partition joins one slice at a time", "data source gke_partitions with available_only = true", "partition_selector"),
			},
			{Config: accConfig(pools)},
			{
				Config:      accConfig(pools + listedSlice("a", "claims-a", "4x4x4", whole) + listedSlice("b", "claims-b", "4x4x4", whole)),
				PlanOnly:    true,
				ExpectError: claimedTwice(a, b),
			},
			{
				Config:      accConfig(pools + halves + listedSlice("a", "claims-a", "4x4x4", whole) + listedSlice("b", "claims-b", "2x4x4", "data.gke_partitions.halves.ids[0]")),
				PlanOnly:    true,
				ExpectError: claimedTwice(a, b, "through partition", "which overlaps it"),
			},
			{
				Config: accConfig(pools + halves + listedSlice("a", "claims-a", "2x4x4", "data.gke_partitions.halves.ids[0]") +
					listedSlice("b", "claims-b", "2x4x4", "data.gke_partitions.halves.ids[1]")),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
		},
	})
}
