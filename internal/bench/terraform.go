package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/tfrun"
)

// workspace is a Terraform working directory of the bench (the stack's,
// or the floor's), its commands run through tfrun.
type workspace struct{ tfrun.Workspace }

// commandTimes is how long a command took: its wall time and CPU time
// (tfrun.Result), and what the provider processes it started used,
// sampled from /proc (procwatch.go). A provider served from this process
// and the sandbox are not in it.
type commandTimes struct {
	wall, cpu time.Duration
	providers processUse
}

// terraform runs one Terraform command in the workspace, extraEnv added
// to its environment (TF_REATTACH_PROVIDERS), and returns its times.
func (ws workspace) terraform(ctx context.Context, extraEnv []string, args ...string) (commandTimes, error) {
	run := ws.Workspace
	run.Env = append(append([]string{}, run.Env...), extraEnv...)
	var t commandTimes
	res, err := run.Run(ctx, func(p *os.Process) func() {
		watch := watchChildren(p.Pid, watchOptions{})
		return func() { t.providers = watch.finish() }
	}, args...)
	t.wall, t.cpu = res.Wall, res.CPU
	if err != nil {
		return t, fmt.Errorf("%w\n%s", err, tfrun.LastLines(res.Output, 40))
	}
	return t, nil
}

// stackConfig is the benchmarked stack: the slice-stack blueprint module
// over the pod's reservation block, and for the scale step (pods > 1) one
// more of it over each further pod's block (sandbox.PodsInventory), its
// node pools named pod<i>-..., its slices <prefix>-<i>-<nn>.
const stackConfig = `terraform {
  required_providers {
    gke = {
      source  = "dynslice/gke"
      version = "%[2]s"
    }
  }
}

provider "gke" {}

variable "sub_block_count" {
  type = number
}

variable "slice_topology" {
  type    = string
  default = "4x4x4"
}

variable "slice_count" {
  type    = number
  default = 0
}

variable "slice_prefix" {
  type    = string
  default = "pod-slice"
}

variable "pods" {
  type    = number
  default = 1
}

module "stack" {
  source = %[1]q

  name              = "pod"
  zone              = %[3]q
  reservation       = %[4]q
  reservation_block = %[5]q
  sub_block_count   = var.sub_block_count
  slices = {
    for i in range(var.slice_count) : format("%%s-%%02d", var.slice_prefix, i) => { topology = var.slice_topology }
  }
}

module "pod" {
  source   = %[1]q
  for_each = { for i in range(2, var.pods + 1) : tostring(i) => i }

  name              = "pod${each.value}"
  zone              = %[3]q
  reservation       = %[4]q
  reservation_block = format("%%s-%%d", %[5]q, each.value)
  sub_block_count   = var.sub_block_count
  slices = {
    for i in range(var.slice_count) : format("%%s-%%d-%%02d", var.slice_prefix, each.value, i) => { topology = var.slice_topology }
  }
}
`

// floorConfig is the plan floor's configuration: n floor_noop resources
// (internal/bench/floor), whose handlers do no work.
const floorConfig = `terraform {
  required_providers {
    floor = {
      source  = "dynslice/floor"
      version = "%[1]s"
    }
  }
}

variable "resources" {
  type = number
}

resource "floor_noop" "this" {
  for_each = toset([for i in range(var.resources) : format("noop-%%03d", i)])

  name   = each.key
  zone   = "us-central1-a"
  size   = 16
  labels = { purpose = "floor" }
}
`

// meter runs the Terraform commands of a sandbox's stack and counts the
// API requests each makes.
type meter struct {
	sb        *sandbox.Sandbox
	ws, floor workspace
	// binary is the provider's, as Terraform starts it.
	binary string
	// stack is the size of one pod's stack (Options.Scale); pods how many
	// pods the stack spans (the scale step's; 0 or 1 for the others).
	stack podStack
	pods  int
}

// newMeter builds the provider and the floor's provider (the release
// build flags) into a filesystem mirror in dir, and runs terraform init
// in the stack's and the floor's workspaces.
func newMeter(ctx context.Context, opts Options, dir string, sb *sandbox.Sandbox) (*meter, error) {
	mirror, rc := filepath.Join(dir, "mirror"), filepath.Join(dir, "cli.tfrc")
	m := &meter{sb: sb, stack: stackOf(opts.Scale)}
	var err error
	if m.binary, err = tfrun.Build(ctx, opts.Root, mirror, "gke", "."); err != nil {
		return nil, err
	}
	if _, err := tfrun.Build(ctx, opts.Root, mirror, "floor", "./cmd/gke-bench-floor"); err != nil {
		return nil, err
	}
	if err := tfrun.WriteCLIConfig(rc, mirror, "gke", "floor"); err != nil {
		return nil, err
	}
	env := append(tfrun.CleanEnv(), sb.Env()...)
	env = append(env, "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	module := filepath.Join(opts.Root, "examples", "modules", "slice-stack")
	for _, w := range []struct {
		ws     *workspace
		name   string
		config string
	}{
		{&m.ws, "stack", fmt.Sprintf(stackConfig, module, tfrun.Version, podZone, podReservation, podBlock)},
		{&m.floor, "floor", fmt.Sprintf(floorConfig, tfrun.Version)},
	} {
		*w.ws = workspace{tfrun.Workspace{Dir: filepath.Join(dir, w.name), Env: env}}
		if err := os.MkdirAll(w.ws.Dir, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(w.ws.Dir, "main.tf"), []byte(w.config), 0o600); err != nil {
			return nil, err
		}
		if _, err := w.ws.terraform(ctx, nil, "init", "-input=false", "-no-color"); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// vars are the stack's input variables as -var flags: pools node pools
// and slices slices named <prefix>-<nn> (of 4x8x8, or of the pod's
// super-slice when a pod has one), split evenly over m.pods pods.
func (m *meter) vars(pools, slices int, prefix string) []string {
	pods := max(1, m.pods)
	pools, slices = pools/pods, slices/pods
	topology := "4x8x8"
	if slices == 1 {
		topology = m.stack.oneSlice
	}
	return []string{
		fmt.Sprintf("-var=sub_block_count=%d", pools),
		fmt.Sprintf("-var=slice_count=%d", slices),
		"-var=slice_topology=" + topology,
		"-var=slice_prefix=" + prefix,
		fmt.Sprintf("-var=pods=%d", pods),
	}
}

// planFlags are the flags of every measured plan, then vars.
func planFlags(vars ...string) []string {
	return append([]string{"plan", "-input=false", "-no-color", "-lock=false", "-detailed-exitcode"}, vars...)
}
