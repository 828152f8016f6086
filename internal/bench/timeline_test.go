package bench

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPhases(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	at := func(msec int) time.Time { return t0.Add(time.Duration(msec) * time.Millisecond) }
	spans := []span{
		{rpc: "ReadResource a", start: at(30), end: at(40)},
		{rpc: "ConfigureProvider", start: at(10), end: at(20)},
		{rpc: "ReadResource a", start: at(25), end: at(50)},
		{rpc: "PlanResourceChange a", start: at(45), end: at(60)},
	}
	want := []RPCPhase{
		{RPC: "ConfigureProvider", Calls: 1, StartMs: 10, EndMs: 20, BusyMs: 10, FirstCallMs: 10},
		{RPC: "ReadResource a", Calls: 2, StartMs: 25, EndMs: 50, BusyMs: 35, FirstCallMs: 25}, // the call from 25 to 50 began first
		{RPC: "PlanResourceChange a", Calls: 1, StartMs: 45, EndMs: 60, BusyMs: 15, FirstCallMs: 15},
	}
	if got := phases(spans, t0); !reflect.DeepEqual(got, want) {
		t.Fatalf("phases:\n got %+v\nwant %+v", got, want)
	}
	if got := phases(nil, t0); len(got) != 0 {
		t.Fatalf("phases of no spans: %+v", got)
	}
}

func TestWritePhases(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&out, format, args...) }
	writePhases(w, PlanProfile{WallMs: 2000})
	if out.Len() != 0 {
		t.Fatalf("a profile without phases wrote %q", out.String())
	}
	writePhases(w, PlanProfile{WallMs: 2000, Phases: []RPCPhase{
		{RPC: "ReadDataSource gke_reservation_sub_blocks", Calls: 1, StartMs: 100, EndMs: 140, BusyMs: 40, FirstCallMs: 40},
		{RPC: "ReadResource gke_subblock_node_pool", Calls: 144, StartMs: 360, EndMs: 1750, BusyMs: 508.4, FirstCallMs: 151.2},
		{RPC: "ReadResource gke_tpu_slice", Calls: 36, StartMs: 1760, EndMs: 1900, BusyMs: 90, FirstCallMs: 3},
	}})
	for _, want := range []string{
		"| `ReadDataSource gke_reservation_sub_blocks` | 1 | 100 | 140 | 40 ms |",
		"| `ReadResource gke_subblock_node_pool` | 144 | 360 | 1750 | 508 ms |",
		"from `gke_reservation_sub_blocks`, so every pool and slice waits for its read: 40 ms, 2% of the plan's wall time.",
		"The first `gke_subblock_node_pool` read took 151 ms",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("phases lack %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "The first `gke_tpu_slice` read") {
		t.Errorf("phases speak of the first slice read, which waits for nothing:\n%s", out.String())
	}
}
