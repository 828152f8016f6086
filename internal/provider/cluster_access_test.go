package provider

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// kubeProviderConfig is the sandbox's provider block with an explicit
// kubernetes block.
func kubeProviderConfig(ca, token string) string {
	i := accSandbox.Info()
	return fmt.Sprintf(`provider "gke" {
  project            = %q
  location           = %q
  cluster            = %q
  access_token       = %q
  compute_endpoint   = %q
  container_endpoint = %q
  kubernetes {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = %q
  }
}
`, i.Project, i.Region, i.Cluster, i.Token, i.GoogleURL, i.GoogleURL, i.KubeHost, ca, token)
}

const accessSlice = `
resource "gke_tpu_slice" "s" {
  name          = "acc-access"
  topology      = "4x4x4"
  partition_ids = ["p-1"]
}
`

// Errors of the Kubernetes API that waiting does not cure show at plan,
// within seconds, as a warning with the cause and what to check (a
// warning, so that terraform destroy is never blocked by them), and fail
// the create with the same words. Before, the plan waited 5 minutes on the
// inventory and then passed silently.
func TestAccClusterAccess_errorsSurfaceAtPlan(t *testing.T) {
	needSandboxControl(t, "Kubernetes API requests the sandbox denies, and the sandbox CA")
	wrongCA, err := sandbox.WrongCAPEM()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, provider string
		deny           map[string]int
		want           []string
	}{
		{"wrong CA", kubeProviderConfig(string(wrongCA), accSandbox.Info().Token), nil,
			[]string{"certificate does not verify", "kubernetes.cluster_ca_certificate"}},
		{"wrong token", kubeProviderConfig(string(accSandbox.CAPEM), "not-the-token"), nil,
			[]string{"did not accept the credentials", "kubernetes.token"}},
		{"nodes forbidden", accSandbox.ProviderConfig(), map[string]int{"nodes": 403},
			[]string{"cannot read the cluster's nodes", "may not list and watch nodes"}},
		{"no Slice API", accSandbox.ProviderConfig(), map[string]int{"slices": 404},
			[]string{"cannot read the cluster's Slices", "does not serve slices.accelerator.gke.io"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cli := cliWorkspace(t, tc.provider, accessSlice)
			accFaults(t, sandbox.Faults{KubeDeny: tc.deny})

			started := time.Now()
			out := cli.must("plan", "-input=false", "-no-color")
			t.Logf("plan took %s", time.Since(started).Round(10*time.Millisecond))
			if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "Warning: Cannot Read the Cluster") || !containsAll(flat, tc.want) {
				t.Errorf("plan does not warn %q:\n%s", tc.want, out)
			}
			out, err := cli.run("apply", "-auto-approve", "-input=false", "-no-color")
			if flat := strings.Join(strings.Fields(out), " "); err == nil || !strings.Contains(flat, "Error: Cannot Read the Cluster") || !containsAll(flat, tc.want) {
				t.Errorf("apply: %v, want it to fail with %q:\n%s", err, tc.want, out)
			}
		})
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// Node pool reads need the nodes only: a cluster that does not serve the
// Slice API still refreshes and plans its pools.
func TestAccClusterAccess_poolReadsDoNotWaitForSlices(t *testing.T) {
	needSandboxControl(t, "the Slice API the sandbox denies")
	config := accConfig(slicePools("acc-noslices", "tpu7x-reservation", "block-a", "sub-block-a4"))
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: config},
			{
				PreConfig: func() { accFaults(t, sandbox.Faults{KubeDeny: map[string]int{"slices": 404}}) },
				Config:    config,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{
				PreConfig: func() { accFaults(t, sandbox.Faults{}) },
				Config:    config,
			},
		},
	})
}
