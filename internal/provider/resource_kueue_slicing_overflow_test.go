package provider

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
)

// An imported maximum run duration reads as the configuration writes it,
// so that the plan after an import is empty.
func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{168 * time.Hour: "168h", 90 * time.Minute: "90m", 61 * time.Second: "61s", time.Hour: "1h"} {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestMaxRunDurationValidator(t *testing.T) {
	for value, ok := range map[string]bool{"24h": true, "168h": true, "169h": false, "1.5s": false, "0s": false, "x": false} {
		resp := &validator.StringResponse{}
		maxRunDurationValidator{}.ValidateString(context.Background(), validator.StringRequest{
			Path: path.Root("overflow").AtName("max_run_duration"), ConfigValue: types.StringValue(value)}, resp)
		if resp.Diagnostics.HasError() == ok {
			t.Errorf("%q: errors %v, want ok %v", value, resp.Diagnostics, ok)
		}
	}
}

// The model's overflow becomes the engine's, and an import's overflow
// the model's again.
func TestOverflowRoundTrip(t *testing.T) {
	want := &kueue.KueueOverflow{NodePools: []string{"flex-a"}, Topology: "2x2x2", TPUQuota: 16, MaxRunDuration: 4 * time.Hour, Retries: 2}
	m := kueueSlicingModel{Overflow: overflowValue(want)}
	got := m.overflowSpec(context.Background())
	if got == nil || got.Topology != want.Topology || got.TPUQuota != 16 || got.MaxRunDuration != want.MaxRunDuration || got.Retries != 2 ||
		len(got.NodePools) != 1 || got.NodePools[0] != "flex-a" {
		t.Errorf("round trip %+v, want %+v", got, want)
	}
	if (kueueSlicingModel{Overflow: overflowValue(nil)}).overflowSpec(context.Background()) != nil {
		t.Error("no overflow read as one")
	}
}
