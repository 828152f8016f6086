package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// ProviderHeap is where the provider's memory at the largest fleet goes:
// the provider served in this process (as for the profiled plan) plans the
// stack once, and this process's heap is read after a garbage collection
// before and after. What the plan left in use is the provider's caches (its
// informers' nodes and Slices) and whatever the sandbox, in the same
// process, grew meanwhile; the sites leave out allocations under the
// sandbox's own functions.
type ProviderHeap struct {
	Pools int `json:"pools"`
	Nodes int `json:"nodes"`
	// BeforeMiB and AfterMiB are the heap in use (runtime.MemStats.HeapInuse)
	// after a GC, before and after the plan.
	BeforeMiB float64 `json:"beforeMiB"`
	AfterMiB  float64 `json:"afterMiB"`
	// Sites are the largest growths of in-use memory (inuse_space of the
	// heap profile, after less before) by the allocating function.
	Sites []HeapSite `json:"sites"`
	// WallMs is the in-process plan's wall time, and CPU where the CPU of
	// the provider's side of it went (as PlanProfile.CPU).
	WallMs float64   `json:"wallMs"`
	CPU    *CPUSplit `json:"cpu,omitempty"`
}

// HeapSite is the in-use memory one function allocated.
type HeapSite struct {
	Function string  `json:"function"`
	MiB      float64 `json:"mib"`
}

// heapSites is how many sites ProviderHeap keeps.
const heapSites = 8

// providerHeap plans the stack (vars v) once with the provider served in
// this process and reads the heap before and after; with memProfile set,
// it writes the heap profile after the plan there.
func (m *meter) providerHeap(ctx context.Context, p ScalePoint, v []string, memProfile string) (*ProviderHeap, error) {
	setEnv(m.sb.Env())
	reattach, _, stop, err := inProcess(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	out := &ProviderHeap{Pools: p.Pools, Nodes: p.Nodes}
	var before, after bytes.Buffer
	out.BeforeMiB = heapInUse(&before)
	var cpu bytes.Buffer
	if err := pprof.StartCPUProfile(&cpu); err != nil {
		return nil, err
	}
	took, err := m.ws.terraform(ctx, []string{"TF_REATTACH_PROVIDERS=" + reattach}, planFlags(v...)...)
	pprof.StopCPUProfile()
	if err != nil {
		return nil, fmt.Errorf("in-process plan of %d pools: %w", p.Pools, err)
	}
	out.WallMs = ms(took)
	split, err := splitCPU(cpu.Bytes())
	if err != nil {
		return nil, err
	}
	out.CPU = &split
	out.AfterMiB = heapInUse(&after)
	if memProfile != "" {
		if err := os.WriteFile(memProfile, after.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	out.Sites, err = heapGrowth(before.Bytes(), after.Bytes())
	return out, err
}

// heapInUse collects garbage, writes the heap profile to w and returns the
// heap in use in MiB.
func heapInUse(w *bytes.Buffer) float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	_ = pprof.Lookup("heap").WriteTo(w, 0)
	return mib(int64(ms.HeapInuse) / 1024)
}

// heapGrowth is the growth of in-use space by allocating function from
// the profile before to the one after, largest first, leaving out the
// sandbox's allocations.
func heapGrowth(before, after []byte) ([]HeapSite, error) {
	a, err := inUseByFunction(before)
	if err != nil {
		return nil, err
	}
	b, err := inUseByFunction(after)
	if err != nil {
		return nil, err
	}
	var sites []HeapSite
	for fn, n := range b {
		if d := n - a[fn]; d > 0 {
			sites = append(sites, HeapSite{Function: fn, MiB: mib(d / 1024)})
		}
	}
	sort.Slice(sites, func(i, j int) bool { return sites[i].MiB > sites[j].MiB })
	return sites[:min(len(sites), heapSites)], nil
}

// inUseByFunction sums a heap profile's in-use bytes by the allocating
// function (leafFunction), but for samples under the sandbox.
func inUseByFunction(data []byte) (map[string]int64, error) {
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading the heap profile: %w", err)
	}
	idx := -1
	for i, st := range p.SampleType {
		if st.Type == "inuse_space" {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("the heap profile has no inuse_space")
	}
	out := map[string]int64{}
	for _, s := range p.Sample {
		if len(s.Location) == 0 || underSandbox(s) {
			continue
		}
		out[leafFunction(s)] += s.Value[idx]
	}
	return out, nil
}

func underSandbox(s *profile.Sample) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil && strings.HasPrefix(line.Function.Name, ownPackages+"sandbox") {
				return true
			}
		}
	}
	return false
}

// leafFunction is the sample's innermost function outside the standard
// library (whose path has no dot in its first element: the allocators,
// reflect, encoding/json), so that the site says whose allocation it is;
// the innermost one when all are the standard library's.
func leafFunction(s *profile.Sample) string {
	leaf := ""
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			name := line.Function.Name
			if leaf == "" {
				leaf = name
			}
			if !standardLibrary(name) {
				return name
			}
		}
	}
	if leaf == "" {
		return "?"
	}
	return leaf
}

// standardLibrary says whether a function is the standard library's: the
// first element of its import path has no dot (bytes.Repeat,
// encoding/json.Unmarshal; not k8s.io/... or github.com/...).
func standardLibrary(function string) bool {
	first, _, slash := strings.Cut(function, "/")
	if !slash {
		return true // a package of one element, then .Function
	}
	return !strings.Contains(first, ".")
}
