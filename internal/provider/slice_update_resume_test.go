package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// An update of a slice whose create was interrupted waits for the slice
// within the create timeout, then makes its own change on a context of
// the update timeout that starts after that wait: an update timeout
// shorter than the wait does not end the change.
func TestAccSliceUpdateAfterResumeUsesLiveContext(t *testing.T) {
	needSandboxControl(t, "a slice activation the sandbox delays so that terraform can be interrupted")
	pools := slicePools("updres", "tpu7x-reservation", "block-a", "sub-block-a4")
	cli := cliWorkspace(t, accSandbox.ProviderConfig(), pools)
	apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}
	cli.must(apply...)

	// The slice forms for 20 s; the create is interrupted while it does.
	accFaults(t, sandbox.Faults{SliceActivationDelayMs: 20000})
	slice := func(retry bool, update string) string {
		timeouts := ""
		if update != "" {
			timeouts = "\n  timeouts {\n    update = \"" + update + "\"\n  }"
		}
		r := "false"
		if retry {
			r = "true"
		}
		return accSandbox.ProviderConfig() + pools + `
resource "gke_tpu_slice" "s" {
  name             = "updres"
  topology         = "4x4x4"
  partition_ids    = [gke_subblock_node_pool.sub-block-a4.partition_id]
  retry_on_failure = ` + r + timeouts + `
}
`
	}
	cli.write(slice(false, ""))
	e := accEngine(t)
	out := cli.interruptWhen(func() bool {
		s, err := e.Slices().ReadSlice(context.Background(), "updres")
		return err == nil && s.State == clusterread.SliceActivating
	}, apply...)
	if !strings.Contains(out, "Slice Create Interrupted") {
		t.Fatalf("the interrupted apply did not keep the slice:\n%s", out)
	}

	// The next apply changes retry_on_failure with an update timeout of
	// 1 s, while the slice still forms: the resume waits longer than that.
	cli.write(slice(true, "1s"))
	if s, err := accEngine(t).Slices().ReadSlice(context.Background(), "updres"); err != nil || s.State != clusterread.SliceActivating {
		t.Fatalf("before the resuming apply the slice is %+v (%v), want it still ACTIVATING", s, err)
	}
	if out, err := cli.run(apply...); err != nil {
		t.Fatalf("the apply that resumes the slice and changes retry_on_failure failed: %v\n%s", err, out)
	}
	s, err := accEngine(t).Slices().ReadSlice(context.Background(), "updres")
	if err != nil || s.State != clusterread.SliceActive || !s.RetryOnFailure {
		t.Errorf("after the apply the slice is %+v (%v), want ACTIVE with retry-on-failure", s, err)
	}
	cli.emptyPlan("after the resumed update")
}
