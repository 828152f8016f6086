package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

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

// newFloorWorkspace builds the floor provider into the mirror of ws and
// makes a working directory of its own for the floor's configuration and
// state, beside the stack's, with the same Terraform and environment.
func newFloorWorkspace(ctx context.Context, root, dir string, ws *workspace) (*workspace, error) {
	if _, err := buildInto(ctx, root, filepath.Join(dir, "mirror"), "floor", "./cmd/gke-bench-floor"); err != nil {
		return nil, fmt.Errorf("building the floor provider: %w", err)
	}
	fw := &workspace{dir: filepath.Join(dir, "floor"), cliRC: ws.cliRC, env: ws.env, verbose: ws.verbose}
	if err := os.MkdirAll(fw.dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(fw.dir, "main.tf"), []byte(fmt.Sprintf(floorConfig, mirrorVersion)), 0o600); err != nil {
		return nil, err
	}
	if _, err := fw.terraform(ctx, nil, "init", "-input=false", "-no-color"); err != nil {
		return nil, err
	}
	return fw, nil
}

// floorResources is how many resources the floor plans beside a plan of
// the stack of pods pods: its pools and slices, and each pod's workload
// policy and data source (a data source read costs Terraform what a
// refresh does).
func floorResources(pods, pools, slices int) int { return pools + slices + 2*pods }

// planWithFloor measures runs plans of the stack (args), of its floor and
// of its schema floor, in turn, so that all see the same load of the
// machine. It first applies the floor with as many resources as the plan
// refreshes, so that the floor's plan refreshes that many existing ones
// as the stack's does, and copies the stack's state and configuration's
// values to the schema floor (copyToSchemaFloor); the floors plan with the
// stack's plan flags. A floor's plan that has changes fails the bench
// (-detailed-exitcode): it would not be the same work.
func (m *meter) planWithFloor(ctx context.Context, name string, pools, slices int, topology string, runs int, args []string) (*Measurement, error) {
	n := floorResources(max(1, m.pods), pools, slices)
	v := fmt.Sprintf("-var=resources=%d", n)
	if _, err := m.floor.terraform(ctx, nil, "apply", "-input=false", "-no-color", "-auto-approve", v); err != nil {
		return nil, fmt.Errorf("floor of %s: %w", name, err)
	}
	plan := &Measurement{Name: name, Args: args, Pools: pools, Slices: slices, Topology: topology, FloorResources: n}
	if m.schemaFloor != nil {
		var err error
		if plan.SchemaFloorResources, err = copyToSchemaFloor(ctx, m.ws.dir, m.schemaFloor.dir); err != nil {
			return nil, fmt.Errorf("schema floor of %s: %w", name, err)
		}
	}
	for range runs {
		one, err := m.measure(ctx, name, pools, slices, topology, 1, args...)
		if err != nil {
			return nil, err
		}
		plan.WallMs, plan.CPUMs = append(plan.WallMs, one.WallMs...), append(plan.CPUMs, one.CPUMs...)
		plan.ProviderCPUMs = append(plan.ProviderCPUMs, one.ProviderCPUMs...)
		plan.SandboxCPUMs = append(plan.SandboxCPUMs, one.SandboxCPUMs...)
		plan.ProviderPeakRSSMiB = append(plan.ProviderPeakRSSMiB, one.ProviderPeakRSSMiB...)
		plan.Kube = append(plan.Kube, one.Kube...)
		plan.Google = append(plan.Google, one.Google...)
		took, err := m.floor.timedTerraform(ctx, nil, planFlags(v)...)
		if err != nil {
			return nil, fmt.Errorf("floor of %s (a plan of %d no-op resources): %w", name, n, err)
		}
		plan.FloorWallMs, plan.FloorCPUMs = append(plan.FloorWallMs, ms(took.wall)), append(plan.FloorCPUMs, ms(took.cpu))
		plan.FloorSandboxCPUMs = append(plan.FloorSandboxCPUMs, ms(took.sandbox))
		if m.schemaFloor == nil {
			continue
		}
		if took, err = m.schemaFloor.timedTerraform(ctx, nil, planFlags()...); err != nil {
			return nil, fmt.Errorf("schema floor of %s (a plan of its %d resources with no provider work): %w", name, plan.SchemaFloorResources, err)
		}
		plan.SchemaFloorWallMs, plan.SchemaFloorCPUMs = append(plan.SchemaFloorWallMs, ms(took.wall)), append(plan.SchemaFloorCPUMs, ms(took.cpu))
		plan.SchemaFloorProviderCPUMs = append(plan.SchemaFloorProviderCPUMs, ms(took.providers.cpu))
		plan.SchemaFloorSandboxCPUMs = append(plan.SchemaFloorSandboxCPUMs, ms(took.sandbox))
		plan.SchemaFloorSandboxPartCPUMs = appendParts(plan.SchemaFloorSandboxPartCPUMs, took.sandboxParts)
		plan.SchemaFloorPeakRSSMiB = append(plan.SchemaFloorPeakRSSMiB, mib(took.providers.peakRSSKiB))
	}
	plan.MedianMs, plan.FloorMedianMs = percentile(plan.WallMs, 50), percentile(plan.FloorWallMs, 50)
	if len(plan.SchemaFloorWallMs) > 0 {
		plan.SchemaFloorMedianMs = percentile(plan.SchemaFloorWallMs, 50)
	}
	return plan, nil
}

// planFlags are the flags of every measured plan, then vars.
func planFlags(vars ...string) []string {
	return append([]string{"plan", "-input=false", "-no-color", "-lock=false", "-detailed-exitcode"}, vars...)
}

// floorRatio is how many times its floor a plan took, 0 when it has no
// floor.
func floorRatio(c Measurement) float64 {
	if c.FloorMedianMs <= 0 {
		return 0
	}
	return c.MedianMs / c.FloorMedianMs
}

// schemaFloorRatio is how many times its schema floor a plan took, 0 when
// it has no schema floor.
func schemaFloorRatio(c Measurement) float64 {
	if c.SchemaFloorMedianMs <= 0 {
		return 0
	}
	return c.MedianMs / c.SchemaFloorMedianMs
}
