package tfrun_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/dynslice/terraform-provider-gke/internal/provider"
	"github.com/dynslice/terraform-provider-gke/internal/tfrun"
)

const topologyConfig = `terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}

output "partitions" {
  value = provider::gke::topology_partitions("16x24x24")
}
`

// workspace is a new directory holding topologyConfig.
func workspace(t *testing.T, env ...string) tfrun.Workspace {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(topologyConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return tfrun.Workspace{Dir: dir, Env: append(tfrun.CleanEnv(), append(env, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")...), Log: t.Logf}
}

// A provider built into a mirror is what terraform init installs, with no
// network, and what the apply runs as its own process.
func TestBuildIntoMirror(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mirror := t.TempDir()
	binary, err := tfrun.Build(ctx, filepath.Join("..", ".."), mirror, "gke", ".")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(binary, filepath.Join("dynslice", "gke", tfrun.Version)) {
		t.Errorf("binary %s is not in the mirror's layout", binary)
	}
	rc := filepath.Join(t.TempDir(), "cli.tfrc")
	if err := tfrun.WriteCLIConfig(rc, mirror, "gke"); err != nil {
		t.Fatal(err)
	}
	var logged []string
	ws := workspace(t, "TF_CLI_CONFIG_FILE="+rc)
	ws.Log = func(format string, args ...any) { logged = append(logged, format) }
	if _, err := ws.Run(ctx, nil, "init", "-input=false", "-no-color"); err != nil {
		t.Fatal(err)
	}
	res, err := ws.Run(ctx, nil, "apply", "-input=false", "-no-color", "-auto-approve")
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Output)
	}
	if !strings.Contains(res.Output, "partitions = 144") || res.Wall <= 0 {
		t.Errorf("apply took %s and printed:\n%s", res.Wall, res.Output)
	}
	if len(logged) != 2 {
		t.Errorf("logged %d commands, want 2", len(logged))
	}
	if _, err := tfrun.Build(ctx, filepath.Join("..", ".."), mirror, "none", "./no/such/package"); err == nil {
		t.Error("a package that does not exist was built")
	}
}

// Terraform reaches the provider served in this process; a command that
// fails says which and keeps its exit status.
func TestServe(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var called atomic.Int32
	env, stop, err := tfrun.Serve(ctx, tfrun.Address, func() tfprotov6.ProviderServer {
		called.Add(1)
		return providerserver.NewProtocol6(provider.New("test")())()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	ws := workspace(t, env)
	var seen []*os.Process
	watch := func(p *os.Process) func() {
		seen = append(seen, p)
		return func() {}
	}
	if _, err := ws.Run(ctx, watch, "init", "-input=false", "-no-color"); err != nil {
		t.Fatal(err)
	}
	res, err := ws.Run(ctx, watch, "apply", "-input=false", "-no-color", "-auto-approve")
	if err != nil || !strings.Contains(res.Output, "partitions = 144") {
		t.Fatalf("apply: %v\n%s", err, res.Output)
	}
	if called.Load() == 0 || len(seen) != 2 {
		t.Errorf("the served provider was made %d times, the runs watched %d processes", called.Load(), len(seen))
	}
	_, err = ws.Run(ctx, nil, "plan", "-no-such-flag")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 || !strings.Contains(err.Error(), "terraform plan -no-such-flag") {
		t.Errorf("a failed command returned %v", err)
	}
}

func TestLastLines(t *testing.T) {
	t.Parallel()
	if got := tfrun.LastLines("a\nb\nc\n", 2); got != "b\nc" {
		t.Errorf("LastLines = %q", got)
	}
	if got := tfrun.LastLines("a", 5); got != "a" {
		t.Errorf("LastLines = %q", got)
	}
}
