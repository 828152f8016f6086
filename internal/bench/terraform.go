package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// mirrorVersion is the version the built provider is installed as.
const mirrorVersion = "0.0.1"

// workspace is a Terraform working directory with the bench stack and a
// local filesystem mirror holding the provider built from this tree.
type workspace struct {
	dir     string
	cliRC   string
	binary  string
	env     []string
	verbose bool
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

// newWorkspace builds the provider (with the release build flags) into a
// filesystem mirror and writes the stack.
func newWorkspace(ctx context.Context, root, dir, zone, reservation, block string, env []string) (*workspace, error) {
	ws := &workspace{dir: filepath.Join(dir, "stack"), cliRC: filepath.Join(dir, "cli.tfrc")}
	mirror := filepath.Join(dir, "mirror")
	var err error
	if ws.binary, err = buildInto(ctx, root, mirror, "gke", "."); err != nil {
		return nil, fmt.Errorf("building the provider: %w", err)
	}
	// The provider and the two floors' providers come from the mirror.
	mirrored := `["registry.terraform.io/dynslice/gke", "registry.terraform.io/dynslice/floor", "registry.terraform.io/dynslice/schemafloor"]`
	rc := fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = %s
  }
  direct {
    exclude = %s
  }
}
`, mirror, mirrored, mirrored)
	if err := os.WriteFile(ws.cliRC, []byte(rc), 0o600); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(ws.dir, 0o755); err != nil {
		return nil, err
	}
	module := filepath.Join(root, "examples", "modules", "slice-stack")
	config := fmt.Sprintf(stackConfig, module, mirrorVersion, zone, reservation, block)
	if err := os.WriteFile(filepath.Join(ws.dir, "main.tf"), []byte(config), 0o600); err != nil {
		return nil, err
	}
	ws.env = append(cleanEnv(), env...)
	ws.env = append(ws.env, "TF_CLI_CONFIG_FILE="+ws.cliRC, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	if _, err := ws.terraform(ctx, nil, "init", "-input=false", "-no-color"); err != nil {
		return nil, err
	}
	return ws, nil
}

// buildInto builds the provider of package pkg (the release build flags)
// into the filesystem mirror as registry.terraform.io/dynslice/<name> and
// returns the binary's path.
func buildInto(ctx context.Context, root, mirror, name, pkg string) (string, error) {
	platform := runtime.GOOS + "_" + runtime.GOARCH
	pluginDir := filepath.Join(mirror, "registry.terraform.io", "dynslice", name, mirrorVersion, platform)
	if err := os.MkdirAll(pluginDir, 0o755); err != nil {
		return "", err
	}
	binary := filepath.Join(pluginDir, "terraform-provider-"+name+"_v"+mirrorVersion)
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+mirrorVersion, "-o", binary, pkg)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return binary, nil
}

// cleanEnv is this process's environment without Terraform's logging and
// configuration variables, which would change what is measured.
func cleanEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "TF_LOG") || name == "TF_CLI_CONFIG_FILE" || name == "TF_REATTACH_PROVIDERS" ||
			strings.HasPrefix(name, "TF_CLI_ARGS") || name == "TF_PLUGIN_CACHE_DIR" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// terraform runs one Terraform command in the workspace and returns its
// wall time. extraEnv is added to the environment (TF_REATTACH_PROVIDERS).
func (ws *workspace) terraform(ctx context.Context, extraEnv []string, args ...string) (time.Duration, error) {
	t, err := ws.timedTerraform(ctx, extraEnv, args...)
	return t.wall, err
}

// commandTimes is how long a command took: its wall time, and the CPU time
// (user and system) of Terraform's process and of the provider processes
// it started and waited for, which the kernel adds to Terraform's when it
// reaps them; and the providers' own peak resident set and CPU time. A
// provider served from this process (TF_REATTACH_PROVIDERS) and the
// sandbox are not in it.
type commandTimes struct {
	wall, cpu time.Duration
	// providers is what the processes Terraform started (its providers)
	// used, sampled (procwatch.go).
	providers processUse
	// sandbox is the CPU time the sandbox (this process and the ones it
	// started before the command) used meanwhile (sandbox_cpu.go).
	sandbox time.Duration
	// sandboxParts is sandbox split by part (sinceByPart).
	sandboxParts map[string]time.Duration
}

// timedTerraform is terraform with the command's CPU time.
func (ws *workspace) timedTerraform(ctx context.Context, extraEnv []string, args ...string) (commandTimes, error) {
	cmd := exec.CommandContext(ctx, "terraform", args...)
	cmd.Dir = ws.dir
	cmd.Env = append(append([]string{}, ws.env...), extraEnv...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	mark := markSandboxCPU()
	started := time.Now()
	err := cmd.Start()
	var t commandTimes
	if err == nil {
		watch := watchChildren(cmd.Process.Pid, watchOptions{})
		err = cmd.Wait()
		t.providers = watch.finish()
	}
	t.sandboxParts = mark.sinceByPart()
	for _, part := range t.sandboxParts {
		t.sandbox += part
	}
	t.wall = time.Since(started)
	if cmd.ProcessState != nil {
		t.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if ws.verbose {
		fmt.Fprintf(os.Stderr, "terraform %s (%s, CPU %s)\n", strings.Join(args, " "), t.wall.Round(time.Millisecond), t.cpu.Round(time.Millisecond))
	}
	if err != nil {
		return t, fmt.Errorf("terraform %s: %w\n%s", strings.Join(args, " "), err, lastLines(out.String(), 40))
	}
	return t, nil
}

// vars are the stack's input variables as -var flags.
func vars(subBlocks, slices int, topology, prefix string) []string {
	return []string{
		fmt.Sprintf("-var=sub_block_count=%d", subBlocks),
		fmt.Sprintf("-var=slice_count=%d", slices),
		"-var=slice_topology=" + topology,
		"-var=slice_prefix=" + prefix,
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
