package slicerules

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// The provider's rules (internal/topology) and the sandbox's (this
// package) are written apart; they must agree on every topology. A
// disagreement is a bug in one of them, and the test names both answers.

// malformed are strings of a wrong form, each a mistake of its own.
var malformed = []string{
	"", " ", "x", "xx", "4x4x", "x4x4", "4xx4", "4x4x4x", "4", "4x4", "4x4x4x4", "2x2x1x1",
	" 4x4x4", "4x4x4 ", "4 x4x4", "4x 4x4", "4x4x4\n", "\t4x4x4",
	"4X4X4", "4x4X4", "2X2X1", "4×4×4", "4x4×4", "4*4*4", "4,4,4", "4-4-4",
	"04x4x4", "4x04x4", "4x4x08", "02x2x1", "00x4x4", "0x4x4", "4x0x4", "4x4x0", "0x0x0",
	"-4x4x4", "4x-4x4", "+4x4x4", "4x+4x4", "4.0x4x4", "4x4x4.0", "1e1x4x4", "0x10x4x4", "ax4x4", "4x4xa", "4x4x4a",
	"4x4x99999999999999999999", "99999999999999999999x4x4", "4x4x18446744073709551620", "4x4x9217", "9217x1x1", "4x4x10000",
	"٤x٤x٤", "4x4x٤", "４x４x４", "4x4x４", "²x2x1", "4x4x𝟒",
}

// enumerate calls f with every ordered triple of positive dimensions of at
// most MaxChips chips (so every permutation of each), and with every
// triple of multiples of 4 of up to four times MaxChips chips. Of the pairs
// (A, B) it takes every workers-th from the worker-th on, so that workers
// can share the enumeration.
func enumerate(worker, workers int, f func(a, b, c int)) {
	pair := 0
	for a := 1; a <= MaxChips; a++ {
		for b := 1; a*b <= MaxChips; b++ {
			if pair++; pair%workers != worker {
				continue
			}
			for c := 1; a*b*c <= MaxChips; c++ {
				f(a, b, c)
			}
		}
	}
	for a := 4; a <= 4*MaxChips; a += 4 {
		for b := 4; a*b <= 4*MaxChips; b += 4 {
			if pair++; pair%workers != worker {
				continue
			}
			for c := 4; a*b*c <= 4*MaxChips; c += 4 {
				if a*b*c > MaxChips {
					f(a, b, c)
				}
			}
		}
	}
}

func TestAgreesWithProviderTopology(t *testing.T) {
	t.Parallel()
	// The enumeration takes a few CPU-seconds, so it is shared among the
	// processors.
	workers := runtime.GOMAXPROCS(0)
	compares, valids := make([]int, workers), make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			enumerate(w, workers, func(a, b, c int) {
				compares[w]++
				if compareRules(t, strconv.Itoa(a)+"x"+strconv.Itoa(b)+"x"+strconv.Itoa(c)) {
					valids[w]++
				}
			})
		})
	}
	wg.Wait()
	compared, valid := sum(compares), sum(valids)
	// Every valid topology is in the enumeration, once.
	if want := validSuperSlices() + len(SubSliceShapes); valid != want {
		t.Errorf("%d valid topologies; want %d super-slices and %d sub-slices", valid, validSuperSlices(), len(SubSliceShapes))
	}
	odd := slices.Clone(malformed)
	for _, d := range []string{"1", "4", "9216", "9217", "9999", "10000"} {
		for _, e := range []string{"1", "4", "9216", "9217"} {
			odd = append(odd, d+"x"+e+"x4", "4x"+d+"x"+e)
		}
	}
	for _, s := range odd {
		compared++
		compareForm(t, s)
		compareRules(t, s)
	}
	t.Logf("%d topologies compared, %d valid in both", compared, valid)
}

func sum(ns []int) int {
	total := 0
	for _, n := range ns {
		total += n
	}
	return total
}

// validSuperSlices counts A ≤ B ≤ C, multiples of 4, of at most 9216 chips.
func validSuperSlices() int {
	n := 0
	for a := 4; a*a*a <= MaxChips; a += 4 {
		for b := a; a*b*b <= MaxChips; b += 4 {
			n += (MaxChips/(a*b))/4 - b/4 + 1
		}
	}
	return n
}

// compareForm reports a disagreement on whether s has the form AxBxC.
func compareForm(t *testing.T, s string) {
	t.Helper()
	pf, perr := topology.Parse(s)
	sf, serr := Parse(s)
	if (perr == nil) != (serr == nil) || (perr == nil && [3]int{pf.A, pf.B, pf.C} != [3]int{sf.A, sf.B, sf.C}) {
		t.Errorf("form of %q: provider %v, %v; sandbox %v, %v", s, pf, errOrValid(perr), sf, errOrValid(serr))
	}
}

// compareRules runs s through both packages' tpu7x rules and reports a
// disagreement; it returns whether both accept s.
func compareRules(t *testing.T, s string) bool {
	t.Helper()
	pt, perr := topology.ParseTPU7x(s)
	st, serr := ParseTPU7x(s)
	if (perr == nil) != (serr == nil) {
		t.Errorf("validity of %q: provider says %v; sandbox says %v", s, errOrValid(perr), errOrValid(serr))
		return false
	}
	if perr != nil {
		return false
	}
	provider := fmt.Sprintf("%s %s: %d chips, %d hosts, %d partitions of %s", pt.String(), pt.Family(), pt.Chips(), pt.Hosts(), pt.Partitions(), pt.PartitionShape())
	sandbox := fmt.Sprintf("%s %s: %d chips, %d hosts, %d partitions of %s", st.String(), st.Family(), st.Chips(), st.Hosts(), st.Partitions(), st.PartitionShape())
	if provider != sandbox || pt.SubSlice() != st.SubSlice() {
		t.Errorf("%q: provider %s (sub-slice %v); sandbox %s (sub-slice %v)", s, provider, pt.SubSlice(), sandbox, st.SubSlice())
	}
	comparePartitionIDs(t, pt, st)
	return true
}

func errOrValid(err error) string {
	if err == nil {
		return "valid"
	}
	return err.Error()
}

// comparePartitionIDs checks that both packages take exactly the
// partition count of a valid topology, and refuse one ID fewer or more,
// a blank and a repeated one.
func comparePartitionIDs(t *testing.T, pt topology.Topology, st Topology) {
	t.Helper()
	n := st.Partitions()
	ids := make([]string, n+1)
	for i := range ids {
		ids[i] = "p" + strconv.Itoa(i)
	}
	lists := [][]string{ids[:n], ids[:n-1], ids, append(slices.Clone(ids[:n-1]), " "), append(slices.Clone(ids[:n-1]), ids[0])}
	for _, l := range lists {
		perr, serr := pt.CheckPartitionIDs(l), st.CheckPartitionIDs(l)
		if (perr == nil) != (serr == nil) {
			t.Errorf("%s with partitions %q: provider says %v; sandbox says %v", st, l, errOrValid(perr), errOrValid(serr))
		}
	}
}

// The shape table and the tpu7x figures agree with the provider's.
func TestShapesAgreeWithProviderTopology(t *testing.T) {
	t.Parallel()
	if !slices.Equal(PartitionShapes, topology.PartitionShapes) || !slices.Equal(SubSliceShapes, topology.SubSliceShapes) {
		t.Errorf("shapes: provider %v, sub-slices %v; sandbox %v, sub-slices %v", topology.PartitionShapes, topology.SubSliceShapes, PartitionShapes, SubSliceShapes)
	}
	figures := []struct {
		name              string
		provider, sandbox any
	}{
		{"slice type", topology.SliceType, SliceType},
		{"sub-block shape", topology.PartitionTopology, SubBlockShape},
		{"dimension multiple", topology.DimensionMultiple, DimensionMultiple},
		{"max chips", topology.MaxChips, MaxChips},
		{"chips per partition", topology.ChipsPerPartition, ChipsPerPartition},
		{"chips per host", topology.ChipsPerHost, ChipsPerHost},
		{"hosts per sub-block", topology.HostsPerPartition, HostsPerSubBlock},
	}
	for _, f := range figures {
		if f.provider != f.sandbox {
			t.Errorf("%s: provider %v; sandbox %v", f.name, f.provider, f.sandbox)
		}
	}
	names := append(slices.Clone(PartitionShapes), "", "4x4x8", "4x2x2", "1x2x2", "2x2x3", "2X2X1")
	for _, shape := range names {
		if p, s := topology.HostsOfShape(shape), HostsOfShape(shape); p != s {
			t.Errorf("hosts of %q: provider %d; sandbox %d", shape, p, s)
		}
		if p, s := topology.PartitionsPerSubBlock(shape), PartitionsPerSubBlock(shape); p != s {
			t.Errorf("%q per sub-block: provider %d; sandbox %d", shape, p, s)
		}
		if topology.PartitionIDLabel(shape) != PartitionIDLabel(shape) || topology.PartitionStateLabel(shape) != PartitionStateLabel(shape) {
			t.Errorf("labels of %q: provider %s, %s; sandbox %s, %s", shape,
				topology.PartitionIDLabel(shape), topology.PartitionStateLabel(shape), PartitionIDLabel(shape), PartitionStateLabel(shape))
		}
		for h := -1; h <= HostsPerSubBlock; h++ {
			if p, s := topology.SubPartitionIndex(h, shape), SubPartitionIndex(h, shape); p != s {
				t.Errorf("host %d in a %q: provider partition %d; sandbox %d", h, shape, p, s)
			}
		}
	}
}
