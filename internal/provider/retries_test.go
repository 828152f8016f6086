package provider

import (
	"net"
	"strings"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// subBlocksRead is a data source whose read calls the Compute API at plan.
const subBlocksRead = `
data "gke_reservation_sub_blocks" "a" {
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
}
`

// unavailable answers every GKE and Compute request 503.
var unavailable = sandbox.Faults{Compute: sandbox.APIFaults{Rate503: 1}, Container: sandbox.APIFaults{Rate503: 1}}

// totalRequests is every GKE and Compute request the sandbox served.
func totalRequests() (n int64) {
	for _, v := range accSandbox.RequestCounts() {
		n += v
	}
	return n
}

// With every Google API request answered 503, a plan fails when the
// retry budget of one request (2 minutes) runs out, and says so with the
// last error; before, it retried until Terraform was killed, and then it
// gave up after 8 attempts (some 17 s), which a flaky API defeated.
func TestAccRetries_unavailableAPIGivesUp(t *testing.T) {
	needSandboxControl(t, "a Google API made unavailable")
	cli := cliWorkspace(t, accSandbox.ProviderConfig(), subBlocksRead)
	accFaults(t, unavailable)
	before := totalRequests()
	started := time.Now()
	out, err := cli.run("plan", "-input=false", "-no-color")
	took := time.Since(started)
	if err == nil {
		t.Fatalf("plan succeeded against APIs that answer only 503:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"still failing after", "503 Service Unavailable", "for 2m0s at most", "try again later"} {
		if !strings.Contains(flat, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	// One request of the data source, retried by the provider alone (the
	// Compute client library's own retries are off), for most of its
	// budget: backoffs of at most 10 s make some 20 attempts.
	if sent := totalRequests() - before; sent < 12 {
		t.Errorf("%d requests reached the APIs, want one request retried for its 2 minutes (12 attempts or more)", sent)
	}
	if took < 100*time.Second || took > 150*time.Second {
		t.Errorf("plan failed after %s, want within the 2 minutes of the budget, having used most of it", took)
	}
	t.Logf("plan failed after %s, %d requests", took.Round(100*time.Millisecond), totalRequests()-before)
}

// Ctrl-C (SIGINT to terraform) ends a plan, and an apply, that wait
// between retries: Terraform stops the provider, which cancels the wait.
func TestAccRetries_interruptEndsTheWait(t *testing.T) {
	needSandboxControl(t, "a Google API made unavailable while terraform is interrupted")
	for _, tc := range []struct {
		name, config string
		args         []string
	}{
		{"plan", subBlocksRead, []string{"plan", "-input=false", "-no-color"}},
		{"apply", `
resource "gke_workload_policy" "p" {
  name = "acc-interrupted"
}
`, []string{"apply", "-input=false", "-no-color", "-auto-approve"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cli := cliWorkspace(t, accSandbox.ProviderConfig(), tc.config)
			accFaults(t, unavailable)
			before := totalRequests()
			// Interrupt once the provider is retrying (its second attempt).
			out, took := cli.interruptWhen(func() bool { return totalRequests()-before >= 2 }, tc.args...)
			if !strings.Contains(out, "Interrupt received") {
				t.Errorf("terraform did not see the interrupt:\n%s", out)
			}
			// The retries alone would go on for up to 2 minutes more.
			if took > 10*time.Second {
				t.Errorf("terraform %s took %s to stop after SIGINT: the wait was not cancelled", tc.name, took)
			}
		})
	}
}

// An endpoint that refuses connections fails the plan at once, naming it.
func TestAccRetries_refusedEndpointFailsAtOnce(t *testing.T) {
	needTarget(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	_ = l.Close()
	provider := ""
	if accSandbox != nil {
		i := accSandbox.Info()
		provider = `provider "gke" {
  project            = "` + i.Project + `"
  location           = "` + i.Region + `"
  cluster            = "` + i.Cluster + `"
  access_token       = "` + i.Token + `"
  compute_endpoint   = "` + refused + `"
  container_endpoint = "` + i.GoogleURL + `"
}
`
	} else {
		// The rest of the provider's configuration comes from the
		// environment; the attribute beats GOOGLE_COMPUTE_CUSTOM_ENDPOINT.
		provider = strings.Replace(accProviderConfig(), `provider "gke" {`, `provider "gke" {
  compute_endpoint = "`+refused+`"`, 1)
	}
	cli := cliWorkspace(t, provider, subBlocksRead)
	started := time.Now()
	out, err := cli.run("plan", "-input=false", "-no-color")
	if err == nil {
		t.Fatalf("plan succeeded with a refused Compute endpoint:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"cannot reach http://" + l.Addr().String(), "connection was refused", "check the API endpoint"} {
		if !strings.Contains(flat, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	t.Logf("plan failed after %s", time.Since(started).Round(10*time.Millisecond))
}

// A create the API applied but whose answer was lost (a 503 after the
// fact) is retried, answered 409, and adopted: the policy and the pool are
// in state, there is one of each, and the next plan is empty.
func TestAccRetries_createAppliedThenAnswerLost(t *testing.T) {
	needSandboxControl(t, "answers lost after a create, and the request counts")
	accFaults(t, sandbox.Faults{Compute: sandbox.APIFaults{ApplyThen503: 1}, Container: sandbox.APIFaults{ApplyThen503: 1}})
	before := accSandbox.RequestCounts()
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{{
			Config: poolConfig("acc-lost", "acc-lost", `reservation = "tpu7x-reservation"
  reservation_block = "block-a"
  reservation_sub_block = "sub-block-a2"`),
			ConfigStateChecks: []statecheck.StateCheck{
				poolState("gke_subblock_node_pool.np", "status", knownvalue.StringExact("RUNNING")),
				poolState("gke_subblock_node_pool.np", "partition_state", knownvalue.StringExact("HEALTHY")),
				statecheck.ExpectKnownValue("gke_workload_policy.p", tfjsonpath.New("accelerator_topology_mode"), knownvalue.StringExact("PROVISION_ONLY")),
			},
		}},
	})
	after := accSandbox.RequestCounts()
	for _, k := range []string{"compute POST resourcePolicies", "container POST nodePools"} {
		if n := after[k] - before[k]; n != 2 {
			t.Errorf("%s: %d requests, want 2 (the lost one and its retry)", k, n)
		}
	}
	if f := accSandbox.Faults(); f.Compute.ApplyThen503 != 0 || f.Container.ApplyThen503 != 0 {
		t.Errorf("the faults were not used: %+v", f)
	}
}
