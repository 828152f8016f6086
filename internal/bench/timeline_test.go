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
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	at := func(msec int) time.Time { return t0.Add(time.Duration(msec) * time.Millisecond) }
	spans := []span{
		{rpc: "ReadResource a", start: at(30), end: at(40)},
		{rpc: "ConfigureProvider", start: at(10), end: at(20)},
		{rpc: "ReadResource a", start: at(25), end: at(50)},
		{rpc: "PlanResourceChange a", start: at(45), end: at(60)},
	}
	want := []RPCPhase{
		{RPC: "ConfigureProvider", Calls: 1, StartMs: 10, EndMs: 20, BusyMs: 10},
		{RPC: "ReadResource a", Calls: 2, StartMs: 25, EndMs: 50, BusyMs: 35},
		{RPC: "PlanResourceChange a", Calls: 1, StartMs: 45, EndMs: 60, BusyMs: 15},
	}
	if got := phases(spans, t0); !reflect.DeepEqual(got, want) {
		t.Fatalf("phases:\n got %+v\nwant %+v", got, want)
	}
	if got := phases(nil, t0); len(got) != 0 {
		t.Fatalf("phases of no spans: %+v", got)
	}
}

func TestWritePhases(t *testing.T) {
	var out bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&out, format, args...) }
	writePhases(w, PlanProfile{WallMs: 2000})
	if out.Len() != 0 {
		t.Fatalf("a profile without phases wrote %q", out.String())
	}
	writePhases(w, PlanProfile{WallMs: 2000, Phases: []RPCPhase{
		{RPC: "ReadDataSource gke_reservation_sub_blocks", Calls: 1, StartMs: 100, EndMs: 420, BusyMs: 320},
		{RPC: "ReadResource gke_subblock_node_pool", Calls: 144, StartMs: 560, EndMs: 1750, BusyMs: 508.4},
	}})
	for _, want := range []string{
		"| `ReadDataSource gke_reservation_sub_blocks` | 1 | 100 | 420 | 320 ms |",
		"| `ReadResource gke_subblock_node_pool` | 144 | 560 | 1750 | 508 ms |",
		"from `gke_reservation_sub_blocks`, so every pool and slice waits for its read: 320 ms, 16% of the plan's wall time.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("phases lack %q:\n%s", want, out.String())
		}
	}
}
