package provider

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// retryConfig is a stack whose plan reads the Compute API (a data source).
func retryConfig(providerConfig string) string {
	return `terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}
` + providerConfig + `
data "gke_reservation_sub_blocks" "a" {
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
}
`
}

func retryWorkspace(t *testing.T, providerConfig string) *terraformCLI {
	t.Helper()
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(retryConfig(providerConfig)), 0o600); err != nil {
		t.Fatal(err)
	}
	cli := newTerraformCLI(t, work)
	cli.must("init", "-input=false", "-no-color")
	return cli
}

// With every Google API request answered 503, a plan fails when the
// retries of one request run out (attempts and time are bounded) and says
// so; before, it retried until Terraform was killed.
func TestAccRetries_unavailableAPIGivesUp(t *testing.T) {
	needSandbox(t)
	cli := retryWorkspace(t, accSandbox.ProviderConfig())
	accFaults(t, sandbox.Faults{Compute: sandbox.APIFaults{Rate503: 1}, Container: sandbox.APIFaults{Rate503: 1}})
	before := accSandbox.RequestCounts()
	started := time.Now()
	out, err := cli.run("plan", "-input=false", "-no-color")
	took := time.Since(started)
	if err == nil {
		t.Fatalf("plan succeeded against APIs that answer only 503:\n%s", out)
	}
	for _, want := range []string{"still failing after 8 attempts", "503 Service Unavailable", "try again later"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	// One request of the data source, retried by the provider alone: the
	// Compute client library's own retries are off.
	after := accSandbox.RequestCounts()
	var sent int64
	for k, v := range after {
		sent += v - before[k]
	}
	if sent != 8 {
		t.Errorf("%d requests reached the APIs, want 8 (one request, 8 attempts; the client library adds none): %v", sent, after)
	}
	t.Logf("plan failed after %s", took.Round(100*time.Millisecond))
}

// Ctrl-C (SIGINT to terraform) ends a plan, and an apply, that wait
// between retries: Terraform stops the provider, which cancels the wait.
func TestAccRetries_interruptEndsTheWait(t *testing.T) {
	needSandbox(t)
	for _, tc := range []struct {
		name, config string
		args         []string
	}{
		{"plan", retryConfig(accSandbox.ProviderConfig()), []string{"plan", "-input=false", "-no-color"}},
		{"apply", `terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}
` + accSandbox.ProviderConfig() + `
resource "gke_workload_policy" "p" {
  name = "acc-interrupted"
}
`, []string{"apply", "-input=false", "-no-color", "-auto-approve"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			if err := os.WriteFile(filepath.Join(work, "main.tf"), []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			cli := newTerraformCLI(t, work)
			cli.must("init", "-input=false", "-no-color")
			accFaults(t, sandbox.Faults{Compute: sandbox.APIFaults{Rate503: 1}, Container: sandbox.APIFaults{Rate503: 1}})
			t.Cleanup(func() {
				accSandbox.SetFaults(sandbox.Faults{})
				if out, err := cli.run("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
					t.Errorf("cleanup destroy: %v\n%s", err, out)
				}
			})
			total := func() (n int64) {
				for _, v := range accSandbox.RequestCounts() {
					n += v
				}
				return n
			}
			before := total()

			cmd := exec.Command("terraform", tc.args...)
			cmd.Dir, cmd.Env = cli.dir, cli.env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// Interrupt once the provider is retrying (its second attempt).
			deadline := time.Now().Add(30 * time.Second)
			for total()-before < 2 {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatalf("terraform did not retry within 30s:\n%s", out.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			interrupted := time.Now()
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-done:
				took := time.Since(interrupted)
				if err == nil {
					t.Errorf("the interrupted %s exited 0:\n%s", tc.name, out.String())
				}
				t.Logf("terraform %s exited %s after SIGINT:\n%s", tc.name, took.Round(10*time.Millisecond), out.String())
			case <-time.After(15 * time.Second):
				// The retries alone would end within DefaultMaxElapsed; a
				// command still running 15s after Ctrl-C did not stop its wait.
				_ = cmd.Process.Kill()
				if err := <-done; err != nil {
					t.Logf("killed: %v", err)
				}
				t.Fatalf("terraform %s still ran 15s after SIGINT:\n%s", tc.name, out.String())
			}
			if !strings.Contains(out.String(), "Interrupt received") {
				t.Errorf("terraform did not see the interrupt:\n%s", out.String())
			}
		})
	}
}

// An endpoint that refuses connections fails the plan at once, naming it.
func TestAccRetries_refusedEndpointFailsAtOnce(t *testing.T) {
	needSandbox(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	_ = l.Close()
	i := accSandbox.Info()
	cli := retryWorkspace(t, `provider "gke" {
  project            = "`+i.Project+`"
  location           = "`+i.Region+`"
  cluster            = "`+i.Cluster+`"
  access_token       = "`+i.Token+`"
  compute_endpoint   = "`+refused+`"
  container_endpoint = "`+i.GoogleURL+`"
}
`)
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
	needSandbox(t)
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
