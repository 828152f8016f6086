package provider

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
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
