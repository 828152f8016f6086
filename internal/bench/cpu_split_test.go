package bench

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/pprof/profile"
)

// Each sample goes to whose work its stack shows, and the sandbox's are
// left out of the total.
func TestSplitCPU(t *testing.T) {
	t.Parallel()
	fn := map[string]*profile.Function{}
	loc := func(names ...string) []*profile.Location {
		var out []*profile.Location
		for _, n := range names { // leaf first, as in a profile
			if fn[n] == nil {
				fn[n] = &profile.Function{ID: uint64(len(fn) + 1), Name: n}
			}
			out = append(out, &profile.Location{Line: []profile.Line{{Function: fn[n]}}})
		}
		return out
	}
	const (
		rpc       = "github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server.(*server).PlanResourceChange"
		framework = "github.com/hashicorp/terraform-plugin-framework/internal/fwschemadata.(*Data).NullifyCollectionBlocks"
		handler   = "github.com/dynslice/terraform-provider-gke/internal/provider.(*tpuSliceResource).ModifyPlan"
		bench     = "github.com/dynslice/terraform-provider-gke/internal/bench.(*timedServer).PlanResourceChange"
	)
	samples := []struct {
		stack []string
		ms    int64
	}{
		{[]string{"runtime.mapassign_faststr", framework, bench, rpc}, 70},        // the framework, under the bench's timing wrapper only
		{[]string{"runtime.mallocgc", framework, handler, bench, rpc}, 20},        // a framework call the handler makes
		{[]string{"k8s.io/client-go/tools/cache.(*Reflector).watch"}, 5},          // informers
		{[]string{"runtime.scanobject", "runtime.gcBgMarkWorker"}, 4},             // background GC
		{[]string{"google.golang.org/grpc/internal/transport.(*http2Server)"}, 1}, // other
		{[]string{"encoding/json.Unmarshal", "github.com/dynslice/terraform-provider-gke/internal/sandbox.(*gkeAPI).serve"}, 50},
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	var id uint64
	for _, s := range samples {
		locs := loc(s.stack...)
		for _, l := range locs {
			id++
			l.ID = id
			p.Location = append(p.Location, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{1, s.ms * 1_000_000}})
	}
	for _, f := range fn {
		p.Function = append(p.Function, f)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := splitCPU(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := CPUSplit{SampledMs: 100, ProviderMs: 20, FrameworkMs: 70, KubeClientMs: 5, GCMs: 4, OtherMs: 1, SandboxMs: 50}
	if got != want {
		t.Errorf("split = %+v\nwant    %+v", got, want)
	}
	if share := got.FrameworkShare(); math.Abs(share-70.0/90) > 1e-9 {
		t.Errorf("framework share = %v, want 70/90", share)
	}
	if _, err := splitCPU([]byte("not a profile")); err == nil {
		t.Error("a file that is no profile: no error")
	}
}
