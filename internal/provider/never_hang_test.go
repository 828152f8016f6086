package provider

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// refusedKubeHost is a Kubernetes host where nothing listens: every
// connection to it is refused.
func refusedKubeHost(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := "https://" + l.Addr().String()
	_ = l.Close()
	return host
}

// A Kubernetes host that refuses connections ends a slice's plan at once
// with a warning naming the host and the refusal, and its apply with the
// same words as an error. Before, the plan waited the whole first-list
// bound (60 s) and warned that the list "did not finish", and the apply
// took 120 s.
func TestAccNeverHang_refusedKubeHostFailsAtOnce(t *testing.T) {
	needSandboxControl(t, "the sandbox's CA for a kubernetes block")
	host := refusedKubeHost(t)
	i := accSandbox.Info()
	provider := strings.Replace(kubeProviderConfig(string(accSandbox.CAPEM), i.Token), fmt.Sprintf("%q", i.KubeHost), fmt.Sprintf("%q", host), 1)
	cli := cliWorkspace(t, provider, accessSlice)
	want := []string{"cannot read the cluster's", "at " + host, "connection refused", "check kubernetes.host"}

	started := time.Now()
	out := cli.must("plan", "-input=false", "-no-color")
	t.Logf("plan took %s", time.Since(started).Round(10*time.Millisecond))
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, "Warning: Cannot Read the Cluster") || !containsAll(flat, want) {
		t.Errorf("plan does not warn %q:\n%s", want, out)
	}
	if strings.Contains(flat, "did not finish") {
		t.Errorf("plan waited for the first list's bound on a refused host:\n%s", out)
	}

	started = time.Now()
	out, err := cli.run("apply", "-auto-approve", "-input=false", "-no-color")
	t.Logf("apply took %s", time.Since(started).Round(10*time.Millisecond))
	flat = strings.Join(strings.Fields(out), " ")
	if err == nil || !strings.Contains(flat, "Error: Cannot Read the Cluster") || !containsAll(flat, want) || strings.Contains(flat, "did not finish") {
		t.Errorf("apply: %v, want it to fail with %q at once:\n%s", err, want, out)
	}
}

// A Kubernetes API server that dies while a create waits for its Slice to
// form (the slice ACTIVATING) ends the create, well within its timeout,
// with an error naming the host and the cause; the Slice stays in the
// state. The sandbox's proxy answers for the dead server as a load
// balancer may: 502, or a reset. Before, the wait reconnected every
// second until the create timeout and then said only that it "gave up"
// waiting for the slice.
//
// The watch failure limit is the provider's option (45 s by default): the
// test gives it 3 s, as shortWatchFailures.
func TestAccNeverHang_apiServerDiesWhileASliceForms(t *testing.T) {
	needSandboxControl(t, "a Kubernetes API server that dies while a slice forms")
	for _, tc := range []struct{ down, subBlock string }{{"bad-gateway", "sub-block-a3"}, {"reset", "sub-block-a4"}} {
		t.Run(tc.down, func(t *testing.T) {
			name := accName("hang-" + tc.down)
			cli := cliWorkspaceWith(t, shortWatchFailures, accSandbox.ProviderConfig(), slicePools("hang-"+tc.down, "tpu7x-reservation", "block-a", tc.subBlock)+fmt.Sprintf(`
resource "gke_tpu_slice" "s" {
  name          = %q
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.%s.partition_id]
  timeouts {
    create = "5m"
  }
}
`, name, tc.subBlock))
			apply := []string{"apply", "-auto-approve", "-input=false", "-no-color"}
			cli.must(append(apply, "-target=gke_subblock_node_pool."+tc.subBlock)...)
			forming := sandbox.Faults{SliceActivationDelayMs: 600_000}
			accFaults(t, forming)
			e := accEngine(t)
			run := cli.startUntil(func() bool {
				s, err := e.Slices().ReadSlice(context.Background(), name)
				return err == nil && s.State == clusterread.SliceActivating
			}, "cut off from its API server", apply...)
			forming.KubeDown = tc.down
			accFaults(t, forming)
			var err error
			end, stopEnd := testsupport.NearTimeout(t)
			defer stopEnd()
			select {
			case err = <-run.done:
			case <-end:
				_ = run.cmd.Process.Kill()
				t.Fatalf("apply still waited after the API server died, when the test binary's -timeout was near:\n%s", run.out.String())
			}
			out := run.out.String()
			flat := strings.Join(strings.Fields(out), " ")
			if i := strings.Index(flat, "Error: "); i >= 0 {
				t.Logf("apply's error: %s", flat[i:])
			}
			want := []string{"Error: Cannot Read the Cluster", "cannot read the cluster's Slices at " + accSandbox.Info().KubeHost,
				"stopped answering", "waiting for slice " + name + " to become ACTIVE (its last state was ", "stays in the state"}
			if err == nil || !containsAll(flat, want) {
				t.Errorf("apply: %v, want it to fail with %q:\n%s", err, want, out)
			}
			accFaults(t, sandbox.Faults{})
			show := cli.must("state", "show", "-no-color", "gke_tpu_slice.s")
			if !strings.Contains(show, name) {
				t.Errorf("the Slice is not in the state after the failed wait:\n%s", show)
			}
			t.Logf("in the state; tainted: %v", strings.Contains(show, "(tainted)"))
		})
	}
}

// shortWatchFailures is a provider whose Slice waits give up once their
// lists and watches have failed for 3 s (45 s in production), probing
// every 300 ms.
var shortWatchFailures = Options{Engine: engine.Options{WatchFailLimit: 3 * time.Second, WatchProbeEvery: 300 * time.Millisecond}}
