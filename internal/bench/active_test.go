package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/tfrun"
)

// The provider binary starts as Terraform starts it and serves its schema.
func TestStartProvider(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "terraform-provider-gke")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run, err := startProvider(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	if run.Start <= 0 || run.Schema <= 0 || run.SchemaBytes < 1000 {
		t.Errorf("start %s, schema %s, %d bytes of schema", run.Start, run.Schema, run.SchemaBytes)
	}
	if _, err := startProvider(context.Background(), "/bin/true"); err == nil {
		t.Error("a program that is not a provider started")
	}
}

// Terraform reaches the provider served in-process, and its RPCs are timed.
func TestInProcessProvider(t *testing.T) {
	reattach, srv, stop, err := inProcess(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dir := t.TempDir()
	config := `terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}

output "partitions" {
  value = provider::gke::topology_partitions("16x24x24")
}
`
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(tfrun.CleanEnv(), reattach, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	for _, args := range [][]string{{"init", "-input=false", "-no-color"}, {"apply", "-input=false", "-no-color", "-auto-approve"}} {
		cmd := exec.Command("terraform", args...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "apply" && !strings.Contains(string(out), "partitions = 144") {
			t.Errorf("apply output lacks partitions = 144:\n%s", out)
		}
	}
	_, times := srv.take()
	if calls := times["CallFunction"]; calls.Calls == 0 || calls.TotalMs <= 0 || calls.MaxMs > calls.TotalMs {
		t.Errorf("CallFunction timed as %+v", calls)
	}
	if _, again := srv.take(); len(again) != 0 {
		t.Error("take did not start afresh")
	}
}
