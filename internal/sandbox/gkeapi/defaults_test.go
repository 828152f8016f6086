package gkeapi

import (
	"encoding/json"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	container "google.golang.org/api/container/v1"
)

// decodePool re-encodes a rendered pool into the Go client's NodePool, as
// the client decodes the answer.
func decodePool(t *testing.T, obj map[string]any) *container.NodePool {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := new(container.NodePool)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding into a NodePool: %v", err)
	}
	return out
}

// A client's node config fields win over GKE's defaults, and a management
// it sets replaces the default whole.
func TestGKEPoolDefaultsKeepClientFields(t *testing.T) {
	t.Parallel()
	raw := map[string]any{
		"config":     map[string]any{"machineType": cloud.MachineType, "diskSizeGb": 200},
		"management": map[string]any{"autoUpgrade": true},
	}
	got := decodePool(t, withDefaults(raw, poolDefaults("p", "c")))
	if got.Config.DiskSizeGb != 200 || got.Config.MachineType != cloud.MachineType || got.Config.ImageType != "COS_CONTAINERD" {
		t.Errorf("config %+v: want the client's disk size and machine type with GKE's image type", got.Config)
	}
	if got.Management.AutoRepair || !got.Management.AutoUpgrade {
		t.Errorf("management %+v: want the client's, autoRepair off", got.Management)
	}
	if _, ok := raw["config"].(map[string]any)["imageType"]; ok {
		t.Error("withDefaults changed the pool as the client sent it")
	}
}
