package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

var _ provider.ProviderWithActions = (*GKEProvider)(nil)

// actionCLI runs the Terraform CLI of the tests (TF_ACC_TERRAFORM_PATH,
// Terraform 1.14 or later for actions) in a workspace of its own, with
// the provider from the mirror: terraform-plugin-testing cannot run
// `terraform apply -invoke`, and cli_test.go's runs use the terraform on
// PATH.
type actionCLI struct {
	*terraformCLI
	bin string
}

// actionWorkspace is a new, initialized workspace holding config (written
// with the default inventory's names), whose objects are destroyed when
// the test ends.
func actionWorkspace(t *testing.T, config string) *actionCLI {
	t.Helper()
	dir := t.TempDir()
	c := &actionCLI{terraformCLI: newTerraformCLI(t, dir), bin: testTerraformCLI(t).Path}
	c.write(accProviderConfig() + accTarget.translate(config))
	c.must("init", "-input=false", "-no-color")
	t.Cleanup(func() {
		left := c.pulledState()
		if out, err := c.run("destroy", "-auto-approve", "-input=false", "-no-color"); err != nil {
			t.Errorf("cleanup destroy: %v\n%s", err, out)
			return
		}
		if err := checkSlicesDestroyed(t)(left); err != nil {
			t.Errorf("after the cleanup destroy: %v", err)
		}
	})
	return c
}

func (c *actionCLI) run(args ...string) (string, error) {
	cmd := exec.Command(c.bin, args...)
	cmd.Dir, cmd.Env = c.dir, c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func (c *actionCLI) must(args ...string) string {
	c.t.Helper()
	out, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// pulledState is the workspace's state (`terraform state pull`), as the
// CheckDestroy functions read it: each managed resource's type, ID and
// string attributes.
func (c *actionCLI) pulledState() *terraform.State {
	c.t.Helper()
	root := &terraform.ModuleState{Path: []string{"root"}, Resources: map[string]*terraform.ResourceState{}}
	st := &terraform.State{Modules: []*terraform.ModuleState{root}}
	out, err := c.run("state", "pull")
	if err != nil || strings.TrimSpace(out) == "" {
		return st
	}
	var pulled struct {
		Resources []struct {
			Mode, Type, Name string
			Instances        []struct {
				Attributes map[string]any `json:"attributes"`
			} `json:"instances"`
		} `json:"resources"`
	}
	if err := json.Unmarshal([]byte(out), &pulled); err != nil {
		c.t.Errorf("terraform state pull: %v", err)
		return st
	}
	for _, r := range pulled.Resources {
		if r.Mode != "managed" {
			continue
		}
		for _, in := range r.Instances {
			attrs := map[string]string{}
			for k, v := range in.Attributes {
				if s, ok := v.(string); ok {
					attrs[k] = s
				}
			}
			root.Resources[r.Type+"."+r.Name] = &terraform.ResourceState{Type: r.Type, Primary: &terraform.InstanceState{ID: attrs["id"], Attributes: attrs}}
		}
	}
	return st
}

// logRequestDelta logs the API requests made between two counts (for the
// figures of the day-2 guide; not asserted).
func logRequestDelta(t *testing.T, what string, before, after map[string]int64) {
	t.Helper()
	var parts []string
	for k, v := range after {
		if d := v - before[k]; d > 0 {
			parts = append(parts, k+": "+strconv.FormatInt(d, 10))
		}
	}
	sort.Strings(parts)
	t.Logf("requests of %s: %s", what, strings.Join(parts, ", "))
}

// wantOutput fails the test unless out says each of texts.
func wantOutput(t *testing.T, what, out string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(out, s) {
			t.Errorf("%s does not say %q:\n%s", what, s, out)
		}
	}
}

// awaitMaintenance waits until the sandbox reports a sub-block's
// maintenance as status ("" when done), for at most 60 s.
func awaitMaintenance(t *testing.T, subBlock, status string) {
	t.Helper()
	testsupport.Poll(t, 60*time.Second, 200*time.Millisecond, fmt.Sprintf("the maintenance of %s to be %q", subBlock, status), func() (bool, string, error) {
		got := accSandbox.MaintenanceOf("tpu7x-reservation", "block-a", subBlock)
		return got == status, fmt.Sprintf("maintenance of %s is %q, never %q", subBlock, got, status), nil
	})
}

const maintenanceConfig = `
variable "drain" {
  type    = bool
  default = false
}

resource "gke_workload_policy" "p" {
  name = "mnt-policy"
}

resource "gke_subblock_node_pool" "a4" {
  name                  = "mnt-pool"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a4"
}

resource "gke_tpu_slice" "s" {
  name     = "mnt-slice"
  topology = "4x4x4"
  partition_selector {
    node_pools = [gke_subblock_node_pool.a4.name]
  }
}

data "gke_reservation_sub_blocks" "a" {
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
  depends_on        = [gke_tpu_slice.s]
}

output "a4_maintenance" {
  value = [for s in data.gke_reservation_sub_blocks.a.sub_blocks : s.maintenance_status if s.name == "sub-block-a4"][0]
}

action "gke_perform_maintenance" "a4" {
  config {
    zone              = "us-central1-a"
    reservation       = "tpu7x-reservation"
    reservation_block = "block-a"
    sub_block         = "sub-block-a4"
    drain             = var.drain
    timeout           = "10m"
  }
}
`

// Maintenance announced on a sub-block that a pool and a slice use: the
// data source reports it, the plan warns about the slice, the action
// refuses it without drain, and with drain deletes the slice and the
// pool (its progress in Terraform's output) and starts it; once it is
// done the next apply recreates them.
func TestAccActionPerformMaintenance(t *testing.T) {
	skipUnlessTerraform(t, "1.14.0", "actions and terraform apply -invoke")
	needSandboxControl(t, "announces maintenance on a sub-block and times it")
	accFaults(t, sandbox.Faults{MaintenanceMs: 3000})
	ctx := context.Background()
	names := accNames("mnt-policy", "mnt-pool", "mnt-slice")
	c := actionWorkspace(t, names.Replace(maintenanceConfig))
	if err := accSandbox.SetMaintenance(ctx, "tpu7x-reservation", "block-a", "sub-block-a4", sandbox.MaintenancePending); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = accSandbox.SetMaintenance(ctx, "tpu7x-reservation", "block-a", "sub-block-a4", "") })

	out := c.must("apply", "-auto-approve", "-input=false", "-no-color")
	wantOutput(t, "the first apply", out, `a4_maintenance = "PENDING"`)
	// Announced again now that the pool's nodes exist, they carry GKE's
	// label of the planned maintenance.
	if err := accSandbox.SetMaintenance(ctx, "tpu7x-reservation", "block-a", "sub-block-a4", sandbox.MaintenancePending); err != nil {
		t.Fatal(err)
	}
	if n, err := accNodeCount(t, sandbox.LabelScheduledMaintenanceTime+",cloud.google.com/gke-nodepool="+accName("mnt-pool")); err != nil || n != sandbox.HostsPerSubBlock {
		t.Errorf("%d nodes of the pool carry %s (%v), want %d", n, sandbox.LabelScheduledMaintenanceTime, err, sandbox.HostsPerSubBlock)
	}
	before := accSandbox.RequestCounts()
	out = c.must("plan", "-input=false", "-no-color")
	logRequestDelta(t, "the plan with the maintenance warning", before, accSandbox.RequestCounts())
	wantOutput(t, "a plan of the slice", out, "Maintenance on the Slice's Sub-Blocks", "tpu7x-reservation/block-a/sub-block-a4: maintenance PENDING")

	out, err := c.run("apply", "-auto-approve", "-input=false", "-no-color", "-invoke=action.gke_perform_maintenance.a4")
	if err == nil {
		t.Fatalf("maintenance of a sub-block in use was started without drain:\n%s", out)
	}
	wantOutput(t, "the refused action", out, "Maintenance Refused: Sub-Blocks in Use", "slice(s) "+accName("mnt-slice"), "node pool "+accName("mnt-pool"), "drain = true")
	if got := accSandbox.MaintenanceOf("tpu7x-reservation", "block-a", "sub-block-a4"); got != sandbox.MaintenancePending {
		t.Fatalf("after the refusal maintenance is %q, want PENDING", got)
	}

	out = c.must("apply", "-auto-approve", "-input=false", "-no-color", "-var=drain=true", "-invoke=action.gke_perform_maintenance.a4")
	wantOutput(t, "the drain", out, "Drain: deleting slice "+accName("mnt-slice"), "Drain: deleting node pool "+accName("mnt-pool"),
		"Starting maintenance of reservation sub-block tpu7x-reservation/block-a/sub-block-a4", "Drained for Maintenance")
	if n, err := accNodeCount(t, "cloud.google.com/gke-nodepool="+accName("mnt-pool")); err != nil || n != 0 {
		t.Errorf("after the drain the pool has %d nodes (%v)", n, err)
	}
	awaitMaintenance(t, "sub-block-a4", "")

	out, err = c.run("plan", "-detailed-exitcode", "-input=false", "-no-color")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("after the drain the plan has no changes (%v):\n%s", err, out)
	}
	wantOutput(t, "the plan after the drain", out, "gke_subblock_node_pool.a4 will be created", "gke_tpu_slice.s will be created")
	out = c.must("apply", "-auto-approve", "-input=false", "-no-color")
	wantOutput(t, "the apply after the maintenance", out, `a4_maintenance = "NONE"`)
}

// Terraform before 1.14 (here the terraform on PATH, 1.11 in CI) and
// OpenTofu refuse an action block: what they say is what the docs tell
// users to expect.
func TestAccActionOldTerraform(t *testing.T) {
	needTarget(t)
	bin, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("no terraform on PATH")
	}
	v, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := parseTFVersion(string(v))
	if err != nil {
		t.Fatal(err)
	}
	if cli.atLeast([3]int{1, 14, 0}) {
		t.Skipf("the terraform on PATH (%s) has actions", cli.Raw)
	}
	dir := t.TempDir()
	c := newTerraformCLI(t, dir)
	c.write(accProviderConfig() + `
action "gke_report_faulty" "x" {
  config {
    instance      = "vm-1"
    fault_reasons = [{ behavior = "CHIP_ERROR" }]
  }
}
`)
	out, err := c.run("init", "-input=false", "-no-color")
	if err == nil {
		out, err = c.run("validate", "-no-color")
	}
	if err == nil {
		t.Fatalf("Terraform %s took an action block:\n%s", cli.Raw, out)
	}
	wantOutput(t, "Terraform "+cli.Raw, out, `Unsupported block type`, `Blocks of type "action" are not expected here`)
}

// The actions' configurations are checked at plan, with messages that say
// what to write instead.
func TestAccActionValidation(t *testing.T) {
	skipUnlessTerraform(t, "1.14", "actions")
	needTarget(t)
	step := func(action, want string) tfresource.TestStep {
		parts := strings.SplitN(action, "\n", 2)
		typ, body := parts[0], "\n"+parts[1]
		return tfresource.TestStep{
			Config: accConfig(`
resource "terraform_data" "t" {
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.` + typ + `.x]
    }
  }
}
action "` + typ + `" "x" {
  config {` + body + `
  }
}
`),
			PlanOnly:    true,
			ExpectError: regexp.MustCompile(want),
		}
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{
			step(`gke_report_faulty
    sub_block = "sub-block-a1"
    instance  = "vm-1"
    fault_reasons = [{ behavior = "PERFORMANCE" }]`, `Conflicting Fault Targets`),
			step(`gke_report_faulty
    fault_reasons = [{ behavior = "PERFORMANCE" }]`, `Missing Fault Target`),
			step(`gke_report_faulty
    sub_block     = "sub-block-a1"
    fault_reasons = [{ behavior = "PERFORMANCE" }]`, `sub_block needs reservation`),
			step(`gke_report_faulty
    instance      = "vm-1"
    fault_reasons = [{ behavior = "GPU_ERROR" }]`, `behavior "GPU_ERROR" is not one the Compute API takes for a host`),
			step(`gke_report_faulty
    instance          = "vm-1"
    failure_component = "NVLINK_SWITCH"
    fault_reasons     = [{ behavior = "CHIP_ERROR" }]`, `failure_component applies to a sub-block report`),
			step(`gke_report_faulty
    reservation         = "tpu7x-reservation"
    reservation_block   = "block-a"
    sub_block           = "sub-block-a1"
    disruption_schedule = "FUTURE"
    fault_reasons       = [{ behavior = "PERFORMANCE" }]`, `write "IMMEDIATE"`),
			step(`gke_report_faulty
    instance      = "vm-1"
    fault_reasons = []`, `fault_reasons needs at least one`),
			step(`gke_perform_maintenance
    reservation       = "tpu7x-reservation"
    reservation_block = "tpu7x-reservation/reservationBlocks/block-a"`, `must be a\s+plain name`),
			step(`gke_perform_maintenance
    reservation       = "tpu7x-reservation"
    reservation_block = "block-a"
    timeout           = "soon"`, `Invalid Duration`),
		},
	})
}

// needHostReports is what a test that reports hosts of a sub-block of
// tpu7x-reservation as faulty needs: Terraform 1.14's actions, the
// sandbox's control, reported hosts that stay unhealthy (no repair of the
// sandbox's own), and every host of the sub-block repaired when it ends.
func needHostReports(t *testing.T, block, subBlock string) {
	t.Helper()
	skipUnlessTerraform(t, "1.14", "actions")
	needSandboxControl(t, "keeps the reported host unhealthy, then repairs it")
	accFaults(t, sandbox.Faults{FaultyRepairMs: -1})
	t.Cleanup(func() {
		for h := range sandbox.HostsPerSubBlock {
			if err := accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", block, subBlock, h, sandbox.HostHealthy); err != nil {
				t.Errorf("repairing host %d of %s: %v", h, subBlock, err)
			}
		}
	})
}

// reportAfterCreate is a terraform_data "report" of the input (an
// expression), replaced when the triggers change, whose create runs
// action gke_report_faulty.NAME: the action's config is its zone,
// us-central1-a, and the lines given.
func reportAfterCreate(name, input string, triggers []string, config string) string {
	replaced := ""
	if triggers != nil {
		quoted := make([]string, len(triggers))
		for i, v := range triggers {
			quoted[i] = strconv.Quote(v)
		}
		replaced = "\n  triggers_replace = [" + strings.Join(quoted, ", ") + "]"
	}
	return `
resource "terraform_data" "report" {
  input = ` + input + replaced + `
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.gke_report_faulty.` + name + `]
    }
  }
}

action "gke_report_faulty" "` + name + `" {
  config {
    zone = "us-central1-a"` + config + `
  }
}
`
}

// reportFaulty on a free sub-block, run by a resource's action_trigger
// (as terraform-plugin-testing runs it): the sub-block is UNHEALTHY when
// the apply ends, and the sandbox repairs it.
func TestAccActionReportFaultySubBlock(t *testing.T) {
	skipUnlessTerraform(t, "1.14", "actions")
	needSandboxControl(t, "times the repair of the reported hosts")
	accFaults(t, sandbox.Faults{FaultyRepairMs: 4000})
	health := func() string {
		read, err := accEngine(t).Reservations().ReadSubBlocks(context.Background(), accClientsConfig().Project, "us-central1-a", "tpu7x-reservation", "block-b")
		if err != nil {
			t.Fatal(err)
		}
		b := read.Block
		for _, s := range b.SubBlocks {
			if s.Name == "sub-block-b4" {
				return s.Health
			}
		}
		t.Fatal("no sub-block-b4")
		return ""
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: accConfig(reportAfterCreate("b4", `"b4"`, nil, `
    reservation       = "tpu7x-reservation"
    reservation_block = "block-b"
    sub_block         = "sub-block-b4"
    fault_reasons     = [{ behavior = "SILENT_DATA_CORRUPTION", description = "wrong gradients on every host" }]`)),
			Check: func(*terraform.State) error {
				if h := health(); h != "UNHEALTHY" {
					return errors.New("sub-block-b4 is " + h + " after the report, want UNHEALTHY")
				}
				return nil
			},
		}},
	})
	testsupport.Poll(t, 60*time.Second, 500*time.Millisecond, "sub-block-b4 to be repaired (HEALTHY)", func() (bool, string, error) {
		h := health()
		return h == "HEALTHY", "sub-block-b4 was never repaired: it is " + h, nil
	})
}

// reportHostAsFaulty on one node's VM, run by a resource's action_trigger:
// the node's host turns UNHEALTHY, and with it the pool's partition.
func TestAccActionReportFaultyHost(t *testing.T) {
	needHostReports(t, "block-b", "sub-block-b1")
	config := poolConfig("host-policy", "host-pool", `
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-b"
  reservation_sub_block = "sub-block-b1"`) + reportAfterCreate("host", "gke_subblock_node_pool.np.node_names[3]", nil, `
    instance      = gke_subblock_node_pool.np.node_names[3]
    fault_reasons = [{ behavior = "CHIP_ERROR", description = "uncorrectable errors on chip 2" }]`)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: config},
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_subblock_node_pool.np", tfjsonpath.New("partition_state"), knownvalue.StringExact("UNHEALTHY")),
				},
			},
		},
	})
}
