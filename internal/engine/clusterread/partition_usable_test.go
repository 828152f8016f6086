package clusterread

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestPartitionUnusable(t *testing.T) {
	t.Parallel()
	healthy := Partition{ID: "p", State: wellknown.PartitionHealthy, Nodes: 16, Ready: 16}
	with := func(f func(*Partition)) Partition { p := healthy; f(&p); return p }
	for name, tc := range map[string]struct {
		p             Partition
		slice         string
		allowDegraded bool
		want          string
	}{
		"healthy":                 {p: healthy},
		"used by another":         {p: with(func(p *Partition) { p.Slice = "other" }), slice: "mine", want: "used by slice other"},
		"used by the same slice":  {p: with(func(p *Partition) { p.Slice = "mine" }), slice: "mine"},
		"degraded, not allowed":   {p: with(func(p *Partition) { p.State = wellknown.PartitionDegraded }), want: "DEGRADED (allow_degraded is false)"},
		"degraded, allowed":       {p: with(func(p *Partition) { p.State = wellknown.PartitionDegraded }), allowDegraded: true},
		"no state":                {p: with(func(p *Partition) { p.State = "" }), want: "without a state label"},
		"unhealthy":               {p: with(func(p *Partition) { p.State = wellknown.PartitionUnhealthy }), allowDegraded: true, want: wellknown.PartitionUnhealthy},
		"a node not Ready":        {p: with(func(p *Partition) { p.Ready = 15 }), want: "nodes not Ready"},
		"used outranks unhealthy": {p: with(func(p *Partition) { p.Slice = "x"; p.State = wellknown.PartitionUnhealthy }), want: "used by slice x"},
	} {
		if got := tc.p.Unusable(tc.slice, tc.allowDegraded); got != tc.want {
			t.Errorf("%s: unusable = %q, want %q", name, got, tc.want)
		}
	}
}
