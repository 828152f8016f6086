package cloud

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltInInventories(t *testing.T) {
	t.Parallel()
	def := NewSubBlockStates(DefaultInventory())
	if len(def) != 10 {
		t.Errorf("default inventory: %d sub-blocks, want 10", len(def))
	}
	pod := NewSubBlockStates(PodInventory())
	if len(pod) != 144 {
		t.Fatalf("pod inventory: %d sub-blocks, want 144 (9216 chips)", len(pod))
	}
	ids := map[string]bool{}
	for _, s := range pod {
		if s.Block != pod[0].Block || s.Health() != "HEALTHY" {
			t.Fatalf("pod sub-block %s is in block %s with health %s", s.Name, s.Block, s.Health())
		}
		ids[s.PartitionID()] = true
	}
	if len(ids) != 144 {
		t.Errorf("%d distinct partition IDs, want 144", len(ids))
	}
	for _, s := range def {
		if s.Name == "sub-block-b3" && (s.Hosts[11] != HostUnhealthy || s.Health() != "UNHEALTHY") {
			t.Errorf("sub-block-b3 host 11 = %s, health %s", s.Hosts[11], s.Health())
		}
	}
}

func TestPodsInventory(t *testing.T) {
	t.Parallel()
	inv := PodsInventory(4)
	if err := inv.check(); err != nil {
		t.Fatal(err)
	}
	states := NewSubBlockStates(inv)
	if len(states) != 4*144 {
		t.Fatalf("4 pods: %d sub-blocks, want %d", len(states), 4*144)
	}
	blocks, ids := map[string]int{}, map[string]bool{}
	for _, s := range states {
		blocks[s.Block]++
		ids[s.PartitionID()] = true
	}
	for i := 1; i <= 4; i++ {
		if blocks[PodBlockName(i)] != 144 {
			t.Errorf("block %s: %d sub-blocks, want 144", PodBlockName(i), blocks[PodBlockName(i)])
		}
	}
	if len(ids) != 4*144 {
		t.Errorf("%d distinct partition IDs, want %d", len(ids), 4*144)
	}
	if one := NewSubBlockStates(PodsInventory(1)); len(one) != 144 || one[0].Block != "pod-block" {
		t.Errorf("1 pod: %d sub-blocks, first in block %q", len(one), one[0].Block)
	}
}

func TestLoadInventoryFromFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "inv.yaml")
	if err := os.WriteFile(good, []byte(`project: p
projectNumber: "1"
region: r
zone: r-a
cluster: c
reservations:
  - name: res
    blocks:
      - name: b
        subBlocks:
          - name: s1
            hostHealth: {"0": DEGRADED}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	inv, err := LoadInventory(good)
	if err != nil || NewSubBlockStates(inv)[0].Health() != "DEGRADED" {
		t.Fatalf("LoadInventory: %v", err)
	}
	for name, tc := range map[string]struct{ doc, want string }{
		"missing field": {`project: p`, "is required"},
		"unknown field": {"project: p\nbogus: 1", "unknown field"},
		"bad host":      {"project: p\nprojectNumber: '1'\nregion: r\nzone: z\ncluster: c\nreservations: [{name: r, blocks: [{name: b, subBlocks: [{name: s, hostHealth: {'16': HEALTHY}}]}]}]", `host index "16" is not 0..15`},
		"bad health":    {"project: p\nprojectNumber: '1'\nregion: r\nzone: z\ncluster: c\nreservations: [{name: r, blocks: [{name: b, subBlocks: [{name: s, hostHealth: {'1': SICK}}]}]}]", `health "SICK"`},
		"duplicate":     {"project: p\nprojectNumber: '1'\nregion: r\nzone: z\ncluster: c\nreservations: [{name: r, blocks: [{name: b, subBlocks: [{name: s}, {name: s}]}]}]", "listed twice"},
		"empty":         {"project: p\nprojectNumber: '1'\nregion: r\nzone: z\ncluster: c", "no sub-blocks"},
	} {
		if _, err := ParseInventory([]byte(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
	if _, err := LoadInventory(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Error("a missing file was accepted")
	}
}

// An inventory's maintenance is PENDING or none; a PENDING sub-block starts
// with its maintenance announced, a window ahead.
func TestInventoryMaintenance(t *testing.T) {
	t.Parallel()
	_, err := ParseInventory([]byte("project: p\nprojectNumber: '1'\nregion: r\nzone: z\ncluster: c\nreservations:\n- name: r\n  blocks:\n  - name: b\n    subBlocks:\n    - name: s\n      maintenance: LATER\n"))
	if err == nil {
		t.Fatal("an inventory with maintenance LATER was accepted")
	}
	inv, err := ParseInventory([]byte("project: p\nprojectNumber: '1'\nregion: r\nzone: z\ncluster: c\nreservations:\n- name: r\n  blocks:\n  - name: b\n    subBlocks:\n    - name: s\n      maintenance: PENDING\n"))
	if err != nil {
		t.Fatal(err)
	}
	if st := NewSubBlockStates(inv); st[0].Maint.Status != MaintenancePending || st[0].Maint.WindowStart.IsZero() {
		t.Errorf("state %+v; want maintenance PENDING with a window", st[0].Maint)
	}
}
