package provider

import (
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
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

// shortRetries is a provider whose Google API requests retry for 3 s,
// with backoffs of 20 to 200 ms: the retry logic of production, on a
// budget a test can spend.
var shortRetries = Options{Clients: clients.Options{RetryBudget: 3 * time.Second, RetryInitial: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond}}

// With every Google API request answered 503, a plan fails when the
// retry budget of one request runs out, and says so with the last error
// and the budget; before, it retried until Terraform was killed, and then
// it gave up after 8 attempts (some 17 s), which a flaky API defeated.
// The budget is the provider's option (2 minutes by default): the test
// spends a short one, and counts what happened within it.
func TestAccRetries_unavailableAPIGivesUp(t *testing.T) {
	needSandboxControl(t, "a Google API made unavailable")
	cli := cliWorkspaceWith(t, shortRetries, accSandbox.ProviderConfig(), subBlocksRead)
	accFaults(t, unavailable)
	before := totalRequests()
	out, err := cli.run("plan", "-input=false", "-no-color")
	if err == nil {
		t.Fatalf("plan succeeded against APIs that answer only 503:\n%s", out)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"still failing after", "503 Service Unavailable", "for 3s at most", "try again later"} {
		if !strings.Contains(flat, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	// One request of the data source, retried by the provider alone (the
	// Compute client library's own retries are off): every attempt the
	// error counts reached the API, and there were several.
	m := regexp.MustCompile(`still failing after (\d+) attempts over ([0-9.]+m?s)`).FindStringSubmatch(flat)
	if m == nil {
		t.Fatalf("plan output does not count the attempts:\n%s", out)
	}
	attempts, _ := strconv.Atoi(m[1])
	if sent := totalRequests() - before; sent != int64(attempts) || attempts < 3 {
		t.Errorf("%d requests reached the APIs and the error counts %d attempts: want the same count, and the request retried (3 attempts or more)", sent, attempts)
	}
	// No attempt is left out before the budget's end: the provider gave up
	// only when the next backoff (200 ms at most) would pass it.
	if spent, err := time.ParseDuration(m[2]); err != nil || spent < shortRetries.Clients.RetryBudget-shortRetries.Clients.RetryMax-100*time.Millisecond {
		t.Errorf("gave up after %s of the %s budget (%v), want within one backoff of its end", m[2], shortRetries.Clients.RetryBudget, err)
	}
}

// Ctrl-C (SIGINT to terraform) ends a plan, and an apply, that wait
// between retries: Terraform stops the provider, which cancels the wait.
// The provider is the production one (a 2-minute budget, backoffs up to
// 10 s): were the wait not cancelled, terraform would run on for minutes,
// and the test would fail at interruptWhen's bound; it asserts that no
// request was sent after the interrupt.
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
			var atInterrupt int64
			// Interrupt once the provider is retrying (its second attempt).
			out := cli.interruptWhen(func() bool {
				atInterrupt = totalRequests() - before
				return atInterrupt >= 2
			}, tc.args...)
			if !strings.Contains(out, "Interrupt received") {
				t.Errorf("terraform did not see the interrupt:\n%s", out)
			}
			// The provider's next attempt would come after a backoff of
			// 400 ms or more: one more at most, racing the signal.
			if sent := totalRequests() - before; sent > atInterrupt+1 {
				t.Errorf("%d requests reached the APIs, %d of them after the interrupt: the retries went on", sent, sent-atInterrupt)
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
	// The production budget (2 minutes): a refused connection is not
	// retried, so the plan fails with one attempt.
	cli := cliWorkspace(t, provider, subBlocksRead)
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
	if strings.Contains(flat, "still failing after") {
		t.Errorf("the plan retried a refused connection:\n%s", out)
	}
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
